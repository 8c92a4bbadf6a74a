//! What a chart author writing Jinja expects of includes and chart files.

use meshchart::chart::{Chart, ChartFile};
use meshchart::engine::{Engine, RenderOptions};
use meshchart::values::Value;

fn chart(files: &[(&str, &str)]) -> Chart {
    let mut all = vec![ChartFile {
        path: "Chart.yaml".into(),
        text: "apiVersion: v2\nname: web\nversion: 0.1.0\n".into(),
    }];
    all.extend(files.iter().map(|(path, text)| ChartFile {
        path: (*path).into(),
        text: (*text).into(),
    }));
    Chart::from_files("web", all).expect("the chart loads")
}

fn render_template(chart: &Chart, name: &str) -> String {
    Engine::new(chart)
        .expect("templates compile")
        .render_template(
            name,
            &Value::Map(Default::default()),
            &RenderOptions::default(),
        )
        .expect("renders")
}

#[test]
fn an_included_partial_leaves_no_blank_line_behind() {
    let chart = chart(&[
        ("templates/_labels.tpl", "app: web\ntier: front\n"),
        (
            "templates/cm.yaml",
            "metadata:\n  labels:{{ include(\"_labels.tpl\") | nindent(4) }}\ndata: {}\n",
        ),
    ]);
    assert_eq!(
        render_template(&chart, "cm.yaml"),
        "metadata:\n  labels:\n    app: web\n    tier: front\ndata: {}\n"
    );
}

#[test]
fn a_partial_loses_only_one_final_newline() {
    let chart = chart(&[
        ("templates/_two.tpl", "x\n\n"),
        ("templates/cm.yaml", "[{{ include(\"_two.tpl\") }}]"),
    ]);
    assert_eq!(render_template(&chart, "cm.yaml"), "[x\n]");
}

#[test]
fn an_included_manifest_keeps_its_text_exactly_for_checksums() {
    let chart = chart(&[
        ("templates/config.yaml", "kind: ConfigMap\n"),
        (
            "templates/deploy.yaml",
            "checksum: {{ include(\"config.yaml\") | sha256sum }}\nraw: {{ include(\"config.yaml\") | toJson }}\n",
        ),
    ]);
    let out = render_template(&chart, "deploy.yaml");
    assert!(out.contains(r#"raw: "kind: ConfigMap\n""#), "{out}");
}

#[test]
fn files_are_the_charts_own_files_without_those_helm_keeps() {
    let chart = chart(&[
        ("values.yaml", "a: 1\n"),
        ("config/app.conf", "port = 80\n"),
        (
            "templates/cm.yaml",
            "{% for path in Files %}{{ path }};{% endfor %}",
        ),
    ]);
    assert_eq!(render_template(&chart, "cm.yaml"), "config/app.conf;");
}

#[test]
fn files_as_config_fills_a_config_maps_data() {
    let chart = chart(&[
        ("config/a.conf", "x = 1\n"),
        ("config/b.conf", "y = 2"),
        (
            "templates/cm.yaml",
            "data:\n  {{- Files.Glob(\"config/*.conf\").AsConfig() | nindent(2) }}\n",
        ),
    ]);
    assert_eq!(
        render_template(&chart, "cm.yaml"),
        "data:\n  a.conf: |\n    x = 1\n  b.conf: y = 2\n"
    );
}

#[test]
fn an_unknown_files_method_names_the_ones_there_are() {
    let chart = chart(&[("templates/cm.yaml", "{{ Files.Read(\"x\") }}")]);
    let err = Engine::new(&chart)
        .unwrap()
        .render_template(
            "cm.yaml",
            &Value::Map(Default::default()),
            &RenderOptions::default(),
        )
        .unwrap_err();
    let mut message = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    assert!(
        message.contains("Get, GetBytes, Glob, Lines, AsConfig, AsSecrets"),
        "{message}"
    );
}

/// A chart folder in a fresh scratch folder, with `files` (path, bytes) besides its Chart.yaml.
fn chart_folder(name: &str, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("meshchart-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let chart_yaml: &[u8] = b"apiVersion: v2\nname: web\nversion: 0.1.0\n";
    for (path, bytes) in std::iter::once(&("Chart.yaml", chart_yaml)).chain(files) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

#[test]
fn files_that_are_not_text_load_and_files_get_bytes_reads_them_whole() {
    let blob: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\xfe";
    let dir = chart_folder(
        "binary-files",
        &[
            ("logo.png", blob),
            ("files/blob.bin", blob),
            (
                "templates/cm.yaml",
                b"blob: {{ Files.GetBytes(\"files/blob.bin\") | b64enc }}\n",
            ),
        ],
    );
    let chart = Chart::from_dir(camino::Utf8Path::from_path(&dir).unwrap())
        .expect("a chart with binary files loads");
    use base64::Engine as _;
    let expected = base64::engine::general_purpose::STANDARD.encode(blob);
    assert_eq!(
        render_template(&chart, "cm.yaml"),
        format!("blob: {expected}\n")
    );
}

#[test]
fn a_template_that_is_not_utf8_is_an_error_naming_it() {
    let dir = chart_folder("binary-template", &[("templates/cm.yaml", b"a: \xff\n")]);
    let err = Chart::from_dir(camino::Utf8Path::from_path(&dir).unwrap())
        .expect_err("a template must be text")
        .to_string();
    assert!(err.contains("templates/cm.yaml"), "{err}");
}
