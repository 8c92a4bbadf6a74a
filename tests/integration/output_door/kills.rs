//! Runs killed at any instant, and concurrent runs into one target: every set lands whole.

use super::*;

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
