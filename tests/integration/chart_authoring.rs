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
