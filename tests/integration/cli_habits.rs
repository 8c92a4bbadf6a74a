//! Small habits of the command line (#37): what `--output-dir` lists, an empty golden case,
//! the same flags on `values` and `schema` as on `render`, and the warning of a render that
//! makes a trust root nothing keeps.

use crate::support;

use std::process::Output;
use support::cli::{meshchart, run, scratch_dir};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn output_dir_lists_each_file_once_and_what_a_rerun_left_unchanged() {
    let dir = scratch_dir("listing-unchanged");
    let out_dir = dir.join("out");
    let out_dir = out_dir.to_str().unwrap();
    let render = || {
        meshchart(&[
            "render",
            "tests/fixtures/output-dir",
            "--output-dir",
            out_dir,
        ])
    };
    let first = render();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(
        stdout(&first),
        format!(
            "wrote {out_dir}/output-dir/templates/configmaps.yaml\n\
             wrote {out_dir}/output-dir/templates/service.yaml\n"
        )
    );
    let again = render();
    assert_eq!(
        stdout(&again),
        format!(
            "unchanged {out_dir}/output-dir/templates/configmaps.yaml\n\
             unchanged {out_dir}/output-dir/templates/service.yaml\n"
        )
    );
}

#[test]
fn an_empty_golden_case_folder_is_an_error_naming_it() {
    let dir = scratch_dir("golden-empty-case");
    let cases = dir.join("cases");
    std::fs::create_dir_all(cases.join("defaults")).unwrap();
    std::fs::write(cases.join("defaults/args"), "").unwrap();
    std::fs::create_dir_all(cases.join("forgotten")).unwrap();
    let out = meshchart(&[
        "golden",
        "tests/fixtures/all-functions",
        "--cases",
        cases.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "golden case {} holds none of args",
            cases.join("forgotten").display()
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn values_takes_renders_ha_flag() {
    let value = |args: &[&str]| {
        let mut all = vec!["values", "--linkerd", "edge-26.8.3"];
        all.extend(args);
        let out = meshchart(&all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .find(|l| l.starts_with("controllerReplicas:"))
            .map(str::to_owned)
    };
    assert_eq!(value(&[]).as_deref(), Some("controllerReplicas: 1"));
    assert_eq!(value(&["--ha"]).as_deref(), Some("controllerReplicas: 3"));
    assert_eq!(
        value(&["--ha", "--set", "controllerReplicas=5"]).as_deref(),
        Some("controllerReplicas: 5")
    );
}

#[test]
fn values_takes_renders_namespace_flag_under_the_users_values() {
    let namespace = |args: &[&str]| {
        let mut all = vec!["values", "--linkerd", "edge-21.4.4"];
        all.extend(args);
        let out = meshchart(&all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .find(|l| l.starts_with("namespace:"))
            .map(str::to_owned)
    };
    assert_eq!(
        namespace(&["-n", "mesh"]).as_deref(),
        Some("namespace: mesh")
    );
    assert_eq!(
        namespace(&["-n", "mesh", "--set", "namespace=mine"]).as_deref(),
        Some("namespace: mine")
    );
}

#[test]
fn schema_takes_renders_linkerd_flag() {
    let out = meshchart(&["schema", "--linkerd", "edge-26.8.3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        schema["properties"]["controllerReplicas"].is_object(),
        "{schema}"
    );
}

#[test]
fn a_render_that_makes_a_trust_root_nothing_keeps_says_so_first() {
    let out = meshchart(&["render", "-n", "linkerd", "-s", "templates/identity.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = stderr(&out).lines().next().unwrap_or_default().to_owned();
    assert!(
        first.starts_with("warning: this render made a new identity trust root")
            && first.contains("--certs-dir"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_render_keeping_its_trust_root_in_certs_dir_gives_no_such_warning() {
    let dir = scratch_dir("kept-root");
    let certs = dir.join("certs");
    let mut command = support::cli::command(&[
        "render",
        "-n",
        "linkerd",
        "-s",
        "templates/identity.yaml",
        "--certs-dir",
        certs.to_str().unwrap(),
    ]);
    let out = run(&mut command);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("new identity trust root"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn lint_with_certs_dir_writes_nothing_there() {
    let dir = scratch_dir("lint-certs-dir");
    let certs = dir.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let out = meshchart(&[
        "lint",
        "--linkerd",
        "edge-26.8.3",
        "-n",
        "linkerd",
        "--certs-dir",
        certs.to_str().unwrap(),
    ]);
    let left: Vec<_> = std::fs::read_dir(&certs).unwrap().collect();
    assert!(left.is_empty(), "lint wrote {left:?}\n{}", stdout(&out));
}

#[test]
fn values_explain_names_an_embedded_charts_defaults_by_chart_and_release() {
    let out = meshchart(&[
        "values",
        "--explain",
        "--linkerd",
        "edge-24.10.2",
        "--ha",
        "--set",
        "proxy.await=false",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "clusterDomain: cluster.local  # default of linkerd-control-plane edge-24.10.2\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  await: false  # --set proxy.await=false\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "controllerReplicas: 3  # --ha (the HA values of linkerd-control-plane edge-24.10.2)\n"
        ),
        "{text}"
    );
    // No file of meshchart's own tree is cited.
    assert!(!text.contains("values.yaml"), "{text}");
    assert!(!text.contains("values-ha.yaml"), "{text}");
}

#[test]
fn golden_outside_meshcharts_source_says_what_to_name_instead_of_a_missing_path() {
    let elsewhere = scratch_dir("golden-elsewhere");
    let out =
        run(support::cli::command(&["golden", "--linkerd", "edge-26.8.3"]).current_dir(&elsewhere));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no golden cases to run"), "{err}");
    assert!(err.contains("`--cases DIR`"), "{err}");
    assert!(!err.contains("tests/golden"), "{err}");
}
