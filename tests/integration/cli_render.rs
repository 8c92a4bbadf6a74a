//! `meshchart render` as a user runs it: exit codes, stdout, --output-dir, determinism.

use crate::support;

use std::path::Path;
use std::process::Output;
use support::cli::{command, run, scratch_dir};

/// What a run printed, both streams, for messages that may land on either.
fn stdout_and_stderr(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn meshchart(args: &[&str]) -> Output {
    run(command(args).env("SOURCE_DATE_EPOCH", "1700000000"))
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .is_some_and(|n| n != meshchart::output::RECORD_NAME)
            {
                // The output door's record of what it wrote is bookkeeping, not output.
                found.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    found.sort();
    found
}

#[test]
fn invalid_yaml_output_names_the_template_file_and_line() {
    let out = meshchart(&["render", "--chart", &fixture("invalid-yaml")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "stdout must stay empty on error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid-yaml/templates/service.yaml:8"),
        "{stderr}"
    );
    assert!(
        stderr.contains("name: http: {{ Values.service.name }}"),
        "{stderr}"
    );
    assert!(
        stderr.contains("rendered line 8:     name: http: web"),
        "{stderr}"
    );
}

#[test]
fn output_dir_gets_one_file_per_template() {
    let dir = scratch_dir("render-outdir");
    let out = meshchart(&[
        "render",
        "--chart",
        &fixture("output-dir"),
        "--output-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        files_under(&dir),
        [
            "output-dir/templates/configmaps.yaml",
            "output-dir/templates/service.yaml"
        ]
    );
    let configmaps =
        std::fs::read_to_string(dir.join("output-dir/templates/configmaps.yaml")).unwrap();
    assert_eq!(
        configmaps
            .matches("# Source: output-dir/templates/configmaps.yaml")
            .count(),
        2
    );
    let listing = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        listing.matches("wrote ").count(),
        2,
        "one line per file (Helm prints one per document): {listing}"
    );
}

#[test]
fn a_failing_render_leaves_the_output_dir_untouched() {
    let dir = scratch_dir("outdir-fail");
    let out = meshchart(&[
        "render",
        "--chart",
        &fixture("output-dir"),
        "--set",
        "fail=true",
        "--output-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("asked to fail"));
    assert!(files_under(&dir).is_empty());
}

#[test]
fn render_output_is_byte_identical_across_twenty_runs() {
    let first = meshchart(&["render", "--chart", &fixture("output-dir")]);
    assert!(first.status.success());
    for _ in 0..19 {
        assert_eq!(
            meshchart(&["render", "--chart", &fixture("output-dir")]).stdout,
            first.stdout
        );
    }
}

#[test]
fn a_bad_set_expression_exits_1_with_nothing_on_stdout() {
    let out = meshchart(&[
        "render",
        "--chart",
        &fixture("output-dir"),
        "--set",
        "a=x,y",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("a=x,y"));
}

#[test]
fn an_unknown_flag_is_a_usage_error() {
    let out = meshchart(&["render", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_reader_that_stops_early_ends_the_render_quietly() {
    use std::io::BufRead;
    let mut child = command(&["render"])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut first_line).unwrap();
    // Closing our end is what `| head -1` does; the render is far larger than a pipe's buffer.
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(first_line, "---\n");
    assert!(output.status.success(), "{:?}\n{stderr}", output.status);
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn ha_applies_the_lines_own_overlay_under_the_users_values() {
    let render = |extra: &[&str]| {
        let mut args = vec![
            "render",
            "--linkerd",
            "edge-26.8.3",
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
        ];
        args.extend(extra);
        let out = meshchart(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let with_file = render(&[
        "-f",
        "values/edge-26.8.3/linkerd-control-plane/values-ha.yaml",
    ]);
    assert_eq!(
        render(&["--ha"]),
        with_file,
        "--ha is the overlay as a first -f file"
    );
    assert!(with_file.contains("replicas: 3"));
    // The user's values still win over the overlay.
    let two = render(&["--ha", "--set", "controllerReplicas=2"]);
    assert!(
        two.contains("replicas: 2") && !two.contains("replicas: 3"),
        "{two}"
    );
}

#[test]
fn ha_on_a_chart_without_an_overlay_is_an_error_naming_the_chart() {
    let out = meshchart(&["render", "--linkerd", "edge-26.8.3", "--crds", "--ha"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "--ha: embedded chart linkerd-crds of Linkerd edge-26.8.3 has no values-ha.yaml"
        ),
        "{stderr}"
    );
}

#[test]
fn a_render_a_day_later_gives_the_same_bytes() {
    let lines: [&[&str]; 3] = [
        &["--linkerd", "edge-21.4.4", "--kube-version", "1.24.0"],
        &["--linkerd", "edge-24.10.2"],
        &["--linkerd", "edge-26.8.3"],
    ];
    for line in lines {
        // An empty folder: the first render fills it, the later ones read it.
        let certs = scratch_dir(&format!("day-later-{}", line[1]));
        let certs = certs.to_str().unwrap();
        let mut args = vec!["render", "-n", "linkerd", "--certs-dir", certs];
        args.extend(line);
        let at = |epoch: u64| {
            let output = run(command(&args).env("SOURCE_DATE_EPOCH", epoch.to_string()));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{line:?}: {stderr}");
            output.stdout
        };
        let today = at(1_700_000_000);
        let tomorrow = at(1_700_000_000 + 86_400);
        let a_minute_later = at(1_700_000_000 + 86_400 + 60);
        assert!(
            today == tomorrow && tomorrow == a_minute_later,
            "{line:?}: the render moved with the clock"
        );
        assert!(String::from_utf8_lossy(&today).contains("heartbeatSchedule"));
    }
}

#[test]
fn a_values_url_is_refused_by_name_as_not_read() {
    for url in [
        "https://example.com/values.yaml",
        "http://example.com/v.yaml",
    ] {
        let out = meshchart(&["render", "-f", url]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "values file {url}: a URL; meshchart reads values files from disk only"
            )),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_given_heartbeat_schedule_is_rendered_as_given() {
    let output = meshchart(&[
        "render",
        "-n",
        "linkerd",
        "--certs-dir",
        "tests/certs",
        "--set",
        "heartbeatSchedule=7 3 * * 1",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(stdout.contains("schedule: \"7 3 * * 1\""), "{stdout}");
}

#[test]
fn values_from_dev_null_are_no_values_as_helm_reads_them() {
    let none = meshchart(&["values"]);
    let null = meshchart(&["values", "-f", "/dev/null", "-f", "/dev/null"]);
    assert!(
        null.status.success(),
        "{}",
        String::from_utf8_lossy(&null.stderr)
    );
    assert_eq!(null.stdout, none.stdout);
    // Other devices stay refused by name.
    let zero = meshchart(&["values", "-f", "/dev/zero"]);
    assert_eq!(zero.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("/dev/zero: is a character device"));
}

/// A chart whose one template, `cm.yaml`, is `template`.
fn one_template_chart(name: &str, template: &str) -> String {
    let dir = scratch_dir(name);
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: dup\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("templates/cm.yaml"), template).unwrap();
    dir.to_string_lossy().into_owned()
}

#[test]
fn a_key_a_template_writes_twice_is_an_error_naming_the_template_and_line() {
    let cases = [
        (
            "kind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n  b: \"2\"\n  a: \"3\"\n",
            7,
            5,
        ),
        // Deep in the document, and in flow style (the full reader's check).
        (
            "kind: Deployment\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      \
             containers:\n      - name: a\n        image: i\n        name: b\n",
            10,
            8,
        ),
        (
            "kind: ConfigMap\nmetadata: {name: x}\ndata: {a: \"1\", a: \"2\"}\n",
            3,
            3,
        ),
    ];
    for (i, (template, second, first)) in cases.into_iter().enumerate() {
        let chart = one_template_chart(&format!("dup-key-{i}"), template);
        for command in ["render", "lint"] {
            let out = meshchart(&[command, "--chart", &chart]);
            let all = stdout_and_stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{command} {i}: {all}");
            assert!(
                all.contains("dup/templates/cm.yaml"),
                "{command} {i}: {all}"
            );
            assert!(
                all.contains(&format!(
                    "is given twice in one map: on line {first} and on line {second}"
                )),
                "{command} {i}: {all}"
            );
        }
    }
}

#[test]
fn a_chart_with_subcharts_is_refused_naming_them_never_rendered_without_them() {
    let chart = one_template_chart("subcharts", "kind: ConfigMap\nmetadata:\n  name: parent\n");
    let sub = Path::new(&chart).join("charts/redis");
    std::fs::create_dir_all(sub.join("templates")).unwrap();
    std::fs::write(
        sub.join("Chart.yaml"),
        "apiVersion: v2\nname: redis\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        sub.join("templates/cm.yaml"),
        "kind: ConfigMap\nmetadata:\n  name: from-the-subchart\n",
    )
    .unwrap();
    for command in ["render", "lint"] {
        let out = meshchart(&[command, "--chart", &chart]);
        let all = stdout_and_stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {all}");
        assert!(
            all.contains(
                "has subcharts under charts/ (charts/redis), which meshchart does not render"
            ),
            "{command}: {all}"
        );
        assert!(
            !all.contains("kind: ConfigMap"),
            "{command}: nothing rendered: {all}"
        );
    }
}

#[test]
fn a_render_error_about_a_private_key_in_the_wrong_place_masks_the_key() {
    let key = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/certs/issuer.key"),
    )
    .unwrap();
    for slot in ["proxyInit.iptablesMode", "identity.issuer.issuanceLifetime"] {
        let out = run(command(&[
            "render",
            "--set-file",
            &format!("{slot}=tests/certs/issuer.key"),
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"));
        assert_eq!(out.status.code(), Some(1), "{slot}");
        let printed = stdout_and_stderr(&out);
        for line in key.lines().filter(|l| !l.starts_with("-----")) {
            assert!(
                !printed.contains(line),
                "{slot}: the key is printed:\n{printed}"
            );
        }
    }
}
