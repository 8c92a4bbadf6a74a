//! What a Helm user types works as they expect (#37): `render NAME CHART`, Helm's
//! `--release-name` switch and `--version` constraint, its document flags (`--include-crds`,
//! `--skip-tests`, `--no-hooks`), the flags that only matter against a cluster (accepted, named
//! in one note) and those refused with a reason.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use support::cli::{run, scratch_dir};

/// A chart with a Service, a ConfigMap, a test hook, a pre-install hook, a CRD in crds/ and a
/// schema that wants `replicas` to be an integer.
fn chart(name: &str) -> PathBuf {
    let dir = scratch_dir(name).join("web");
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.4.2\n");
    write("values.yaml", "replicas: 1\n");
    write(
        "values.schema.json",
        r#"{"type": "object", "properties": {"replicas": {"type": "integer"}}}"#,
    );
    let resource = |kind: &str, suffix: &str, annotations: &str| {
        format!(
            "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {{{{ Release.Name }}}}-{suffix}\n{annotations}"
        )
    };
    write("templates/service.yaml", &resource("Service", "svc", ""));
    write("templates/configmap.yaml", &resource("ConfigMap", "cm", ""));
    write(
        "templates/test.yaml",
        &resource("Pod", "test", "  annotations:\n    helm.sh/hook: test\n"),
    );
    write(
        "templates/job.yaml",
        &resource(
            "Job",
            "setup",
            "  annotations:\n    helm.sh/hook: pre-install\n",
        ),
    );
    write(
        "crds/widget.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
    );
    dir
}

fn meshchart_in(dir: &Path, args: &[&str]) -> Output {
    run(support::cli::command(args).current_dir(dir))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `(scratch folder, chart folder)` for a test named `name`.
fn setup(name: &str) -> (PathBuf, String) {
    let chart = chart(name);
    let scratch = chart.parent().unwrap().to_path_buf();
    (scratch, chart.to_string_lossy().into_owned())
}

fn sources(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|l| l.strip_prefix("# Source: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn name_then_chart_names_the_release_as_helm_template_does() {
    let (scratch, chart) = setup("name-chart");
    let out = meshchart_in(&scratch, &["render", "shop", &chart]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("name: shop-svc"), "{}", stdout(&out));
}

#[test]
fn one_word_is_the_chart_and_the_release_is_release_name() {
    let (scratch, _) = setup("one-word");
    let out = meshchart_in(&scratch, &["render", "web"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("name: release-name-svc"));
}

#[test]
fn one_word_beside_chart_is_the_release_name() {
    let (scratch, chart) = setup("word-beside-chart");
    let out = meshchart_in(&scratch, &["render", "shop", "--chart", &chart]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("name: shop-svc"));
}

#[test]
fn name_flag_names_the_release_of_a_chart_named_otherwise() {
    let (scratch, chart) = setup("name-flag");
    let out = meshchart_in(&scratch, &["render", "--chart", &chart, "--name", "shop"]);
    assert!(stdout(&out).contains("name: shop-svc"), "{}", stderr(&out));
}

#[test]
fn a_name_given_twice_is_refused() {
    let (scratch, chart) = setup("name-twice");
    for extra in [["--name", "b"], ["-g", "--debug"]] {
        let mut args = vec!["render", "a", &chart];
        args.extend(extra);
        let out = meshchart_in(&scratch, &args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        assert!(stderr(&out).contains("also by --"), "{}", stderr(&out));
    }
}

#[test]
fn release_name_switch_puts_the_release_name_in_output_dir_paths() {
    let (scratch, chart) = setup("release-name-switch");
    let out = meshchart_in(
        &scratch,
        &[
            "render",
            "shop",
            &chart,
            "--output-dir",
            "out",
            "--release-name",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(scratch
        .join("out/shop/web/templates/service.yaml")
        .is_file());
    assert!(stdout(&out).contains("out/shop/web/templates/service.yaml"));
}

#[test]
fn release_name_with_a_value_is_refused_saying_how_to_name_the_release() {
    let (scratch, chart) = setup("release-name-value");
    let out = meshchart_in(&scratch, &["render", &chart, "--release-name=shop"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`render shop CHART` or `--name shop`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn version_is_a_constraint_on_the_charts_version_not_meshcharts_version() {
    let (scratch, chart) = setup("version-ok");
    for constraint in ["1.4.2", "^1.0.0", ">=1.4 <2"] {
        let out = meshchart_in(&scratch, &["render", &chart, "--version", constraint]);
        assert_eq!(out.status.code(), Some(0), "{constraint}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("---\n# Source: web/"));
    }
}

#[test]
fn a_version_the_chart_does_not_satisfy_is_an_error_naming_both() {
    let (scratch, chart) = setup("version-mismatch");
    let out = meshchart_in(&scratch, &["render", &chart, "--version", "^2.0.0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        "error: --version ^2.0.0: chart web is version 1.4.2, which does not satisfy it\n"
    );
}

#[test]
fn include_crds_prints_the_crds_folder_first() {
    let (scratch, chart) = setup("include-crds");
    let out = meshchart_in(&scratch, &["render", &chart, "--include-crds"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(sources(&out)[0], "web/crds/widget.yaml");
    assert!(!stderr(&out).contains("crds/"), "{}", stderr(&out));
}

#[test]
fn without_include_crds_a_note_says_the_crds_folder_was_left_out() {
    let (scratch, chart) = setup("crds-note");
    let out = meshchart_in(&scratch, &["render", &chart]);
    assert!(!sources(&out).iter().any(|s| s.contains("crds/")));
    assert!(
        stderr(&out).contains("crds/ folder (1 file) is not rendered"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn skip_tests_leaves_out_test_hooks_only() {
    let (scratch, chart) = setup("skip-tests");
    let out = meshchart_in(&scratch, &["render", &chart, "--skip-tests"]);
    let shown = sources(&out);
    assert!(
        !shown.contains(&"web/templates/test.yaml".to_owned()),
        "{shown:?}"
    );
    assert!(
        shown.contains(&"web/templates/job.yaml".to_owned()),
        "{shown:?}"
    );
}

#[test]
fn no_hooks_leaves_out_every_hook() {
    let (scratch, chart) = setup("no-hooks");
    let out = meshchart_in(&scratch, &["render", &chart, "--no-hooks"]);
    assert_eq!(
        sources(&out),
        ["web/templates/configmap.yaml", "web/templates/service.yaml"]
    );
}

#[test]
fn cluster_and_repository_flags_are_accepted_and_named_in_one_note() {
    let (scratch, chart) = setup("ignored");
    let plain = meshchart_in(&scratch, &["render", &chart]);
    let out = meshchart_in(
        &scratch,
        &[
            "render",
            &chart,
            "--wait",
            "--timeout",
            "5m",
            "--kube-context",
            "prod",
            "-l",
            "team=a",
            "--debug",
            "--atomic",
            "--create-namespace",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    let said = stderr(&out);
    let notes: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("note: ignored"))
        .collect();
    assert_eq!(
        notes,
        [
            "note: ignored --atomic, --create-namespace, --labels, --timeout, --wait, --debug, \
          --kube-context: Helm uses them to reach a cluster or a chart repository; meshchart \
          renders offline"
        ]
    );
}

#[test]
fn dry_run_client_is_what_render_always_does() {
    let (scratch, chart) = setup("dry-run");
    for flag in ["--dry-run", "--dry-run=client", "--dry-run=none"] {
        let out = meshchart_in(&scratch, &["render", &chart, flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
    }
}

#[test]
fn flags_that_need_a_cluster_or_a_repository_are_refused_with_the_reason() {
    let (scratch, chart) = setup("refused");
    for (flags, reason) in [
        (&["--dry-run=server"][..], "never contacts one"),
        (
            &["--validate"],
            "`meshchart lint` checks the documents offline",
        ),
        (&["--post-renderer", "kustomize"], "pipe the output instead"),
        (
            &["--repo", "https://charts.example.com"],
            "never downloads one",
        ),
        (&["--verify"], "provenance"),
    ] {
        let mut args = vec!["render", &chart];
        args.extend(flags);
        let out = meshchart_in(&scratch, &args);
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).contains(reason), "{flags:?}: {}", stderr(&out));
    }
}

#[test]
fn name_template_is_the_release_name_as_plain_text() {
    let (scratch, chart) = setup("name-template");
    let out = meshchart_in(&scratch, &["render", &chart, "--name-template", "shop"]);
    assert!(stdout(&out).contains("name: shop-svc"), "{}", stderr(&out));
    let templated = meshchart_in(
        &scratch,
        &["render", &chart, "--name-template", "{{randAlpha 6}}"],
    );
    assert_eq!(templated.status.code(), Some(2));
    assert!(stderr(&templated).contains("plain text"));
}

#[test]
fn generate_name_names_the_release_as_helm_template_does() {
    let (scratch, chart) = setup("generate-name");
    let out = meshchart_in(&scratch, &["render", &chart, "-g"]);
    assert!(stdout(&out).contains("name: release-name-svc"));
}

#[test]
fn skip_schema_validation_renders_values_the_schema_refuses() {
    let (scratch, chart) = setup("skip-schema");
    let args = ["render", &chart, "--set-string", "replicas=two"];
    assert_eq!(meshchart_in(&scratch, &args).status.code(), Some(1));
    let mut skipped = args.to_vec();
    skipped.push("--skip-schema-validation");
    let out = meshchart_in(&scratch, &skipped);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn show_only_takes_character_classes() {
    let (scratch, chart) = setup("show-only-class");
    let out = meshchart_in(&scratch, &["render", &chart, "-s", "templates/[sj]*.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        sources(&out),
        ["web/templates/service.yaml", "web/templates/job.yaml"]
    );
}

#[test]
fn lint_and_package_accept_helms_global_flags() {
    let (scratch, chart) = setup("global-flags");
    for command in ["lint", "package"] {
        let out = meshchart_in(
            &scratch,
            &[command, &chart, "--kube-context", "prod", "--debug"],
        );
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains("note: ignored --debug, --kube-context"));
    }
}

#[test]
fn a_release_name_helm_would_refuse_is_refused_with_helms_rule() {
    let (scratch, chart) = setup("bad-name");
    for args in [
        &["render", "Shop_1", &chart][..],
        &["render", "--chart", &chart, "--name", "Shop_1"],
    ] {
        let out = meshchart_in(&scratch, args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(
            stderr(&out).contains("\"Shop_1\" is not a valid release name"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn package_says_helm_cannot_render_the_archive_it_wrote() {
    let (scratch, chart) = setup("package-jinja-note");
    let out = meshchart_in(&scratch, &["package", &chart]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "note: its templates are Jinja: helm template, helm install and helm lint cannot \
             render it"
        ),
        "{}",
        stderr(&out)
    );
    // What the note promises: real Helm, where this machine has it, fails as it says.
    let Some(helm) =
        support::cli::helm_or_skip("package_says_helm_cannot_render_the_archive_it_wrote")
    else {
        return;
    };
    let helm_out = std::process::Command::new(helm)
        .args(["template", "web-1.4.2.tgz"])
        .current_dir(&scratch)
        .output()
        .expect("run helm");
    assert_ne!(helm_out.status.code(), Some(0));
    assert!(
        stderr(&helm_out).contains("function \"Release\" not defined"),
        "{}",
        stderr(&helm_out)
    );
}

#[test]
fn package_takes_helms_download_and_dependency_flags_with_notes() {
    let (scratch, chart) = setup("package-helm-flags");
    let out = meshchart_in(
        &scratch,
        &[
            "package",
            &chart,
            "-u",
            "--username",
            "me",
            "--plain-http",
            "-n",
            "prod",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: ignored --plain-http, --username, --namespace: Helm uses them"),
        "{err}"
    );
    assert!(
        err.contains("note: ignored --dependency-update: they are about subcharts"),
        "{err}"
    );
    assert!(scratch.join("web-1.4.2.tgz").is_file());
}

#[test]
fn package_refuses_to_sign_saying_what_to_do_instead() {
    let (scratch, chart) = setup("package-sign");
    let out = meshchart_in(&scratch, &["package", &chart, "--sign", "--key", "me"]);
    support::cli::assert_refused(
        &out,
        1,
        &[
            "--sign, --key: meshchart cannot sign a package",
            "gpg --detach-sign",
        ],
    );
    assert!(!scratch.join("web-1.4.2.tgz").exists(), "nothing written");
}

#[test]
fn lint_with_subcharts_and_render_skip_crds_are_accepted_with_a_note() {
    let (scratch, chart) = setup("subcharts-skip-crds");
    let lint = meshchart_in(&scratch, &["lint", &chart, "--with-subcharts"]);
    assert!(
        stderr(&lint).contains("note: ignored --with-subcharts: they are about subcharts"),
        "{}",
        stderr(&lint)
    );
    let render = meshchart_in(&scratch, &["render", "web", &chart, "--skip-crds"]);
    assert_eq!(render.status.code(), Some(0), "{}", stderr(&render));
    assert!(
        stderr(&render).contains("note: ignored --skip-crds"),
        "{}",
        stderr(&render)
    );
}

/// `--show-only` patterns of every kind Go's `filepath.Match` reads, and some it refuses.
const SHOW_ONLY_PATTERNS: &[&str] = &[
    "templates/[sc]*.yaml",
    "templates/[^s]*.yaml",
    "templates/[!s]*.yaml",
    "templates/[a-e]*",
    "templates/s?rvice.yaml",
    "templates/\\service.yaml",
    "templates[/]service.yaml",
    "*/configmap.yaml",
    "templates/[s-]ervice.yaml",
    "templates/[]]x",
    "templates/[",
];

/// The templates `--show-only PATTERN` selects, by their `# Source:` lines (none when refused).
fn shown(out: &Output) -> Vec<String> {
    let mut shown = sources(out);
    shown.sort();
    shown
}

#[test]
fn show_only_patterns_select_what_helms_filepath_match_selects() {
    let Some(helm) =
        support::cli::helm_or_skip("show_only_patterns_select_what_helms_filepath_match_selects")
    else {
        return;
    };
    // Templates without template syntax read the same in Jinja and in Go's templates.
    let dir = scratch_dir("show-only-vs-helm").join("plain");
    for (path, text) in [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: plain\nversion: 0.1.0\n",
        ),
        ("values.yaml", ""),
        (
            "templates/service.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
        ),
        (
            "templates/configmap.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        ),
        (
            "templates/deploy.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n",
        ),
    ] {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let chart = dir.to_string_lossy().into_owned();
    for pattern in SHOW_ONLY_PATTERNS {
        let ours = support::cli::meshchart(&["render", "x", &chart, "-s", pattern]);
        let theirs =
            run(std::process::Command::new(&helm).args(["template", "x", &chart, "-s", pattern]));
        assert_eq!(shown(&ours), shown(&theirs), "--show-only {pattern}");
        assert_eq!(
            ours.status.success(),
            theirs.status.success(),
            "--show-only {pattern}: {}",
            stderr(&ours)
        );
    }
}
