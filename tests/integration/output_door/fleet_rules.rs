//! The fleet and output-folder rules from the command line: what is refused, removed, kept and named.

use super::*;

// The fleet rules from the command line.

#[test]
fn a_fleet_into_its_own_folder_is_refused_naming_both_and_nothing_changes() {
    let root = scratch_dir("door-overlap");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    let before = snapshot(&fleet);
    for out in [fleet.clone(), fleet.join("out"), root.clone()] {
        let output = fleet_output(&fleet, &out);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(s(&out)) && stderr.contains(s(&fleet)) && stderr.contains("overlap"),
            "{stderr}"
        );
        assert!(
            snapshot(&fleet) == before,
            "the fleet's values are untouched"
        );
    }
    // `--fleet . --output-dir .` from inside the fleet.
    let output = run(legacy_command(&[
        "render",
        "--chart",
        &format!("{}/{SMALL_CHART}", env!("CARGO_MANIFEST_DIR")),
        "--fleet",
        ".",
        "--output-dir",
        ".",
    ])
    .current_dir(&fleet));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(snapshot(&fleet) == before);
}

#[test]
fn an_output_dir_holding_the_certs_dir_or_inside_the_chart_is_refused() {
    let root = scratch_dir("door-overlap-render");
    let out = root.join("out");
    let certs = out.join("demo/certs");
    let output = run(&mut legacy_command(&[
        "render",
        "--certs-dir",
        s(&certs),
        "--output-dir",
        s(&out),
    ]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("contains the --certs-dir"), "{stderr}");
    assert!(!certs.exists(), "refused before any key was made");
    let output = run(&mut legacy_command(&[
        "render",
        "--chart",
        SMALL_CHART,
        "--output-dir",
        &format!("{SMALL_CHART}/out"),
    ]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is inside the chart"), "{stderr}");
}

#[test]
fn fleet_files_in_any_case_count_and_others_are_named_in_a_warning() {
    let root = scratch_dir("door-discover");
    let fleet = root.join("fleet");
    std::fs::create_dir_all(fleet.join("folder")).expect("folder");
    std::fs::write(fleet.join("folder/values.yaml"), "name: folder\n").expect("write");
    std::fs::write(fleet.join("UPPER.YAML"), "name: upper\n").expect("write");
    std::fs::write(fleet.join("mixed.YmL"), "name: mixed\n").expect("write");
    std::fs::write(fleet.join("values.json"), "{}").expect("write");
    std::fs::write(fleet.join("README.md"), "notes").expect("write");
    std::fs::write(fleet.join(".hidden.yaml"), "name: hidden\n").expect("write");
    let out = root.join("out");
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for skipped in ["values.json", "README.md"] {
        assert!(
            stderr.contains(&format!(
                "warning: --fleet {}: skipped {skipped}",
                s(&fleet)
            )),
            "{stderr}"
        );
    }
    let mut files: Vec<String> = snapshot(&out).into_keys().collect();
    files.sort();
    assert_eq!(files, [RECORD, "UPPER.yaml", "folder.yaml", "mixed.yaml"]);
    assert!(
        stderr.contains("3 clusters: 3 rendered, 3 written, 0 unchanged, 0 removed, 0 failed"),
        "{stderr}"
    );
}

#[test]
fn a_fifo_in_a_fleet_is_refused_by_name_before_any_work() {
    let root = scratch_dir("door-fifo");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let fifo = fleet.join("pipe.yaml");
    support::cli::make_fifo(&fifo);
    let out = root.join("out");
    let started = Instant::now();
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert!(started.elapsed() < Duration::from_secs(20), "it blocked");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(s(&fifo)), "{stderr}");
    assert!(!out.exists(), "nothing was written");
}

#[test]
fn outputs_of_clusters_that_left_are_removed_and_foreign_files_never() {
    let root = scratch_dir("door-left");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    let out = root.join("out");
    assert!(fleet_output(&fleet, &out).status.success());
    std::fs::write(out.join("notes.yaml"), "kind: Mine\n").expect("user's file");
    std::fs::remove_file(fleet.join("c1.yaml")).expect("c1 leaves");
    let output = fleet_output(&fleet, &out);
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.contains(&format!("removed {}", s(&out.join("c1.yaml")))),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("unchanged {}", s(&out.join("c0.yaml")))),
        "{stdout}"
    );
    assert!(
        stderr.contains("2 clusters: 2 rendered, 0 written, 2 unchanged, 1 removed, 0 failed"),
        "{stderr}"
    );
    let mut files: Vec<String> = snapshot(&out).into_keys().collect();
    files.sort();
    assert_eq!(files, [RECORD, "c0.yaml", "c2.yaml", "notes.yaml"]);
}

#[test]
fn a_users_file_where_a_cluster_goes_is_named_and_nothing_is_written() {
    let root = scratch_dir("door-foreign");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out");
    std::fs::write(out.join("c1.yaml"), "mine\n").expect("user's file");
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(s(&out.join("c1.yaml"))), "{stderr}");
    let mut files: Vec<String> = snapshot(&out).into_keys().collect();
    files.sort();
    assert_eq!(files, ["c1.yaml"]);
    assert_eq!(std::fs::read(out.join("c1.yaml")).expect("read"), b"mine\n");
}

#[test]
fn staging_names_are_random_even_for_the_same_pid() {
    // Every run of a container is PID 1: names from the PID collided. A folder named as older
    // versions named staging (by PID) is never reused or published; nor is it removed, since
    // nothing in it proves meshchart made it (it may be the user's).
    let root = scratch_dir("door-pid");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out");
    let left = root.join(".out.meshchart-staging-1/new");
    std::fs::create_dir_all(&left).expect("look-alike");
    std::fs::write(left.join("c9.yaml"), "kind: Stale\n").expect("look-alike file");
    assert!(fleet_output(&fleet, &out).status.success());
    assert_eq!(
        staging_left(&out),
        [s(&root.join(".out.meshchart-staging-1"))]
    );
    assert!(!out.join("c9.yaml").exists());
    assert!(left.join("c9.yaml").exists());
}

#[test]
fn a_users_folders_named_like_meshcharts_survive_a_fleet() {
    let root = scratch_dir("door-look-alikes");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2, "a");
    let out = root.join("out");
    let users = [
        out.join(".meshchart-staging-2024"),
        out.join(".meshchart-fleet-7"),
        root.join(".out.meshchart-staging-42"),
    ];
    for folder in &users {
        std::fs::create_dir_all(folder).expect("folder");
        std::fs::write(folder.join("notes.txt"), "mine").expect("write");
    }
    assert!(fleet_output(&fleet, &out).status.success());
    write_fleet(&fleet, 0..3, "b");
    assert!(fleet_output(&fleet, &out).status.success());
    for folder in &users {
        assert_eq!(
            std::fs::read(folder.join("notes.txt")).expect("kept"),
            b"mine",
            "{}",
            folder.display()
        );
    }
}

/// `render --output-dir` on a folder whose parent is read-only stages inside it, hidden.
#[test]
fn an_output_dir_whose_parent_is_not_writable_still_lands_whole() {
    if unsafe { libc::geteuid() } == 0 {
        // root writes anywhere: the case cannot be made here.
        return;
    }
    let root = scratch_dir("door-read-only-parent");
    let parent = root.join("parent");
    let out = parent.join("out");
    std::fs::create_dir_all(&out).expect("out");
    let mode = |m| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(m)).expect("chmod")
    };
    mode(0o555);
    let output = run(&mut legacy_command(&[
        "render",
        "--chart",
        SMALL_CHART,
        "--output-dir",
        s(&out),
    ]));
    mode(0o755);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(staging_left(&out).is_empty());
}

#[test]
fn outputs_of_a_version_without_the_record_are_adopted_when_they_hold_the_same_bytes() {
    let root = scratch_dir("door-adopt");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..3, "a");
    let out = root.join("out");
    assert!(fleet_output(&fleet, &out).status.success());
    // What an older meshchart left: the same outputs, no record.
    std::fs::remove_file(out.join(RECORD)).expect("record");
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("3 clusters: 3 rendered, 0 written, 3 unchanged, 0 removed, 0 failed"),
        "{stderr}"
    );
    assert!(out.join(RECORD).exists(), "adopted: they are recorded now");
    // Once recorded, they are meshchart's to replace.
    write_fleet(&fleet, 0..3, "b");
    assert!(fleet_output(&fleet, &out).status.success());
}

#[test]
fn a_linked_folder_in_the_way_is_named_once() {
    let root = scratch_dir("door-linked-folder");
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    let out = root.join("out");
    std::fs::create_dir_all(out.join("output-dir")).expect("chart folder");
    std::os::unix::fs::symlink(&elsewhere, out.join("output-dir/templates")).expect("link");
    let output = run(&mut legacy_command(&[
        "render",
        "--chart",
        SMALL_CHART,
        "--output-dir",
        s(&out),
    ]));
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    let named = s(&out.join("output-dir/templates")).to_owned();
    assert_eq!(stderr.matches(&named).count(), 1, "{stderr}");
    assert!(std::fs::read_dir(&elsewhere)
        .expect("read")
        .next()
        .is_none());
}

#[test]
fn hidden_files_that_look_like_clusters_are_named_as_skipped_on_stderr() {
    let root = scratch_dir("door-hidden-clusters");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..1, "a");
    std::fs::write(fleet.join(".hidden.yaml"), "name: hidden\n").expect("write");
    std::fs::write(fleet.join("...yaml"), "name: dots\n").expect("write");
    std::fs::create_dir_all(fleet.join(".staged")).expect("folder");
    std::fs::write(fleet.join(".staged/values.yaml"), "name: staged\n").expect("write");
    std::fs::create_dir_all(fleet.join(".git")).expect("folder");
    let out = root.join("out");
    let output = fleet_output(&fleet, &out);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for name in [".hidden.yaml", "...yaml", ".staged/"] {
        assert!(
            stderr.contains(&format!(
                "skipped {name} (hidden: its name starts with a dot)"
            )),
            "{name}: {stderr}"
        );
    }
    assert!(!stderr.contains(".git"), "{stderr}");
    assert!(out.join("c0.yaml").exists() && !out.join(".hidden.yaml").exists());
}

#[test]
fn a_run_waiting_behind_a_stopped_lock_holder_says_whom_it_waits_for() {
    use std::io::BufRead as _;
    let root = scratch_dir("door-stopped-holder");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2000, "a");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out");
    let mut holder = spawn_quiet(fleet_command(&fleet, &out));
    let holder_pid = holder.id() as libc::pid_t;
    // Stopped once it holds the lock and its staging's owner file records who it is: the
    // folder appears a moment before that file is written, and a holder stopped in between
    // records no pid (so the note rightly names none).
    let deadline = Instant::now() + Duration::from_secs(20);
    let recorded = format!("pid {holder_pid}\n");
    while !staging_left(&out).iter().any(|staging| {
        std::fs::read_to_string(Path::new(staging).join("meshchart-staging-owner"))
            .is_ok_and(|owner| owner.contains(&recorded) && owner.ends_with('\n'))
    }) {
        assert!(Instant::now() < deadline, "the first run never staged");
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: signals to a child of this test.
    unsafe { libc::kill(holder_pid, libc::SIGSTOP) };
    let mut waiter = fleet_command(&fleet, &out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("second run");
    let stderr = waiter.stderr.take().expect("stderr");
    let (line_sent, line) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for text in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = line_sent.send(text);
        }
    });
    let said = line.recv_timeout(Duration::from_secs(20));
    // SAFETY: as above.
    unsafe { libc::kill(holder_pid, libc::SIGCONT) };
    assert!(holder.wait().expect("first run").success());
    assert!(waiter.wait().expect("second run").success());
    let said = said.expect("the waiting run said nothing");
    assert!(said.contains("waiting for the lock on"), "{said}");
    assert!(said.contains(s(&out)), "{said}");
    assert!(said.contains(&format!("pid {holder_pid} (")), "{said}");
    assert!(said.contains("render"), "{said}");
}

#[test]
fn folders_the_door_makes_are_never_writable_by_others_whatever_the_umask() {
    let root = scratch_dir("door-folder-modes");
    let certs = root.join("certs");
    let out = root.join("out");
    let output = under_umask_000(legacy_command(&[
        "render",
        "--certs-dir",
        s(&certs),
        "--output-dir",
        s(&out),
    ]));
    assert!(output.status.success(), "{}", text(&output.stderr));
    for folder in [
        certs.clone(),
        out.clone(),
        out.join("linkerd-control-plane"),
        out.join("linkerd-control-plane/templates"),
    ] {
        assert_eq!(mode_of(&folder), 0o755, "{}", folder.display());
    }
    assert_eq!(mode_of(&certs.join("ca.key")), 0o600);
    assert_eq!(mode_of(&certs.join(".meshchart-outputs")), 0o644);
}
