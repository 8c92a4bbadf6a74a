//! A fleet run again and run on: outputs that already hold their bytes, outputs in the way, a shared certs dir, each cluster's own release line, names differing in case.

use super::*;

/// A fleet of two small clusters, rendered once into `out`; returns (fleet, out).
fn rendered_fleet(name: &str) -> (Utf8PathBuf, Utf8PathBuf) {
    let (dir, out) = fleet_folder(
        name,
        &[
            ("east.yaml", "clusterDomain: east.example\n"),
            ("west.yaml", "clusterDomain: west.example\n"),
        ],
    );
    let first = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    (dir, out)
}

#[test]
fn a_rerun_leaves_outputs_that_already_hold_their_bytes_as_they_were() {
    let (dir, out) = rendered_fleet("fleet-unchanged");
    let east = out.join("east.yaml");
    let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(&east)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let before = std::fs::read(&east).unwrap();
    let again = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    assert!(again.status.success());
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        format!("unchanged {east}\nunchanged {}\n", out.join("west.yaml"))
    );
    assert_eq!(std::fs::read(&east).unwrap(), before);
    let modified = std::fs::metadata(&east).unwrap().modified().unwrap();
    assert_eq!(modified, long_ago, "the file was not touched");
}

#[test]
fn an_output_that_differs_by_one_byte_or_in_length_is_written_again() {
    let (dir, out) = rendered_fleet("fleet-changed");
    let (east, west) = (out.join("east.yaml"), out.join("west.yaml"));
    let expected_east = std::fs::read(&east).unwrap();
    let expected_west = std::fs::read(&west).unwrap();
    let mut flipped = expected_east.clone();
    let last = flipped.len() - 2;
    flipped[last] ^= 1;
    std::fs::write(&east, &flipped).unwrap();
    let mut longer = expected_west.clone();
    longer.extend_from_slice(b"# edited by hand\n");
    std::fs::write(&west, &longer).unwrap();
    let again = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    assert!(again.status.success());
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        format!("wrote {east}\nwrote {west}\n")
    );
    assert_eq!(std::fs::read(&east).unwrap(), expected_east);
    assert_eq!(std::fs::read(&west).unwrap(), expected_west);
}

#[test]
fn a_fifo_where_an_output_goes_is_replaced_without_being_opened() {
    let (dir, out) = rendered_fleet("fleet-fifo-target");
    let east = out.join("east.yaml");
    let expected = std::fs::read(&east).unwrap();
    std::fs::remove_file(&east).unwrap();
    support::cli::make_fifo(east.as_std_path());
    // Opening the FIFO to compare would block this run forever (no writer ever comes).
    let again = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    assert!(again.status.success());
    assert_eq!(std::fs::read(&east).unwrap(), expected);
}

#[test]
fn a_chart_that_does_not_compile_fails_the_fleet_naming_its_template_and_writes_nothing() {
    let (dir, out) = fleet_folder(
        "fleet-broken-chart",
        &[("one.yaml", "a: 1\n"), ("two.yaml", "a: 2\n")],
    );
    let chart = scratch("fleet-broken-chart-source").join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "a: 0\n").unwrap();
    std::fs::write(
        chart.join("templates/config.yaml"),
        "kind: ConfigMap\ndata:\n  a: {{ Values.a \n",
    )
    .unwrap();
    let output = at_golden_epoch(&bare_fleet_args(&dir, &out, &["--chart", chart.as_str()]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("templates/config.yaml:3"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(!out.exists(), "the output folder was left behind");
}

#[test]
fn clusters_sharing_an_empty_certs_dir_all_get_the_material_it_is_filled_with_once() {
    let clusters: Vec<(String, String)> = (0..8)
        .map(|i| {
            (
                format!("c{i}.yaml"),
                format!("controllerReplicas: {}\n", i % 3 + 1),
            )
        })
        .collect();
    let clusters: Vec<(&str, &str)> = clusters
        .iter()
        .map(|(file, values)| (file.as_str(), values.as_str()))
        .collect();
    let (dir, out) = fleet_folder("fleet-shared-empty-certs", &clusters);
    let certs = dir.parent().unwrap().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let output = at_golden_epoch(&bare_fleet_args(
        &dir,
        &out,
        &["--certs-dir", certs.as_str(), "--jobs", "2"],
    ));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let anchor = std::fs::read_to_string(certs.join("ca.crt")).unwrap();
    let first_line_of_body = anchor.lines().nth(1).unwrap();
    for (file, _) in &clusters {
        let rendered = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(
            rendered.contains(first_line_of_body),
            "{file} does not carry the trust anchor kept in {certs}"
        );
    }
}

#[test]
fn each_cluster_renders_the_line_its_own_values_name() {
    let dir = scratch("fleet-lines");
    std::fs::write(dir.join("new.yaml"), "controllerLogLevel: debug\n").unwrap();
    std::fs::write(dir.join("old.yaml"), "linkerdVersion: edge-24.10.2\n").unwrap();
    std::fs::write(dir.join("unknown.yaml"), "linkerdVersion: stable-2.13.12\n").unwrap();
    let out = scratch("fleet-lines-out");
    let output = support::cli::run(
        support::cli::command(&[
            "render",
            "--fleet",
            dir.as_str(),
            "--output-dir",
            out.as_str(),
            "--keep-going",
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The cluster naming a release meshchart does not embed fails alone, saying so.
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unknown.yaml") && stderr.contains("stable-2.13.12"),
        "{stderr}"
    );
    let single = |file: &str, line: &str| {
        let out = support::cli::run(
            support::cli::command(&[
                "render",
                "--linkerd",
                line,
                "-n",
                "linkerd",
                "--certs-dir",
                "tests/certs",
                "-f",
                dir.join(file).as_str(),
            ])
            .env("SOURCE_DATE_EPOCH", "1700000000"),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let written = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(written("new.yaml"), single("new.yaml", "edge-26.8.3"));
    assert_eq!(written("old.yaml"), single("old.yaml", "edge-24.10.2"));
    assert!(written("old.yaml").contains("image: cr.l5d.io/linkerd/proxy:edge-24.10.2"));
}

/// The inode and modification time of every file under `out` (the door's record included).
fn file_identities(out: &Utf8Path) -> BTreeMap<String, (u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt as _;
    out.read_dir_utf8()
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            (
                entry.file_name().to_owned(),
                (meta.ino(), meta.modified().unwrap()),
            )
        })
        .collect()
}

#[test]
fn a_fleet_re_run_a_day_later_writes_nothing() {
    let root = scratch("fleet-a-day-later");
    let dir = root.join("fleet");
    // Clusters as folders with certs/ of their own (empty: filled by the first run), and as
    // files sharing --certs-dir: no values give material, no schedule is set.
    for name in ["east", "west"] {
        std::fs::create_dir_all(dir.join(name).join("certs")).unwrap();
        std::fs::write(
            dir.join(name).join("values.yaml"),
            format!("clusterDomain: {name}.example\n"),
        )
        .unwrap();
    }
    std::fs::write(dir.join("north.yaml"), "controllerReplicas: 2\n").unwrap();
    let shared_certs = root.join("certs");
    std::fs::create_dir_all(&shared_certs).unwrap();
    let out = root.join("out");
    let args = bare_fleet_args(&dir, &out, &["--certs-dir", shared_certs.as_str()]);
    let at = |epoch: u64| {
        support::cli::run(support::cli::command(&args).env("SOURCE_DATE_EPOCH", epoch.to_string()))
    };
    let first = at(GOLDEN_EPOCH);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("3 clusters: 3 rendered, 3 written, 0 unchanged, 0 removed, 0 failed")
    );
    let before = file_identities(&out);
    // A day and a bit later: the certificates are still valid, and nothing depends on the clock.
    let later = at(GOLDEN_EPOCH + 86_400 + 17 * 60);
    let stderr = String::from_utf8_lossy(&later.stderr);
    assert!(later.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("3 clusters: 3 rendered, 0 written, 3 unchanged, 0 removed, 0 failed"),
        "{stderr}"
    );
    assert_eq!(
        String::from_utf8_lossy(&later.stdout),
        ["east", "north", "west"]
            .map(|name| format!("unchanged {}\n", out.join(format!("{name}.yaml"))))
            .concat()
    );
    assert_eq!(
        file_identities(&out),
        before,
        "no file was replaced, created or touched"
    );
}

#[test]
fn a_fleet_without_a_certs_dir_refuses_to_make_trust_roots_nothing_keeps() {
    let (dir, out) = fleet_folder(
        "fleet-no-certs-dir",
        &[
            ("given.yaml", "controllerReplicas: 1\n"),
            ("bare.yaml", "controllerReplicas: 2\n"),
        ],
    );
    // given.yaml brings all of its material, as a cluster kept elsewhere would.
    let certs = support::repo_root().join("tests/certs");
    let pem = |name: &str| std::fs::read_to_string(certs.join(name)).unwrap();
    let mut given = meshchart::values::Value::Map(Default::default());
    for (key, file) in [
        ("identityTrustAnchorsPEM", "ca.crt"),
        ("identity.issuer.tls.crtPEM", "issuer.crt"),
        ("identity.issuer.tls.keyPEM", "issuer.key"),
        ("proxyInjector.crtPEM", "proxy-injector.crt"),
        ("proxyInjector.keyPEM", "proxy-injector.key"),
        ("profileValidator.crtPEM", "sp-validator.crt"),
        ("profileValidator.keyPEM", "sp-validator.key"),
    ] {
        support::set(&mut given, key, pem(file));
    }
    std::fs::write(dir.join("given.yaml"), meshchart::yaml::to_yaml(&given)).unwrap();
    let output = at_golden_epoch(&bare_fleet_args(&dir, &out, &[]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: the identity trust anchor and issuer, the proxyInjector serving certificate and \
             the profileValidator serving certificate would be generated and kept nowhere",
            dir.join("bare.yaml")
        )),
        "{stderr}"
    );
    assert!(stderr.contains("pass --certs-dir DIR"), "{stderr}");
    assert!(!out.exists(), "nothing was written");
    // A single render still generates (and says the material was not kept).
    let single = at_golden_epoch(&["render", "-f", dir.join("bare.yaml").as_str()]);
    assert!(single.status.success());
}

#[test]
fn clusters_whose_names_differ_only_in_case_render_with_a_warning_naming_both_files() {
    let (dir, out) = fleet_folder(
        "fleet-case",
        &[
            ("Prod.yaml", "controllerLogLevel: debug\n"),
            ("prod.yaml", "controllerLogLevel: info\n"),
        ],
    );
    let run = at_golden_epoch(&fleet_args(&dir, &out, &[]));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: --fleet {dir}: {dir}/Prod.yaml and {dir}/prod.yaml name clusters that \
             differ only in case"
        )),
        "{stderr}"
    );
}
