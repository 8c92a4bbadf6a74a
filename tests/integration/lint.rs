//! `meshchart lint` as a user runs it: what it reports, and its exit code.

use crate::support;

use std::path::Path;
use support::cli::{legacy_command, meshchart, run, scratch_dir};

/// Runs `meshchart lint ARGS` at the golden instant (when the pinned `tests/certs` issuer is
/// valid); returns (exit code, stdout).
fn lint_with(args: &[&str]) -> (i32, String) {
    let mut full = vec!["lint"];
    full.extend(args);
    let out = run(legacy_command(&full).env("SOURCE_DATE_EPOCH", "1700000000"));
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Lints the lint-demo chart with extra flags; returns (exit code, stdout).
fn lint(extra: &[&str]) -> (i32, String) {
    let mut args = vec!["--chart", "tests/fixtures/lint-demo"];
    args.extend(extra);
    lint_with(&args)
}

#[test]
fn a_clean_chart_passes_with_exit_0() {
    let (code, out) = lint(&[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "==> Linting tests/fixtures/lint-demo\n\n1 chart(s) linted, 0 chart(s) failed\n"
    );
}

#[test]
fn a_misspelt_key_in_a_values_file_is_a_warning_suggesting_the_right_one() {
    let (code, out) = lint(&["-f", "tests/fixtures/lint-values/misspelt.yaml"]);
    assert_eq!(
        code, 0,
        "maps are open unless the schema closes them:\n{out}"
    );
    assert!(
        out.contains("[WARNING] tests/fixtures/lint-values/misspelt.yaml:2: unknown key proxy.awiat: the chart's defaults do not have it (did you mean proxy.await?)\n"),
        "{out}"
    );
    assert!(
        out.ends_with("1 chart(s) linted, 0 chart(s) failed\n"),
        "{out}"
    );
}

#[test]
fn strict_makes_an_unknown_key_fail() {
    let (code, out) = lint(&["--strict", "-f", "tests/fixtures/lint-values/misspelt.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.ends_with("1 chart(s) linted, 1 chart(s) failed\n"),
        "{out}"
    );
}

#[test]
fn a_misspelt_key_in_a_set_flag_names_the_flag() {
    let (code, out) = lint(&["--set", "replicaz=2"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[WARNING] --set replicaz=2: unknown key replicaz: the chart's defaults do not have it (did you mean replicas?)"),
        "{out}"
    );
}

/// A chart author's chart in a scratch folder: `files` over a Chart.yaml.
fn author_chart(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch_dir(name);
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    for (path, text) in files {
        std::fs::write(dir.join(path), text).unwrap();
    }
    dir
}

fn lint_chart(dir: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["lint", dir.to_str().unwrap()];
    args.extend(extra);
    let out = meshchart(&args);
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

const WEB_TEMPLATE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  cpu: {{ Values.resources.limits.cpu | default(\"1\") | quote }}\n";

#[test]
fn a_key_beside_a_non_empty_default_map_is_only_a_warning() {
    let dir = author_chart(
        "lint-open-map",
        &[
            ("values.yaml", "resources:\n  limits:\n    memory: 128Mi\n"),
            ("templates/cm.yaml", WEB_TEMPLATE),
        ],
    );
    let (code, out) = lint_chart(&dir, &["--set", "resources.limits.cpu=500m"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[WARNING] --set resources.limits.cpu=500m: unknown key resources.limits.cpu: the chart's defaults do not have it (the chart has memory)\n"),
        "{out}"
    );
}

#[test]
fn an_unknown_key_where_the_schema_closes_the_map_is_an_error() {
    let dir = author_chart(
        "lint-closed-map",
        &[
            ("values.yaml", "resources:\n  limits:\n    memory: 128Mi\n"),
            (
                "values.schema.json",
                r#"{"properties": {"resources": {"properties": {"limits": {"additionalProperties": false, "properties": {"memory": {}}}}}}}"#,
            ),
            ("templates/cm.yaml", WEB_TEMPLATE),
        ],
    );
    let (code, out) = lint_chart(&dir, &["--set", "resources.limits.cpu=500m"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[ERROR] --set resources.limits.cpu=500m: unknown key resources.limits.cpu: the schema allows no other key there"), "{out}");
}

#[test]
fn a_required_value_left_unset_is_an_info_as_in_helm_lint_and_an_error_with_strict() {
    let dir = author_chart(
        "lint-required",
        &[(
            "templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  host: {{ Values.host | required(\"host is required\") | quote }}\n",
        )],
    );
    let (code, out) = lint_chart(&dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[INFO] templates/: missing required value: host is required"),
        "{out}"
    );
    let (code, out) = lint_chart(&dir, &["--strict"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[ERROR] templates/: missing required value: host is required"),
        "{out}"
    );
}

#[test]
fn without_a_schema_a_value_of_another_type_than_its_default_is_a_warning() {
    let dir = author_chart(
        "lint-types",
        &[
            (
                "values.yaml",
                "replicaCount: 1\nautoscaling:\n  enabled: false\n",
            ),
            (
                "values-prod.yaml",
                "replicaCount: three\nautoscaling:\n  enabled: \"false\"\n",
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
            ),
        ],
    );
    let file = dir.join("values-prod.yaml");
    let (code, out) = lint_chart(&dir, &["-f", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("autoscaling.enabled is a string (\"false\"), but the chart's default is a boolean (false)"), "{out}");
    assert!(
        out.contains(
            "replicaCount is a string (\"three\"), but the chart's default is a number (1)"
        ),
        "{out}"
    );
}

#[test]
fn keys_the_schema_declares_are_known_without_a_default() {
    let (code, out) = lint(&["--set", "proxy.isGateway=true"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn keys_under_an_open_map_are_not_unknown() {
    let (code, out) = lint(&["--set", "podAnnotations.team=mesh"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn the_schema_rejects_a_string_for_a_boolean_naming_the_key_path() {
    let (code, out) = lint(&["--set-string", "proxy.await=yes"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[ERROR] values: proxy.await: \"yes\" is not of type \"boolean\" (from --set-string proxy.await=yes)"),
        "{out}"
    );
}

#[test]
fn a_schema_violation_names_the_file_and_line_the_value_came_from() {
    let (code, out) = lint(&["-f", "tests/fixtures/lint-values/wrong-type.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("proxy.await: \"yes\" is not of type \"boolean\" (from tests/fixtures/lint-values/wrong-type.yaml:2)"),
        "{out}"
    );
}

#[test]
fn the_schema_checks_enums_and_minimums() {
    let (code, out) = lint(&["--set", "proxy.defaultInboundPolicy=allow,replicas=0"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("proxy.defaultInboundPolicy: \"allow\" is not one of"),
        "{out}"
    );
    assert!(
        out.contains("replicas: 0 is less than the minimum of 1"),
        "{out}"
    );
}

#[test]
fn yaml_1_1_booleans_are_warnings_that_do_not_fail_the_lint() {
    let (code, out) = lint(&["-f", "tests/fixtures/lint-values/yaml11.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[WARNING] tests/fixtures/lint-values/yaml11.yaml:2: proxy.await: yes is read as the boolean true (YAML 1.1)"),
        "{out}"
    );
}

#[test]
fn a_template_that_fails_to_render_is_an_error() {
    let (code, out) = lint(&["--set", "fail=true"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[ERROR] templates/: ") && out.contains("asked to fail"),
        "{out}"
    );
}

#[test]
fn a_bad_values_file_is_an_error_naming_its_line() {
    let dir = scratch_dir("bad-yaml");
    let file = dir.join("bad.yaml");
    std::fs::write(&file, "proxy:\n  await: [unclosed\n").unwrap();
    let (code, out) = lint(&["-f", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("values file {}, line ", file.display())),
        "{out}"
    );
}

#[test]
fn an_invalid_chart_yaml_is_an_error_naming_the_field() {
    let dir = scratch_dir("lint-bad-chart");
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: x\nversion: banana\n",
    )
    .unwrap();
    let out = meshchart(&["lint", "--chart", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("[ERROR] Chart.yaml: ") && stdout.contains("Chart.yaml: version:"),
        "{stdout}"
    );
}

#[test]
fn a_document_without_kind_and_a_bad_name_are_reported() {
    let dir = scratch_dir("docs");
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: d\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("templates/a.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n---\nfoo: bar\n",
    )
    .unwrap();
    std::fs::write(dir.join("templates/noext"), "").unwrap();
    let out = meshchart(&["lint", "--chart", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "[WARNING] d/templates/a.yaml: ConfigMap \"Bad_Name\": metadata.name must be"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[ERROR] d/templates/a.yaml: document has no kind"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[ERROR] templates/noext: file extension must be"),
        "{stdout}"
    );
}

#[test]
fn an_archive_lints_like_its_folder() {
    let out_dir = scratch_dir("archive");
    let packaged = meshchart(&[
        "package",
        "--chart",
        "tests/fixtures/lint-demo",
        "-d",
        out_dir.to_str().unwrap(),
    ]);
    assert!(packaged.status.success());
    let archive = out_dir.join("lint-demo-1.0.0.tgz");
    let out = meshchart(&[
        "lint",
        "--chart",
        archive.to_str().unwrap(),
        "--set-string",
        "proxy.await=yes",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("proxy.await: \"yes\" is not of type \"boolean\""),
        "{stdout}"
    );
    assert!(Path::new(&archive).is_file());
}

#[test]
fn upstream_values_yaml_lints_without_errors() {
    // Upstream's file as released in the repository keeps the placeholder
    // `linkerdVersion: linkerdVersionValue`: with the line named, that is only an image tag.
    let (code, out) = lint_with(&[
        "--linkerd",
        "edge-21.4.4",
        "-f",
        "tests/reference/upstream-values/values.yaml",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("[ERROR]"), "{out}");
    assert!(
        out.contains("[WARNING] values: linkerdVersion linkerdVersionValue is not a release"),
        "{out}"
    );
}

#[test]
fn a_linkerd_version_meshchart_does_not_embed_is_an_error_without_linkerd() {
    let out = meshchart(&["lint", "--set", "linkerdVersion=edge-99.1.1"]);
    let (code, out) = (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[ERROR] values: linkerdVersion edge-99.1.1 is not a Linkerd release"),
        "{out}"
    );
}

/// Every release of the table is served, so a linkerdVersion of any era lints that release's
/// own chart.
#[test]
fn a_linkerd_version_of_any_era_lints_that_releases_chart() {
    for release in ["stable-2.14.4", "edge-25.3.1", "edge-25.9.4"] {
        let out = meshchart(&["lint", "--set", &format!("linkerdVersion={release}")]);
        let (code, out) = (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        );
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains(&format!(
                "==> Linting embedded chart linkerd-control-plane of Linkerd {release}"
            )),
            "{out}"
        );
        assert!(!out.contains("[ERROR]"), "{out}");
    }
}

#[test]
fn upstream_values_ha_yaml_lints_without_errors() {
    let (code, out) = lint_with(&["-f", "tests/reference/upstream-values/values-ha.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("[ERROR]"), "{out}");
}

#[test]
fn any_node_selector_label_is_known() {
    let (code, out) = lint_with(&["--set", "nodeSelector.disktype=ssd"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn stage_is_a_known_key() {
    let (code, out) = lint_with(&[
        "--set",
        "cliVersion=linkerd/cli x",
        "--set",
        "stage=control-plane",
    ]);
    assert_eq!(code, 0, "{out}");
}

/// Lints the embedded control-plane chart with the pinned certificates and `extra` flags;
/// returns (exit code, stdout).
fn lint_control_plane(extra: &[&str]) -> (i32, String) {
    let mut args = vec!["--certs-dir", "tests/certs"];
    args.extend(extra);
    lint_with(&args)
}

#[test]
fn an_await_timeout_for_a_proxy_without_the_flag_is_a_warning() {
    let (code, out) = lint_control_plane(&["--set", "proxy.awaitTimeout=2m"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[WARNING] values: proxy.awaitTimeout adds --timeout to the linkerd-await hook, but proxy edge-21.4.4 ships a linkerd-await without --timeout (the releases from edge-22.2.1 and stable-2.11.2 on do)"),
        "{out}"
    );
}

#[test]
fn an_await_timeout_for_a_proxy_with_the_flag_is_not_a_warning() {
    let (code, out) = lint_control_plane(&[
        "--linkerd",
        "edge-21.4.4",
        "--set",
        "proxy.awaitTimeout=2m",
        "--set",
        "linkerdVersion=stable-2.12.0",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("awaitTimeout"), "{out}");
}

#[test]
fn a_deny_policy_for_a_proxy_that_ignores_it_is_a_warning() {
    let (code, out) = lint_control_plane(&[
        "--set",
        "proxy.defaultInboundPolicy=deny",
        "--set",
        "proxy.image.version=edge-21.8.3",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[WARNING] values: proxy.defaultInboundPolicy sets LINKERD2_PROXY_INBOUND_DEFAULT_POLICY, but proxy edge-21.8.3 does not read that variable"),
        "{out}"
    );
}

/// Lints the statefulset-peers chart (a StatefulSet behind a headless Service that publishes
/// unready addresses); returns (exit code, stdout).
fn lint_peers(extra: &[&str]) -> (i32, String) {
    let mut args = vec!["--chart", "tests/fixtures/statefulset-peers"];
    args.extend(extra);
    lint_with(&args)
}

#[test]
fn a_workload_hitting_13247_on_the_release_that_meshes_it_is_warned_about() {
    let (code, out) = lint_peers(&["--meshed-by", "edge-24.10.2"]);
    assert_eq!(code, 0, "a warning does not fail the lint: {out}");
    assert!(
        out.contains(
            "[WARNING] statefulset-peers/templates/statefulset.yaml: StatefulSet release-name-db: \
             its pods are selected by headless Service release-name-peers with \
             publishNotReadyAddresses: true, and once meshed by Linkerd edge-24.10.2 direct \
             pod-to-pod traffic to pods that are not ready yet is refused \
             (linkerd/linkerd2#13247); fixed in edge-25.1.1"
        ),
        "{out}"
    );
}

#[test]
fn a_workload_hitting_13247_on_a_stable_release_is_told_no_stable_release_has_the_fix() {
    let (code, out) = lint_peers(&["--meshed-by", "stable-2.14.10"]);
    assert_eq!(code, 0, "a warning does not fail the lint: {out}");
    assert!(
        out.contains(
            "once meshed by Linkerd stable-2.14.10 direct pod-to-pod traffic to pods that are \
             not ready yet is refused (linkerd/linkerd2#13247); no stable release has the fix \
             (edge-25.1.1 and later edge releases do)"
        ),
        "{out}"
    );
    // The backport that brought the fault came with stable-2.14.2.
    let (_, before) = lint_peers(&["--meshed-by", "stable-2.14.1"]);
    assert!(!before.contains("13247"), "{before}");
}

#[test]
fn the_same_chart_meshed_by_a_release_with_the_fix_gets_no_warning() {
    for extra in [&["--meshed-by", "edge-26.8.3"][..], &[]] {
        let (code, out) = lint_peers(extra);
        assert_eq!(code, 0, "{out}");
        assert!(!out.contains("13247"), "{extra:?}: {out}");
    }
}

#[test]
fn a_meshed_by_that_is_no_release_is_an_error_naming_the_flag() {
    let (code, out) = lint_peers(&["--meshed-by", "latest"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[ERROR] flags: --meshed-by \"latest\" is not a Linkerd release"),
        "{out}"
    );
}

/// The body lines of the pinned issuer key (`tests/certs/issuer.key`): none may be printed.
fn issuer_key_lines() -> Vec<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/certs/issuer.key"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::to_owned)
        .collect()
}

fn lint_on_the_default_line(args: &[&str]) -> String {
    let mut full = vec!["lint"];
    full.extend(args);
    let out = run(support::cli::command(&full).env("SOURCE_DATE_EPOCH", "1700000000"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_private_key_given_where_an_enum_belongs_is_reported_masked() {
    let out = lint_on_the_default_line(&[
        "--set-file",
        "proxyInit.iptablesMode=tests/certs/issuer.key",
    ]);
    assert!(out.contains("for proxyInit.iptablesMode"), "{out}");
    assert!(out.contains("<masked private key sha256:"), "{out}");
    for line in issuer_key_lines() {
        assert!(
            !out.contains(&line),
            "the key's line {line} is printed:\n{out}"
        );
    }
}

#[test]
fn a_private_key_given_where_a_duration_belongs_is_reported_masked() {
    let out = lint_on_the_default_line(&[
        "--set-file",
        "identity.issuer.issuanceLifetime=tests/certs/issuer.key",
    ]);
    assert!(out.contains("[ERROR]"), "{out}");
    for line in issuer_key_lines() {
        assert!(
            !out.contains(&line),
            "the key's line {line} is printed:\n{out}"
        );
    }
}
