//! Odd file systems and ownership: mount points, full disks, umasks, owners and modes.

use super::*;

/// A tmpfs mounted for a test, unmounted when dropped; `None` where this process may not mount
/// (not root, or no mount namespace rights): the test then has nothing to check.
struct Mounted(std::path::PathBuf);

impl Mounted {
    fn at(path: &Path) -> Option<Mounted> {
        std::fs::create_dir_all(path).expect("mount point");
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "meshchart-test", s(path)])
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Mounted(path.to_path_buf()))
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn an_output_folder_that_is_a_mount_point_is_written_and_left_clean() {
    let root = scratch_dir("door-mount");
    let out = root.join("out");
    let Some(_mounted) = Mounted::at(&out) else {
        eprintln!("cannot mount a tmpfs here: nothing to check");
        return;
    };
    // --output-dir: the chart's folder inside the mount is switched whole.
    for _ in 0..2 {
        let output = run(&mut legacy_command(&[
            "render",
            "--chart",
            SMALL_CHART,
            "--output-dir",
            s(&out),
        ]));
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    assert!(out.join("output-dir/templates/service.yaml").is_file());
    // A fleet: the mount point itself cannot be exchanged; its files go in one by one.
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..5, "a");
    assert!(fleet_output(&fleet, &out).status.success());
    write_fleet(&fleet, 0..4, "b");
    let output = fleet_output(&fleet, &out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("removed"));
    let files: Vec<String> = snapshot(&out).into_keys().collect();
    assert!(files.contains(&"c3.yaml".to_owned()) && !files.contains(&"c4.yaml".to_owned()));
    assert!(staging_left(&out).is_empty(), "{:?}", staging_left(&out));
}

#[test]
fn a_fleet_file_whose_name_is_not_utf8_is_named_in_a_warning() {
    use std::os::unix::ffi::OsStrExt as _;
    let root = scratch_dir("door-non-utf8");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let odd = fleet.join(std::ffi::OsStr::from_bytes(b"bad-\xff.yaml"));
    std::fs::write(odd, "name: odd\n").expect("write");
    let out = root.join("out");
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("skipped \"bad-\u{fffd}.yaml\" (its name is not UTF-8)"),
        "{stderr}"
    );
}

#[test]
fn keep_going_leaves_a_failed_clusters_last_output_and_its_record() {
    let root = scratch_dir("door-keep-going");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    let out = root.join("out");
    assert!(fleet_output(&fleet, &out).status.success());
    let before = snapshot(&out);
    write_fleet(&fleet, 0..3, "b");
    std::fs::write(fleet.join("c1.yaml"), "name: [unclosed\n").expect("break c1");
    // Without --keep-going: nothing changes.
    let output = fleet_output(&fleet, &out);
    assert_eq!(output.status.code(), Some(1));
    assert!(snapshot(&out) == before);
    let output = run(fleet_command(&fleet, &out).arg("--keep-going"));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let after = snapshot(&out);
    assert_eq!(
        after.get("c1.yaml"),
        before.get("c1.yaml"),
        "c1 keeps its last output"
    );
    assert_ne!(after.get("c0.yaml"), before.get("c0.yaml"));
    assert!(
        text(&after[RECORD]).contains("\"c1.yaml\""),
        "c1's output is still meshchart's"
    );
}

#[test]
fn a_fleet_stopped_by_the_time_limit_leaves_no_staging() {
    let root = scratch_dir("door-deadline");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    // A FIFO no one writes to: the shared --set-file read waits until the time limit.
    let fifo = root.join("never.txt");
    support::cli::make_fifo(&fifo);
    let out = root.join("out");
    let set_file = format!("extra={}", s(&fifo));
    let output = run(fleet_command(&fleet, &out)
        .args(["--set-file", &set_file])
        .env("MESHCHART_MAX_SECONDS", "1"));
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("its time limit"), "{stderr}");
    assert!(staging_left(&out).is_empty(), "{:?}", staging_left(&out));
    assert!(!out.join("c0.yaml").exists());
}

#[test]
fn a_package_killed_at_any_point_leaves_no_archive_or_the_whole_one_and_no_partial_file() {
    let root = scratch_dir("door-kill-package");
    let out = root.join("out");
    let package = || {
        let mut command = support::cli::command(&["package", "-d", out.to_str().unwrap()]);
        command.env("SOURCE_DATE_EPOCH", "1700000000");
        command
    };
    let length = complete(package());
    let whole = snapshot(&out);
    assert_eq!(whole.len(), 1, "one archive: {:?}", whole.keys());
    let rounds = rounds(16);
    let (mut none, mut archive) = (0, 0);
    for round in 0..rounds {
        let _ = std::fs::remove_dir_all(&out);
        let mut child = spawn_quiet(package());
        std::thread::sleep(kill_delay(round, rounds, length));
        let _ = child.kill();
        let _ = child.wait();
        // Under its own name, the archive is whole or absent; anything else is the staging
        // file of the killed run, which the next run removes.
        for (name, bytes) in snapshot(&out) {
            match whole.get(&name) {
                Some(expected) => {
                    assert!(bytes == *expected, "round {round}: a partial {name}");
                    archive += 1;
                }
                None => assert!(name.ends_with(".partial"), "round {round}: {name} left"),
            }
        }
        if !snapshot(&out).keys().any(|name| whole.contains_key(name)) {
            none += 1;
        }
        complete(package());
        assert!(
            snapshot(&out) == whole,
            "round {round}: the next run leaves the archive alone, no .partial file"
        );
    }
    eprintln!("{rounds} kills: {none} left no archive, {archive} the whole one");
}

/// A chart named `name` with `templates` (file name, text), written into `dir`; its folder.
fn chart_on_disk(dir: &Path, name: &str, templates: &[(&str, &str)]) -> std::path::PathBuf {
    let chart = dir.join(name);
    std::fs::create_dir_all(chart.join("templates")).expect("chart folder");
    std::fs::write(
        chart.join("Chart.yaml"),
        format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n"),
    )
    .expect("Chart.yaml");
    for (file, text) in templates {
        std::fs::write(chart.join("templates").join(file), text).expect("template");
    }
    chart
}

/// A chart of one Secret and one ConfigMap, written into `dir`; its folder.
fn chart_with_a_secret(dir: &Path) -> std::path::PathBuf {
    chart_on_disk(
        dir,
        "secret-chart",
        &[
            (
                "secret.yaml",
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: issuer\nstringData:\n  key: \"{{ Values.name }}\"\n",
            ),
            (
                "config.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n",
            ),
        ],
    )
}

#[test]
fn secret_outputs_are_written_owner_only_whatever_the_umask() {
    let root = scratch_dir("door-secret-modes");
    let chart = chart_with_a_secret(&root);
    let out = root.join("out");
    let output = under_umask_000(legacy_command(&[
        "render",
        "--chart",
        s(&chart),
        "--set",
        "name=x",
        "--output-dir",
        s(&out),
    ]));
    assert!(output.status.success(), "{}", text(&output.stderr));
    let templates = out.join("secret-chart/templates");
    assert_eq!(mode_of(&templates.join("secret.yaml")), 0o600);
    assert_eq!(mode_of(&templates.join("config.yaml")), 0o644);
    // The record of what meshchart wrote decides what a later run may remove: nobody else may
    // change it.
    assert_eq!(mode_of(&out.join("secret-chart/.meshchart-outputs")), 0o644);
    // A fleet's output holds its cluster's Secret.
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let fleet_out = root.join("fleet-out");
    let output = under_umask_000(legacy_command(&[
        "render",
        "--chart",
        s(&chart),
        "--fleet",
        s(&fleet),
        "--output-dir",
        s(&fleet_out),
    ]));
    assert!(output.status.success(), "{}", text(&output.stderr));
    for cluster in ["c0.yaml", "c1.yaml"] {
        assert_eq!(mode_of(&fleet_out.join(cluster)), 0o600, "{cluster}");
    }
    assert_eq!(mode_of(&fleet_out.join(".meshchart-outputs")), 0o644);
}

/// Whether this test runs as root (it chowns); if not, says so and the test checks nothing.
fn as_root_or_skip(test: &str) -> bool {
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("{test}: skipped: not root, so files cannot be given to another user");
    }
    root
}

const OTHER_USER: u32 = 12345;

fn owner_of(path: &Path) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::symlink_metadata(path).expect("meta");
    (meta.uid(), meta.gid())
}

fn give_to_other_user(path: &Path) {
    std::os::unix::fs::chown(path, Some(OTHER_USER), Some(OTHER_USER)).expect("chown");
}

#[test]
fn folders_and_files_a_run_replaces_keep_their_owner_group_and_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    if !as_root_or_skip("folders_and_files_a_run_replaces_keep_their_owner_group_and_mode") {
        return;
    }
    let root = scratch_dir("door-owners");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let out = root.join("out");
    assert!(fleet_output(&fleet, &out).status.success());
    std::fs::create_dir_all(out.join("sub")).expect("a user's subfolder");
    std::fs::write(out.join("sub/notes.txt"), "mine").expect("user file");
    for path in [&out, &out.join("sub"), &out.join("c0.yaml")] {
        give_to_other_user(path);
    }
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o750)).expect("chmod");
    std::fs::set_permissions(out.join("c0.yaml"), std::fs::Permissions::from_mode(0o640))
        .expect("chmod");
    write_fleet(&fleet, 0..2, "b");
    let output = fleet_output(&fleet, &out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("wrote"),
        "the set was replaced"
    );
    for path in [&out, &out.join("sub"), &out.join("c0.yaml")] {
        assert_eq!(
            owner_of(path),
            (OTHER_USER, OTHER_USER),
            "{}",
            path.display()
        );
    }
    assert_eq!(mode_of(&out), 0o750);
    assert_eq!(mode_of(&out.join("c0.yaml")), 0o640);
    // --output-dir: the chart's folder, switched whole, keeps its owner too.
    let dir_out = root.join("dir-out");
    let render = |set: &str| {
        run(&mut legacy_command(&[
            "render",
            "--chart",
            SMALL_CHART,
            "--set",
            set,
            "--output-dir",
            s(&dir_out),
        ]))
    };
    assert!(render("name=one").status.success());
    let chart_folder = dir_out.join("output-dir");
    give_to_other_user(&chart_folder);
    give_to_other_user(&chart_folder.join("templates"));
    assert!(render("name=two").status.success());
    assert_eq!(owner_of(&chart_folder), (OTHER_USER, OTHER_USER));
    assert_eq!(
        owner_of(&chart_folder.join("templates")),
        (OTHER_USER, OTHER_USER)
    );
}

/// A tmpfs of `size` mounted for a test (see [`Mounted`]).
fn mounted_small(path: &Path, size: &str) -> Option<Mounted> {
    std::fs::create_dir_all(path).expect("mount point");
    let status = Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size}"),
            "meshchart-test",
            s(path),
        ])
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| Mounted(path.to_path_buf()))
}

/// A chart of one ConfigMap holding the cluster's `name`: outputs as big as their names.
fn chart_of_one_value(dir: &Path) -> std::path::PathBuf {
    chart_on_disk(
        dir,
        "value-chart",
        &[(
            "config.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  key: \"{{ Values.name }}\"\n",
        )],
    )
}

#[test]
fn keep_going_on_a_full_disk_lands_each_cluster_whole_or_reports_it_and_exits_non_zero() {
    let root = scratch_dir("door-enospc");
    let disk = root.join("disk");
    let Some(_mounted) = mounted_small(&disk, "160k") else {
        eprintln!("cannot mount a tmpfs here: nothing to check");
        return;
    };
    let chart = chart_of_one_value(&root);
    let fleet_of = |name: &str, padding: usize| {
        let fleet = root.join(name);
        std::fs::create_dir_all(&fleet).expect("fleet");
        for i in 0..10 {
            let value = format!("name: c{i}-{}\n", "0".repeat(padding));
            std::fs::write(fleet.join(format!("c{i}.yaml")), value).expect("cluster");
        }
        fleet
    };
    let (small, big) = (fleet_of("small", 0), fleet_of("big", 9000));
    let command = |fleet: &Path, out: &Path| {
        legacy_command(&[
            "render",
            "--chart",
            s(&chart),
            "--fleet",
            s(fleet),
            "--output-dir",
            s(out),
            "--keep-going",
        ])
    };
    let references: Vec<BTreeMap<String, Vec<u8>>> = [&small, &big]
        .iter()
        .enumerate()
        .map(|(i, fleet)| {
            let reference = root.join(format!("reference-{i}"));
            complete(command(fleet, &reference));
            snapshot(&reference)
        })
        .collect();
    let out = disk.join("out");
    complete(command(&small, &out));
    // Ten outputs of 9 kB each do not fit beside the ones in place.
    let output = run(&mut command(&big, &out));
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(!stderr.contains("did not write"), "{stderr}");
    for (name, bytes) in snapshot(&out) {
        if name == RECORD {
            continue;
        }
        assert!(
            references.iter().any(|set| set.get(&name) == Some(&bytes)),
            "{name} is not a cluster's whole output"
        );
    }
    assert!(staging_left(&out).is_empty(), "{:?}", staging_left(&out));
}
