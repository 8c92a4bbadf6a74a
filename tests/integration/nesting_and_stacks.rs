//! How deep values may nest, and what the threads that walk them need: values read from YAML or
//! JSON nest as deep as kubectl reads them (10,000 levels; Go's `encoding/json` and go-yaml stop
//! there), past that a clear error; and the threads' stacks are small enough that `--jobs 7`
//! and a plain render start under an address-space limit (`ulimit -v`).

use crate::support;

use std::os::unix::process::CommandExt as _;
use std::process::Output;
use support::cli::{command, run, scratch_dir};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A values file whose `extra` holds lists nested `depth` levels deep in block style, on one
/// line (`- - - x`), so the file stays small.
fn deep_values(depth: usize) -> String {
    format!("extra:\n  {}x\n", "- ".repeat(depth))
}

fn render_with(values: &str, name: &str) -> Output {
    let dir = scratch_dir(name);
    let file = dir.join("values.yaml");
    std::fs::write(&file, values).unwrap();
    run(command(&["render", "-f", file.to_str().unwrap()]).env("SOURCE_DATE_EPOCH", "1700000000"))
}

#[test]
fn values_nested_nearly_10000_levels_deep_are_read() {
    let out = render_with(&deep_values(9_990), "nesting-deep-values");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn values_nested_past_10000_levels_are_refused_by_file_and_line() {
    let out = render_with(&deep_values(10_010), "nesting-too-deep-values");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("values.yaml"), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(
        stderr.contains("nesting deeper than 10000 levels"),
        "{stderr}"
    );
}

/// A values file whose `extra` holds lists nested `depth` levels deep in flow style.
fn deep_flow_values(depth: usize) -> String {
    format!("extra: {}x{}\n", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn values_nested_nearly_10000_levels_deep_in_flow_style_are_read() {
    let out = render_with(&deep_flow_values(9_990), "nesting-flow");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn values_nested_past_10000_levels_in_flow_style_are_refused_by_file_and_line() {
    let out = render_with(&deep_flow_values(10_010), "nesting-flow-too-deep");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("values.yaml"), "{stderr}");
    assert!(stderr.contains("line 1"), "{stderr}");
    assert!(
        stderr.contains("nesting deeper than 10000 levels"),
        "{stderr}"
    );
}

#[test]
fn many_flow_structures_nested_thousands_deep_are_refused_by_position_not_read_for_minutes() {
    // Each part alone reads; twenty of them would keep libyaml's scanner busy for a minute.
    let part = format!("{}1{}", "[".repeat(9_000), "]".repeat(9_000));
    let values = format!("extra: [{}]\n", vec![part; 20].join(", "));
    let out = render_with(&values, "nesting-flow-many");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("values.yaml, line 1, column "), "{stderr}");
    assert!(
        stderr.contains("too much flow-style text nested past 255 levels"),
        "{stderr}"
    );
}

#[test]
fn values_explain_of_a_file_nested_9000_levels_deep_finishes_in_little_memory() {
    // Each node's line was recorded with its whole path: memory in the square of the depth
    // (15 s and gigabytes for this file). Past 100 levels values get no line.
    let dir = scratch_dir("nesting-explain");
    let file = dir.join("values.yaml");
    std::fs::write(&file, deep_values(9_000)).unwrap();
    let out = under_address_space_limit(
        &["values", "--explain", "-f", file.to_str().unwrap()],
        512 << 20,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("extra:"),
        "{}",
        text(&out.stdout)
    );
}

/// A ConfigMap whose data nests JSON arrays `depth` levels deep.
fn deep_json_config_map(depth: usize) -> String {
    format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"deep\"}}, \
         \"data\": {{\"a\": {}1{}}}}}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

fn inject_json(json: &str, name: &str) -> Output {
    let dir = scratch_dir(name);
    let file = dir.join("deep.json");
    std::fs::write(&file, json).unwrap();
    run(&mut command(&[
        "inject",
        file.to_str().unwrap(),
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]))
}

#[test]
fn inject_reads_json_nested_5000_levels_deep() {
    let json = deep_json_config_map(5_000);
    let out = inject_json(&json, "nesting-json");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        json,
        "not a workload: written back as read"
    );
}

#[test]
fn inject_refuses_json_nested_past_10000_levels_by_line_and_column() {
    let out = inject_json(&deep_json_config_map(10_010), "nesting-json-too-deep");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("deep.json:1:10085: invalid JSON: nesting deeper than 10000 levels"),
        "{stderr}"
    );
}

#[test]
fn inject_reads_flow_style_yaml_nested_9990_levels_deep_and_keeps_it() {
    let dir = scratch_dir("nesting-flow-inject");
    let file = dir.join("deep.yaml");
    let deep = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: deep}}\ndata:\n  a: {}1{}\n",
        "[".repeat(9_990),
        "]".repeat(9_990)
    );
    std::fs::write(&file, &deep).unwrap();
    let out = run(&mut command(&[
        "inject",
        file.to_str().unwrap(),
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), deep);
}

#[test]
fn set_json_reads_1000_levels() {
    let json = format!("extra={}1{}", "[".repeat(1_000), "]".repeat(1_000));
    let out = run(command(&["values", "--set-json", &json]).env("SOURCE_DATE_EPOCH", "1700000000"));
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `meshchart ARGS` with its address space limited to `bytes` (`ulimit -v`).
fn under_address_space_limit(args: &[&str], bytes: u64) -> Output {
    let mut command = command(args);
    command.env("SOURCE_DATE_EPOCH", "1700000000");
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    run(&mut command)
}

#[test]
fn seven_fleet_jobs_start_under_a_4_gib_address_space_limit() {
    let dir = scratch_dir("stack-fleet");
    let fleet = dir.join("fleet");
    std::fs::create_dir_all(&fleet).unwrap();
    for i in 0..14 {
        std::fs::write(
            fleet.join(format!("c{i}.yaml")),
            "controllerLogLevel: debug\n",
        )
        .unwrap();
    }
    let out_dir = dir.join("out");
    // The clusters' generated material is kept (a fleet refuses material kept nowhere).
    let certs = dir.join("certs");
    let out = under_address_space_limit(
        &[
            "render",
            "--fleet",
            fleet.to_str().unwrap(),
            "--output-dir",
            out_dir.to_str().unwrap(),
            "--certs-dir",
            certs.to_str().unwrap(),
            "--jobs",
            "7",
        ],
        4 << 30,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_dir(&out_dir).unwrap().count() >= 14);
}

#[test]
fn a_plain_render_runs_under_a_512_mib_address_space_limit() {
    let out = under_address_space_limit(&["render"], 512 << 20);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("kind: Deployment"));
}

#[test]
fn an_expression_of_200000_nots_is_refused_naming_the_template_line_and_cause() {
    let dir = scratch_dir("nesting-nots");
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: nots\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("templates/cm.yaml"),
        format!("a: 1\nb: {{{{ {}true }}}}\n", "not ".repeat(200_000)),
    )
    .unwrap();
    let out = run(&mut command(&["render", "--chart", dir.to_str().unwrap()]));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("nots/templates/cm.yaml:2: expression nested too deeply"),
        "{stderr}"
    );
}
