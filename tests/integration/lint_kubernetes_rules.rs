//! What `helm lint` reports of rendered documents, `meshchart lint` reports too (#37): API
//! versions the `--kube-version` deprecated or no longer serves, and objects without a
//! `metadata.name`; and a key the chart's own values.yaml gives twice, which Helm passes
//! silently, is named with its file and lines.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use support::cli::{meshchart, scratch_dir};

/// A chart folder named `name` whose templates are `templates` (`(file, text)`), with
/// `values` as its values.yaml.
fn chart(name: &str, values: &str, templates: &[(&str, &str)]) -> PathBuf {
    let dir = scratch_dir(name).join("app");
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: app\nversion: 0.1.0\nicon: https://example.com/i.png\n",
    )
    .unwrap();
    std::fs::write(dir.join("values.yaml"), values).unwrap();
    for (file, text) in templates {
        std::fs::write(dir.join("templates").join(file), text).unwrap();
    }
    dir
}

fn object(api_version: &str, kind: &str) -> String {
    format!("apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: x\n")
}

fn lint(chart: &Path, extra: &[&str]) -> Output {
    let path = chart.to_string_lossy();
    let mut args = vec!["lint", path.as_ref()];
    args.extend(extra);
    meshchart(&args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn lint_warns_of_an_api_the_kube_version_deprecated_in_helms_words() {
    let chart = chart(
        "lint-api-deprecated",
        "",
        &[("cronjob.yaml", &object("batch/v1beta1", "CronJob"))],
    );
    let out = lint(&chart, &["--kube-version", "1.24.0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "[WARNING] app/templates/cronjob.yaml: batch/v1beta1 CronJob is deprecated in v1.21+, \
             unavailable in v1.25+; use batch/v1 CronJob\n"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn lint_says_when_the_kube_version_no_longer_serves_an_api() {
    let chart = chart(
        "lint-api-removed",
        "",
        &[
            ("pdb.yaml", &object("policy/v1beta1", "PodDisruptionBudget")),
            (
                "hpa.yaml",
                &object("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
            ),
            (
                "flow.yaml",
                &object("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema"),
            ),
        ],
    );
    let text = stdout(&lint(&chart, &["--kube-version", "1.29.0"]));
    for expected in [
        "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget (--kube-version v1.29.0 no longer serves it)",
        "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler (--kube-version v1.29.0 no longer serves it)",
        "flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema is deprecated in v1.26+, unavailable in v1.29+",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
}

#[test]
fn lint_says_nothing_of_an_api_before_the_kube_version_deprecates_it() {
    let chart = chart(
        "lint-api-not-yet",
        "",
        &[("pdb.yaml", &object("policy/v1beta1", "PodDisruptionBudget"))],
    );
    let text = stdout(&lint(&chart, &["--kube-version", "1.20.0"]));
    assert!(!text.contains("deprecated"), "{text}");
}

#[test]
fn lint_strict_fails_on_a_removed_api() {
    let chart = chart(
        "lint-api-strict",
        "",
        &[("cronjob.yaml", &object("batch/v1beta1", "CronJob"))],
    );
    let out = lint(&chart, &["--kube-version", "1.30.0", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn lint_warns_of_an_object_without_metadata_name() {
    let chart = chart(
        "lint-no-name",
        "",
        &[(
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n",
        )],
    );
    let text = stdout(&lint(&chart, &[]));
    assert!(
        text.contains("[WARNING] app/templates/cm.yaml: ConfigMap has no metadata.name"),
        "{text}"
    );
}

#[test]
fn lint_takes_generate_name_in_place_of_a_name() {
    let chart = chart(
        "lint-generate-name",
        "",
        &[(
            "job.yaml",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n",
        )],
    );
    let text = stdout(&lint(&chart, &[]));
    assert!(!text.contains("metadata.name"), "{text}");
}

const DUPLICATE_VALUES: &str = "replicas: 1\nimage:\n  tag: a\n  tag: b\n";
const USES_REPLICAS: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  tag: \"{{ Values.image.tag }}\"\n";

#[test]
fn lint_fails_on_a_key_the_charts_values_give_twice_naming_file_and_lines() {
    let chart = chart(
        "lint-duplicate-default",
        DUPLICATE_VALUES,
        &[("cm.yaml", USES_REPLICAS)],
    );
    let out = lint(&chart, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(
            "[ERROR] values.yaml:4: the key \"tag\" under image is given twice, on line 3 and on \
             line 4; the last value counts, as in Helm"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn render_keeps_helms_last_value_of_a_key_the_charts_values_give_twice_and_warns() {
    let chart = chart(
        "render-duplicate-default",
        DUPLICATE_VALUES,
        &[("cm.yaml", USES_REPLICAS)],
    );
    let out = meshchart(&["render", &chart.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("tag: \"b\""), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("warning: values.yaml:4: the key \"tag\" under image is given twice"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_values_file_giving_a_key_twice_is_an_error_naming_file_and_lines() {
    let chart = chart("render-duplicate-user", "", &[("cm.yaml", USES_REPLICAS)]);
    let values = chart.parent().unwrap().join("mine.yaml");
    std::fs::write(&values, "image:\n  tag: a\n  tag: b\n").unwrap();
    let out = meshchart(&[
        "render",
        &chart.to_string_lossy(),
        "-f",
        &values.to_string_lossy(),
    ]);
    support::cli::assert_refused(
        &out,
        1,
        &[
            "mine.yaml, line 3",
            "\"tag\" is given twice",
            "on line 2 and on line 3",
        ],
    );
}
