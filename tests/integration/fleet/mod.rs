//! `render --fleet`: every cluster gets the bytes a single render would print, output is all or
//! nothing (or, with --keep-going, the good clusters), and the thread count changes nothing.

use crate::support;

use camino::{Utf8Path, Utf8PathBuf};
use meshchart::fleet::{self, FleetOptions};
use meshchart::golden::{self, GOLDEN_EPOCH};
use meshchart::render::RenderRequest;
use meshchart::render::{render, Clock};
use meshchart::values::user_values;
use std::collections::BTreeMap;
use support::cli::scratch_dir;

mod reruns;

fn golden_clock() -> Clock {
    Clock::Fixed(std::time::UNIX_EPOCH + std::time::Duration::from_secs(GOLDEN_EPOCH))
}

fn scratch(name: &str) -> Utf8PathBuf {
    Utf8PathBuf::from_path_buf(scratch_dir(name)).unwrap()
}

fn copy_dir(from: &Utf8Path, to: &Utf8Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in from.read_dir_utf8().unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn every_golden_case_renders_in_a_fleet_as_it_renders_alone() {
    let repo = support::repo_root();
    let chart = support::chart();
    let cases = golden::discover(
        &repo.join("tests/golden/control-plane-edge-21.4.4"),
        &meshchart::flags::CommandLineCaseArgs,
    )
    .unwrap();
    // A fleet shares its non-value flags, so the cases go into one fleet per Kubernetes version;
    // each case becomes a cluster folder: its value flags as values.yaml, its certs as certs/.
    let mut fleets: BTreeMap<Option<String>, Vec<&golden::GoldenCase>> = BTreeMap::new();
    for case in &cases {
        // A cluster is its values and its certs: a case that needs other flags of its own
        // (`-n`, `--show-only`) or no certs folder is not one.
        let request = &case.request;
        let a_cluster =
            request.certs_dir.is_some() && !request.namespace_given && request.show_only.is_empty();
        if a_cluster && case.dir.join(golden::EXPECTED_OUTPUT).is_file() {
            fleets
                .entry(case.request.kube_version.clone())
                .or_default()
                .push(case);
        }
    }
    let root = scratch("fleet-golden");
    let mut compared = 0;
    for (index, (kube_version, members)) in fleets.iter().enumerate() {
        let dir = root.join(format!("fleet-{index}"));
        for case in members {
            let cluster = dir.join(&case.name);
            std::fs::create_dir_all(&cluster).unwrap();
            let values = user_values(case.request.overrides(), &mut std::io::empty()).unwrap();
            std::fs::write(
                cluster.join("values.yaml"),
                meshchart::yaml::to_yaml(&values),
            )
            .unwrap();
            copy_dir(
                case.request.certs_dir.as_deref().unwrap(),
                &cluster.join("certs"),
            );
        }
        let shared = RenderRequest {
            kube_version: kube_version.clone(),
            ..RenderRequest::default()
        };
        let out = root.join(format!("out-{index}"));
        let source = meshchart::ChartSource::Embedded {
            release: Some("edge-21.4.4".to_owned()),
            crds: false,
        };
        let report = fleet::run(
            &source,
            &dir,
            &out,
            &shared,
            FleetOptions::default(),
            &mut std::io::empty(),
            golden_clock(),
        )
        .unwrap();
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        for case in members {
            let written = std::fs::read_to_string(out.join(format!("{}.yaml", case.name))).unwrap();
            let expected = std::fs::read_to_string(case.dir.join(golden::EXPECTED_OUTPUT)).unwrap();
            assert!(
                written == expected,
                "fleet cluster {} differs from its golden case",
                case.name
            );
            let mut single = shared.clone();
            single.values.files = vec![dir.join(&case.name).join("values.yaml").to_string()];
            single.certs_dir = Some(dir.join(&case.name).join("certs"));
            let alone = render(&chart, &single, &mut std::io::empty(), golden_clock()).unwrap();
            assert!(
                written == alone.rendered.to_stream(),
                "fleet cluster {} differs from a single render with its values file",
                case.name
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "only {compared} golden cases compared");
}

/// A fleet folder of `NAME.yaml` clusters (file name, values) in a fresh scratch folder; returns
/// the fleet folder and an output folder beside it (not made).
fn fleet_folder(name: &str, clusters: &[(&str, &str)]) -> (Utf8PathBuf, Utf8PathBuf) {
    let root = scratch(name);
    let dir = root.join("fleet");
    std::fs::create_dir_all(&dir).unwrap();
    for (file, values) in clusters {
        std::fs::write(dir.join(file), values).unwrap();
    }
    (dir, root.join("out"))
}

/// A fleet of three `NAME.yaml` clusters, two of them broken, and an output folder holding a
/// file from an earlier run (listed in the output door's record of what meshchart wrote, as an
/// earlier run leaves it).
fn fleet_with_failures(name: &str) -> (Utf8PathBuf, Utf8PathBuf) {
    let (dir, out) = fleet_folder(
        name,
        &[
            ("good.yaml", "controllerLogLevel: debug\n"),
            ("broken-yaml.yaml", "proxy: [unclosed\n"),
            ("bad-timeout.yaml", "proxy:\n  awaitTimeout: 2x\n"),
        ],
    );
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("good.yaml"), "from an earlier run\n").unwrap();
    std::fs::write(out.join(meshchart::output::RECORD_NAME), "\"good.yaml\"\n").unwrap();
    (dir, out)
}

/// `meshchart ARGS` at the golden instant (the pinned certificates in tests/certs are valid then).
fn at_golden_epoch(args: &[&str]) -> std::process::Output {
    support::cli::run(support::cli::legacy_command(args).env("SOURCE_DATE_EPOCH", "1700000000"))
}

/// `render --fleet DIR --output-dir OUT`, then `extra`.
fn bare_fleet_args<'a>(dir: &'a Utf8Path, out: &'a Utf8Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "render",
        "--fleet",
        dir.as_str(),
        "--output-dir",
        out.as_str(),
    ];
    args.extend(extra);
    args
}

/// [`bare_fleet_args`] with the pinned certificates in tests/certs.
fn fleet_args<'a>(dir: &'a Utf8Path, out: &'a Utf8Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = bare_fleet_args(dir, out, &["--certs-dir", "tests/certs"]);
    args.extend(extra);
    args
}

#[test]
fn a_failing_cluster_writes_nothing_and_every_failure_is_listed_with_its_file() {
    let (dir, out) = fleet_with_failures("fleet-all-or-nothing");
    let output = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(
        stderr.contains("2 of 3 clusters failed; nothing was written"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().last(),
        Some("3 clusters: 1 rendered, 0 written, 0 unchanged, 0 removed, 2 failed"),
        "the summary is the last line"
    );
    assert!(
        stderr.contains(&format!("{}: ", dir.join("broken-yaml.yaml"))),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}: ", dir.join("bad-timeout.yaml")))
            && stderr.contains("    - proxy.awaitTimeout: Does not match pattern"),
        "{stderr}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != meshchart::output::RECORD_NAME)
        .collect();
    left.sort();
    assert_eq!(left, ["good.yaml"]);
    assert_eq!(
        std::fs::read_to_string(out.join("good.yaml")).unwrap(),
        "from an earlier run\n"
    );
}

#[test]
fn keep_going_writes_the_clusters_that_rendered_and_exits_1() {
    let (dir, out) = fleet_with_failures("fleet-keep-going");
    let output = at_golden_epoch(&fleet_args(&dir, &out, &["--keep-going"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("wrote {}\n", out.join("good.yaml"))
    );
    assert!(
        stderr.contains("2 of 3 clusters failed, the others were written"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().last(),
        Some("3 clusters: 1 rendered, 1 written, 0 unchanged, 0 removed, 2 failed"),
        "the summary is the last line"
    );
    let single = at_golden_epoch(&[
        "render",
        "--certs-dir",
        "tests/certs",
        "-f",
        dir.join("good.yaml").as_str(),
    ]);
    assert_eq!(
        std::fs::read(out.join("good.yaml")).unwrap(),
        single.stdout,
        "the good cluster holds what a single render prints"
    );
    assert!(!out.join("broken-yaml.yaml").exists() && !out.join("bad-timeout.yaml").exists());
}

#[test]
fn the_number_of_jobs_does_not_change_a_byte() {
    let root = scratch("fleet-jobs");
    let dir = root.join("fleet");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..6 {
        std::fs::write(
            dir.join(format!("c{i}.yaml")),
            format!(
                "clusterDomain: c{i}.example\ncontrollerReplicas: {}\n",
                1 + i % 3
            ),
        )
        .unwrap();
    }
    let read_all = |out: &Utf8Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = out
            .read_dir_utf8()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().to_owned(), std::fs::read(e.path()).unwrap())
            })
            .filter(|(name, _)| name != meshchart::output::RECORD_NAME)
            .collect();
        files.sort();
        files
    };
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "5"] {
        let out = root.join(format!("out-{jobs}"));
        let output = at_golden_epoch(&fleet_args(&dir, &out, &["--jobs", jobs]));
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        outputs.push(read_all(&out));
    }
    assert_eq!(outputs[0].len(), 6);
    assert!(outputs.iter().all(|o| *o == outputs[0]));
}

#[test]
fn a_cluster_folder_without_values_is_named_in_the_error() {
    let root = scratch("fleet-no-values");
    let dir = root.join("fleet");
    std::fs::create_dir_all(dir.join("east")).unwrap();
    let error = fleet::discover(&dir).unwrap_err().to_string();
    assert!(
        error.contains("east/") && error.contains("values.yaml"),
        "{error}"
    );
}
