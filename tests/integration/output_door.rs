//! The output door from the command line (issue 26): fleets and `--output-dir` never lose a
//! user's file, never overlap their inputs, land whole under SIGKILL at any instant, and
//! concurrent runs into one target never mix. `--certs-dir` fills likewise.
//!
//! Kill and concurrency rounds are few by default, to keep `cargo test` short on a small
//! machine; `MESHCHART_DOOR_ROUNDS=50` runs 50 of each (the acceptance), and
//! `MESHCHART_DOOR_CLUSTERS` sets the kill tests' fleet size (default 2,000).

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::cli::{legacy_command, run, scratch_dir};

const RECORD: &str = meshchart::output::RECORD_NAME;
const STAGING: &str = meshchart::output::STAGING_MARKER;
/// A two-template chart that renders in microseconds: fleets of thousands stay quick.
const SMALL_CHART: &str = "tests/fixtures/output-dir";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rounds(default: usize) -> usize {
    env_number("MESHCHART_DOOR_ROUNDS", default)
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Every file under `dir` with its bytes, relative (folders implied); `{}` when `dir` is absent.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .display()
                    .to_string();
                files.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// Staging folders left beside `target` (in its parent) or inside it.
fn staging_left(target: &Path) -> Vec<String> {
    let mut left = Vec::new();
    for folder in [target.parent().expect("a parent"), target] {
        if let Ok(entries) = std::fs::read_dir(folder) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.contains(STAGING) || name.contains(".meshchart-fleet-") {
                    left.push(entry.path().display().to_string());
                }
            }
        }
    }
    left
}

/// A fleet folder of `NAME.yaml` clusters `c<i>` for `i` in `ids`, each naming itself with `tag`.
fn write_fleet(dir: &Path, ids: impl IntoIterator<Item = usize>, tag: &str) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("fleet folder");
    for i in ids {
        std::fs::write(
            dir.join(format!("c{i}.yaml")),
            format!("name: c{i}-{tag}\n"),
        )
        .expect("cluster");
    }
}

fn fleet_command(fleet: &Path, out: &Path) -> Command {
    legacy_command(&[
        "render",
        "--chart",
        SMALL_CHART,
        "--fleet",
        s(fleet),
        "--output-dir",
        s(out),
    ])
}

/// Runs `command` to the end, quietly, and insists it succeeded.
fn complete(mut command: Command) -> Duration {
    let started = Instant::now();
    let output = run(&mut command);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    started.elapsed()
}

fn spawn_quiet(mut command: Command) -> Child {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start meshchart")
}

/// The instant of kill round `round` of `rounds` across a run of `length`: spread evenly with
/// a little jitter over twice the length, so the kills land at many points, the last ones
/// around the switch (a run under load takes up to twice the one measured).
fn kill_delay(round: usize, rounds: usize, length: Duration) -> Duration {
    let jitter = (round * 7919 % 101) as f64 / 101.0;
    let fraction = (round as f64 + jitter) / rounds.max(1) as f64 * 2.0;
    length.mul_f64(fraction)
}

/// SIGKILLs runs of `make(target)` at many points, each time alternating between two targets
/// whose complete outputs are `sets`; after each kill `dir` must hold one of the two sets
/// exactly, and the next complete run must leave the other set and no staging.
fn kill_at_many_points(
    dir: &Path,
    staging_of: &Path,
    sets: [&BTreeMap<String, Vec<u8>>; 2],
    make: impl Fn(usize) -> Command,
    rounds: usize,
) {
    complete(make(0));
    assert!(snapshot(dir) == *sets[0], "the first run leaves set 0");
    let length = complete(make(1));
    complete(make(0));
    let mut current = 0;
    let mut seen = [0usize; 3];
    for round in 0..rounds {
        let next = 1 - current;
        let mut child = spawn_quiet(make(next));
        std::thread::sleep(kill_delay(round, rounds, length));
        let _ = child.kill();
        let _ = child.wait();
        let now = snapshot(dir);
        let which = if now == *sets[current] {
            0
        } else if now == *sets[next] {
            1
        } else {
            let differing: Vec<&String> = now
                .keys()
                .chain(sets[next].keys())
                .filter(|k| {
                    now.get(*k) != sets[current].get(*k) && now.get(*k) != sets[next].get(*k)
                })
                .take(5)
                .collect();
            panic!("round {round}: killed, {dir:?} holds neither complete set: {differing:?}");
        };
        seen[which] += 1;
        complete(make(next));
        assert!(
            snapshot(dir) == *sets[next],
            "round {round}: the next run completes the set"
        );
        let left = staging_left(staging_of);
        assert!(left.is_empty(), "round {round}: staging left: {left:?}");
        current = next;
    }
    eprintln!(
        "{rounds} kills: {} left the old set, {} the new",
        seen[0], seen[1]
    );
}

#[test]
fn a_fleet_killed_at_any_point_leaves_the_old_set_or_the_new() {
    let root = scratch_dir("door-kill-fleet");
    let clusters = env_number("MESHCHART_DOOR_CLUSTERS", 2000);
    let fleets = [root.join("fleet-a"), root.join("fleet-b")];
    // Set B drops ten clusters and adds ten: removals and additions are part of the switch.
    write_fleet(&fleets[0], 0..clusters, "a");
    write_fleet(&fleets[1], 10..clusters + 10, "b");
    let sets: Vec<BTreeMap<String, Vec<u8>>> = fleets
        .iter()
        .enumerate()
        .map(|(i, fleet)| {
            let reference = root.join(format!("reference-{i}"));
            complete(fleet_command(fleet, &reference));
            snapshot(&reference)
        })
        .collect();
    assert_eq!(sets[0].len(), clusters + 1, "the clusters and the record");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out");
    // A file of the user's in the target is carried through every switch.
    std::fs::write(out.join("kustomization.yaml"), "resources: []\n").expect("user's file");
    let with_user_file = |set: &BTreeMap<String, Vec<u8>>| {
        let mut set = set.clone();
        set.insert("kustomization.yaml".into(), b"resources: []\n".to_vec());
        set
    };
    let (a, b) = (with_user_file(&sets[0]), with_user_file(&sets[1]));
    kill_at_many_points(
        &out,
        &out,
        [&a, &b],
        |which| fleet_command(&fleets[which], &out),
        rounds(8),
    );
    // Thousands of small files: not left behind in the temp folder.
    let _ = std::fs::remove_dir_all(&root);
}

fn output_dir_command(out: &Path, which: usize) -> Command {
    let mut args = vec![
        "render",
        "--certs-dir",
        "tests/certs",
        "--output-dir",
        s(out),
    ];
    if which == 1 {
        // Changes some files and drops the heartbeat's template.
        args.extend([
            "--set",
            "disableHeartBeat=true",
            "--set",
            "controllerLogLevel=debug",
        ]);
    }
    let mut command = legacy_command(&args);
    command.env("SOURCE_DATE_EPOCH", "1700000000");
    command
}

#[test]
fn an_output_dir_killed_at_any_point_leaves_the_old_set_or_the_new() {
    let root = scratch_dir("door-kill-output-dir");
    let sets: Vec<BTreeMap<String, Vec<u8>>> = (0..2)
        .map(|which| {
            let reference = root.join(format!("reference-{which}"));
            complete(output_dir_command(&reference, which));
            snapshot(&reference)
        })
        .collect();
    assert_ne!(sets[0], sets[1]);
    assert_ne!(
        sets[0].keys().collect::<Vec<_>>(),
        sets[1].keys().collect::<Vec<_>>(),
        "the sets differ in their files, not only their bytes"
    );
    let out = root.join("out");
    kill_at_many_points(
        &out,
        &out,
        [&sets[0], &sets[1]],
        |which| output_dir_command(&out, which),
        rounds(8),
    );
    // Thousands of small files: not left behind in the temp folder.
    let _ = std::fs::remove_dir_all(&root);
}

/// The material files of a certs dir.
const MATERIAL: [&str; 8] = [
    "ca.crt",
    "ca.key",
    "issuer.crt",
    "issuer.key",
    "proxy-injector.crt",
    "proxy-injector.key",
    "sp-validator.crt",
    "sp-validator.key",
];

fn certs_fill(certs: &Path) -> Command {
    let mut command = legacy_command(&["render", "--certs-dir", s(certs)]);
    command.env("SOURCE_DATE_EPOCH", "1700000000");
    command
}

/// The material files in `certs`, sorted.
fn material_in(certs: &Path) -> Vec<String> {
    let mut names: Vec<String> = snapshot(certs)
        .into_keys()
        .filter(|name| name != RECORD)
        .collect();
    names.sort();
    names
}

#[test]
fn a_certs_fill_killed_at_any_point_leaves_no_set_or_a_whole_one() {
    let root = scratch_dir("door-kill-certs");
    let certs = root.join("certs");
    let length = complete(certs_fill(&certs));
    let rounds = rounds(8);
    let (mut none, mut whole) = (0, 0);
    for round in 0..rounds {
        let _ = std::fs::remove_dir_all(&certs);
        let mut child = spawn_quiet(certs_fill(&certs));
        std::thread::sleep(kill_delay(round, rounds, length));
        let _ = child.kill();
        let _ = child.wait();
        let names = material_in(&certs);
        if names.is_empty() {
            none += 1;
        } else {
            assert_eq!(names, MATERIAL, "round {round}: a partial set");
            whole += 1;
        }
        let stored = snapshot(&certs);
        // The next run completes or reuses the set: its checks pass (issuer signed by the CA,
        // keys matching), and a whole set left by the kill is reused as it was.
        complete(certs_fill(&certs));
        assert_eq!(material_in(&certs), MATERIAL);
        if !names.is_empty() {
            assert!(
                snapshot(&certs) == stored,
                "round {round}: a whole set is reused"
            );
        }
        let left = staging_left(&certs);
        assert!(left.is_empty(), "round {round}: staging left: {left:?}");
    }
    eprintln!("{rounds} kills: {none} left no set, {whole} a whole one");
}

/// The PEM body lines of `pem` (what a manifest quoting it must contain).
fn pem_body(pem: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(pem)
        .lines()
        .filter(|line| !line.starts_with("-----") && !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn two_fleets_and_two_certs_fills_into_one_target_at_once_never_mix() {
    let root = scratch_dir("door-concurrent");
    let fleets = [root.join("fleet-a"), root.join("fleet-b")];
    write_fleet(&fleets[0], 0..300, "a");
    write_fleet(&fleets[1], 100..400, "b");
    let sets: Vec<BTreeMap<String, Vec<u8>>> = fleets
        .iter()
        .enumerate()
        .map(|(i, fleet)| {
            let reference = root.join(format!("reference-{i}"));
            complete(fleet_command(fleet, &reference));
            snapshot(&reference)
        })
        .collect();
    let out = root.join("out");
    let certs = root.join("certs");
    let rounds = rounds(5);
    let mut winners = [0usize; 2];
    for round in 0..rounds {
        let _ = std::fs::remove_dir_all(&certs);
        let piped = |mut command: Command| {
            command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start meshchart")
        };
        let children: Vec<Child> = vec![
            piped(fleet_command(&fleets[0], &out)),
            piped(fleet_command(&fleets[1], &out)),
            piped(certs_fill(&certs)),
            piped(certs_fill(&certs)),
        ];
        let outputs: Vec<std::process::Output> = children
            .into_iter()
            .map(|child| child.wait_with_output().expect("finish"))
            .collect();
        for output in &outputs {
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let now = snapshot(&out);
        let which = sets
            .iter()
            .position(|set| *set == now)
            .unwrap_or_else(|| panic!("round {round}: the fleets' outputs are mixed"));
        winners[which] += 1;
        assert!(staging_left(&out).is_empty() && staging_left(&certs).is_empty());
        assert_eq!(material_in(&certs), MATERIAL, "round {round}");
        // Both renders used the committed trust anchor, and the folder's set checks out.
        let anchor = pem_body(&std::fs::read(certs.join("ca.crt")).expect("ca.crt"));
        for output in &outputs[2..] {
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                anchor.iter().all(|line| stdout.contains(line.as_str())),
                "round {round}: a render printed a trust anchor that was not kept"
            );
        }
        complete(certs_fill(&certs));
    }
    eprintln!(
        "{rounds} rounds: fleet a won {}, fleet b {}",
        winners[0], winners[1]
    );
    // Thousands of small files: not left behind in the temp folder.
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn sigterm_removes_the_runs_staging_at_once() {
    let root = scratch_dir("door-sigterm");
    let fleet = root.join("fleet");
    write_fleet(&fleet, 0..2000, "a");
    let out = root.join("out");
    let length = complete(fleet_command(&fleet, &out));
    write_fleet(&fleet, 0..2000, "b");
    let before = snapshot(&out);
    for round in 0..rounds(4) {
        let mut child = spawn_quiet(fleet_command(&fleet, &out));
        std::thread::sleep(length.mul_f64(0.2 + 0.15 * round as f64));
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let status = child.wait().expect("wait");
        let left = staging_left(&out);
        assert!(
            left.is_empty(),
            "round {round} ({status}): staging left: {left:?}"
        );
        let now = snapshot(&out);
        assert!(now == before || now.len() == before.len(), "round {round}");
        if now != before {
            break;
        }
    }
    // Thousands of small files: not left behind in the temp folder.
    let _ = std::fs::remove_dir_all(&root);
}

// The fleet rules from the command line.

fn fleet_output(fleet: &Path, out: &Path) -> std::process::Output {
    run(&mut fleet_command(fleet, out))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

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

/// `command` run under umask 000, where a file made with the default mode is 0666.
fn under_umask_000(mut command: Command) -> std::process::Output {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: umask(2) is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    run(&mut command)
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
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
