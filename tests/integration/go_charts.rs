//! Charts written in Go templates, as Helm users write them, render through meshchart exactly as
//! Helm 3.17.1's `helm template` rendered them (#36): the recorded outputs live beside the
//! charts in `tests/reference/go-charts/` (see its README).

use crate::support::cli::meshchart;

const CHARTS: &str = "tests/reference/go-charts";

/// `meshchart render rel CHART -n ns FLAGS`'s standard output, failing on a non-zero exit.
fn rendered(chart: &str, flags: &[&str]) -> String {
    let path = format!("{CHARTS}/{chart}");
    let mut args = vec!["render", "rel", path.as_str(), "-n", "ns"];
    args.extend_from_slice(flags);
    let out = meshchart(&args);
    assert!(
        out.status.success(),
        "render {chart} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn recorded(path: &str) -> String {
    std::fs::read_to_string(format!("{CHARTS}/{path}")).expect("recorded helm output")
}

#[test]
fn helm_create_chart_renders_as_helm_template_does() {
    assert_eq!(rendered("demo", &[]), recorded("demo/helm-template.yaml"));
}

#[test]
fn helm_create_chart_with_ingress_and_autoscaling_renders_as_helm_template_does() {
    let flags = [
        "--set",
        "ingress.enabled=true,autoscaling.enabled=true,serviceAccount.create=false",
    ];
    assert_eq!(
        rendered("demo", &flags),
        recorded("demo/helm-template-ingress.yaml")
    );
}

#[test]
fn aliased_subcharts_library_defines_and_globals_render_as_helm_template_does() {
    assert_eq!(
        rendered("parent", &[]),
        recorded("parent/helm-template.yaml")
    );
}

#[test]
fn a_subchart_enabled_by_its_condition_and_a_global_set_by_the_user_render_as_helm_does() {
    let flags = ["--set", "backend.enabled=true", "--set", "global.team=ops"];
    assert_eq!(
        rendered("parent", &flags),
        recorded("parent/helm-template-backend.yaml")
    );
}

#[test]
fn a_missing_required_value_fails_with_helms_execution_error_text() {
    let out = meshchart(&["render", "rel", &format!("{CHARTS}/required"), "-n", "ns"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing partial is printed");
    let helm = recorded("required/helm-error.txt");
    let helm_message = helm
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Error: "))
        .expect("Helm's error line");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(helm_message),
        "{stderr} lacks Helm's {helm_message}"
    );
}

#[test]
fn clock_cipher_and_regexp_functions_and_helms_framing_render_as_helm_template_does() {
    assert_eq!(
        rendered("functions", &[]),
        recorded("functions/helm-template.yaml")
    );
}

#[test]
fn subchart_folders_and_archives_keep_the_files_helm_keeps() {
    assert_eq!(
        rendered("helmignore", &[]),
        recorded("helmignore/helm-template.yaml")
    );
}

#[test]
fn import_values_in_both_forms_fill_the_parents_values_below_its_own_as_in_helm() {
    assert_eq!(
        rendered("imports", &[]),
        recorded("imports/helm-template.yaml")
    );
}

#[test]
fn imported_values_are_taken_from_defaults_and_the_users_values_still_win() {
    let flags = [
        "--set",
        "host=user.set",
        "--set",
        "exports.connection.host=x",
        "--set",
        "db.exports.connection.user=changed",
    ];
    assert_eq!(
        rendered("imports", &flags),
        recorded("imports/helm-template-set.yaml")
    );
}

#[test]
fn a_key_the_templates_read_is_not_called_unknown_though_values_yaml_lacks_it() {
    let args = [
        "render",
        "rel",
        "tests/reference/go-charts/read-keys",
        "-n",
        "ns",
        "--set",
        "heartbeatSchedule=5 6 * * *",
    ];
    let out = meshchart(&args);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("unknown key"), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        recorded("read-keys/helm-template-schedule.yaml")
    );
}

#[test]
fn a_key_no_template_reads_is_still_called_unknown() {
    let args = [
        "render",
        "rel",
        "tests/reference/go-charts/read-keys",
        "-n",
        "ns",
        "--set",
        "schedule.enabld=false",
    ];
    let out = meshchart(&args);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: unknown key schedule.enabld"),
        "{stderr}"
    );
}
