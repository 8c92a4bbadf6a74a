//! The door's rules, one test each: whole sets, the lock, the record, foreign files, overlap,
//! stale staging.

use super::*;
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt as _;
use std::sync::mpsc;
use std::time::Duration;

fn scratch() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = Utf8PathBuf::from_path_buf(dir.path().to_owned()).expect("UTF-8 path");
    (dir, path)
}

/// Every entry under `dir` (files and folders), relative, sorted.
fn tree(dir: &Utf8Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in folder.read_dir_utf8().expect("readable") {
            let entry = entry.expect("entry");
            let relative = entry.path().strip_prefix(dir).expect("inside").to_string();
            if entry.file_type().expect("type").is_dir() {
                stack.push(entry.path().to_owned());
                out.push(format!("{relative}/"));
            } else {
                out.push(relative);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Utf8Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

/// Writes `files` (name, text) as one set into `root` and commits it with `removal`.
fn put(root: &Utf8Path, files: &[(&str, &str)], removal: Removal) -> CommitReport {
    let set = OutputSet::begin(root, None).expect("begin");
    for (name, text) in files {
        set.write(name, text.as_bytes(), false).expect("write");
    }
    set.commit(removal).expect("commit")
}

#[test]
fn a_set_lands_with_its_record_and_no_staging() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let report = put(
        &out,
        &[("a.yaml", "a"), ("sub/b.yaml", "b")],
        Removal::Stale,
    );
    assert!(report.atomic);
    assert_eq!(report.written, [out.join("a.yaml"), out.join("sub/b.yaml")]);
    assert_eq!(tree(&out), [RECORD_NAME, "a.yaml", "sub/", "sub/b.yaml"]);
    assert_eq!(read(&out.join("sub/b.yaml")), "b");
    let recorded = record::read(&out).expect("record");
    assert_eq!(
        recorded.into_iter().collect::<Vec<_>>(),
        ["a.yaml", "sub/b.yaml"]
    );
    assert_eq!(
        tree(&parent),
        [
            "out/",
            &format!("out/{RECORD_NAME}"),
            "out/a.yaml",
            "out/sub/",
            "out/sub/b.yaml"
        ]
    );
}

#[test]
fn an_unchanged_set_touches_nothing() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    let before = std::fs::metadata(out.join("a.yaml")).expect("meta");
    let folder_before = std::fs::metadata(&out).expect("meta");
    let report = put(&out, &[("a.yaml", "a")], Removal::Stale);
    assert!(report.written.is_empty());
    assert_eq!(report.unchanged, [out.join("a.yaml")]);
    let after = std::fs::metadata(out.join("a.yaml")).expect("meta");
    assert_eq!(before.ino(), after.ino());
    assert_eq!(before.mtime_nsec(), after.mtime_nsec());
    assert_eq!(
        folder_before.ino(),
        std::fs::metadata(&out).expect("meta").ino()
    );
}

#[test]
fn files_the_last_run_wrote_and_this_one_did_not_are_removed() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a"), ("b.yaml", "b")], Removal::Stale);
    let report = put(&out, &[("a.yaml", "a2")], Removal::Stale);
    assert_eq!(report.written, [out.join("a.yaml")]);
    assert_eq!(report.removed, [out.join("b.yaml")]);
    assert_eq!(tree(&out), [RECORD_NAME, "a.yaml"]);
    assert_eq!(read(&out.join("a.yaml")), "a2");
}

#[test]
fn without_removal_earlier_outputs_stay_and_stay_recorded() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a"), ("b.yaml", "b")], Removal::Stale);
    let report = put(&out, &[("a.yaml", "a2")], Removal::None);
    assert!(report.removed.is_empty());
    assert_eq!(read(&out.join("b.yaml")), "b");
    // A later full run still knows b.yaml is its own.
    let report = put(&out, &[("a.yaml", "a2")], Removal::Stale);
    assert_eq!(report.removed, [out.join("b.yaml")]);
}

#[test]
fn foreign_files_are_carried_over_as_the_same_files() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    std::fs::create_dir_all(out.join("mine/deep")).expect("folder");
    std::fs::write(out.join("kustomization.yaml"), "resources: []").expect("write");
    std::fs::write(out.join("mine/deep/notes.txt"), "keep me").expect("write");
    std::os::unix::fs::symlink("kustomization.yaml", out.join("link")).expect("link");
    let inode = std::fs::metadata(out.join("kustomization.yaml"))
        .expect("meta")
        .ino();
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    let report = put(&out, &[("b.yaml", "b")], Removal::Stale);
    assert_eq!(report.removed, [out.join("a.yaml")]);
    assert_eq!(
        tree(&out),
        [
            RECORD_NAME,
            "b.yaml",
            "kustomization.yaml",
            "link",
            "mine/",
            "mine/deep/",
            "mine/deep/notes.txt"
        ]
    );
    assert_eq!(read(&out.join("mine/deep/notes.txt")), "keep me");
    assert_eq!(
        std::fs::read_link(out.join("link"))
            .expect("link")
            .as_os_str(),
        "kustomization.yaml"
    );
    let after = std::fs::metadata(out.join("kustomization.yaml")).expect("meta");
    assert_eq!(
        after.ino(),
        inode,
        "the user's file is the same file, not a copy"
    );
}

#[test]
fn a_foreign_file_where_the_set_writes_is_an_error_naming_each_and_nothing_changes() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    std::fs::create_dir_all(out.join("c.yaml")).expect("a folder in the way");
    std::fs::write(out.join("a.yaml"), "user's").expect("write");
    std::fs::write(out.join("b.yaml"), "user's").expect("write");
    let before = tree(&out);
    let set = OutputSet::begin(&out, None).expect("begin");
    let refused = set
        .refuse_foreign(["a.yaml", "b.yaml", "c.yaml", "d.yaml"])
        .expect_err("foreign files");
    let text = refused.to_string();
    for name in ["a.yaml", "b.yaml", "c.yaml"] {
        assert!(text.contains(out.join(name).as_str()), "{text}");
    }
    assert!(!text.contains("d.yaml"), "{text}");
    for name in ["a.yaml", "b.yaml", "d.yaml"] {
        set.write(name, b"ours", false).expect("staged");
    }
    let error = set
        .commit(Removal::Stale)
        .expect_err("refused at commit too");
    assert!(
        matches!(&error, OutputError::Foreign { files, .. } if files.len() == 2),
        "{error}"
    );
    assert_eq!(tree(&out), before);
    assert_eq!(read(&out.join("a.yaml")), "user's");
    assert_eq!(
        tree(&parent)
            .iter()
            .filter(|p| p.contains(STAGING_MARKER))
            .count(),
        0
    );
}

#[test]
fn a_foreign_file_holding_the_very_bytes_is_adopted() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    std::fs::create_dir_all(&out).expect("folder");
    std::fs::write(out.join("a.yaml"), "a").expect("write");
    let report = put(&out, &[("a.yaml", "a")], Removal::Stale);
    assert_eq!(report.unchanged, [out.join("a.yaml")]);
    assert!(record::read(&out).expect("record").contains("a.yaml"));
}

#[test]
fn a_file_where_a_folder_of_the_set_goes_is_named() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    std::fs::create_dir_all(&out).expect("folder");
    std::fs::write(out.join("templates"), "user's").expect("write");
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write("templates/a.yaml", b"a", false).expect("staged");
    let error = set.commit(Removal::Stale).expect_err("in the way");
    assert!(
        error.to_string().contains(out.join("templates").as_str()),
        "{error}"
    );
    assert_eq!(read(&out.join("templates")), "user's");
}

#[test]
fn a_recorded_file_the_user_made_a_folder_is_left_with_its_contents() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a"), ("b.yaml", "b")], Removal::Stale);
    std::fs::remove_file(out.join("b.yaml")).expect("remove");
    std::fs::create_dir(out.join("b.yaml")).expect("folder");
    std::fs::write(out.join("b.yaml/x"), "x").expect("write");
    let report = put(&out, &[("a.yaml", "a2")], Removal::Stale);
    assert!(report.removed.is_empty());
    assert_eq!(read(&out.join("b.yaml/x")), "x");
}

#[test]
fn a_subfolder_target_is_switched_alone() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    std::fs::create_dir_all(&out).expect("folder");
    std::fs::write(out.join("beside.yaml"), "user's").expect("write");
    let set = OutputSet::begin(&out, Some("demo")).expect("begin");
    set.write("templates/a.yaml", b"a", false).expect("write");
    let report = set.commit(Removal::Stale).expect("commit");
    assert_eq!(report.written, [out.join("demo/templates/a.yaml")]);
    assert_eq!(
        tree(&out),
        [
            "beside.yaml",
            "demo/",
            &format!("demo/{RECORD_NAME}"),
            "demo/templates/",
            "demo/templates/a.yaml"
        ]
    );
}

#[test]
fn dropping_an_open_set_changes_nothing_and_removes_what_it_made() {
    let (_keep, parent) = scratch();
    let out = parent.join("new/out");
    {
        let set = OutputSet::begin(&out, None).expect("begin");
        set.write("a.yaml", b"a", false).expect("write");
    }
    assert!(
        tree(&parent).is_empty(),
        "folders made for nothing go again"
    );
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    {
        let set = OutputSet::begin(&out, None).expect("begin");
        set.write("a.yaml", b"changed", false).expect("write");
        set.write("b.yaml", b"b", false).expect("write");
    }
    assert_eq!(tree(&out), [RECORD_NAME, "a.yaml"]);
    assert_eq!(read(&out.join("a.yaml")), "a");
    assert_eq!(
        tree(&parent.join("new"))
            .iter()
            .filter(|p| p.contains(STAGING_MARKER))
            .count(),
        0
    );
}

#[test]
fn staging_is_beside_the_target_with_a_random_name() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write_with("a.yaml", b"a", false, |path, bytes| {
        assert!(!path.starts_with(&out), "{path} is inside {out}");
        let name = path
            .strip_prefix(&parent)
            .expect("beside")
            .components()
            .next()
            .expect("a folder")
            .to_string();
        let suffix = name
            .strip_prefix(".out.meshchart-staging-")
            .expect("marker");
        assert_eq!(suffix.len(), 16, "{name}");
        assert!(!suffix.contains(&std::process::id().to_string()) || suffix.len() == 16);
        std::fs::write(path, bytes)
    })
    .expect("write");
    set.commit(Removal::Stale).expect("commit");
    assert_eq!(
        tree(&parent),
        ["out/", &format!("out/{RECORD_NAME}"), "out/a.yaml"]
    );
}

#[test]
fn stale_staging_of_killed_runs_is_removed() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write("b.yaml", b"b", false).expect("write");
    set.killed();
    assert_eq!(
        cleanup::staging_of(&out.canonicalize_utf8().expect("real")).len(),
        1
    );
    put(&out, &[("a.yaml", "a2")], Removal::Stale);
    assert_eq!(
        tree(&parent),
        ["out/", "out/.meshchart-outputs", "out/a.yaml"]
    );
}

#[test]
fn folders_of_the_user_named_like_staging_are_never_removed() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let users = [
        parent.join(".out.meshchart-staging-42"),
        parent.join(".out.meshchart-staging-0123456789abcdef"),
        out.join(".meshchart-staging-2024"),
        out.join(".meshchart-staging-fedcba9876543210"),
        out.join(".meshchart-fleet-7"),
    ];
    for folder in &users {
        std::fs::create_dir_all(folder).expect("folder");
        std::fs::write(folder.join("notes.txt"), "mine").expect("write");
    }
    // A copy of a real staging folder's owner file does not name its new folder.
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write_with("a.yaml", b"a", false, |staged, bytes| {
        let staging = staged.parent().and_then(Utf8Path::parent).expect("staging");
        std::fs::copy(
            staging.join(cleanup::OWNER_FILE),
            users[1].join(cleanup::OWNER_FILE),
        )?;
        std::fs::write(staged, bytes)
    })
    .expect("write");
    set.commit(Removal::Stale).expect("commit");
    put(&out, &[("a.yaml", "a2")], Removal::Stale);
    for folder in &users {
        assert_eq!(read(&folder.join("notes.txt")), "mine", "{folder}");
    }
}

#[test]
fn a_second_set_waits_for_the_first_to_commit() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let first = OutputSet::begin(&out, None).expect("begin");
    first.write("a.yaml", b"first", false).expect("write");
    let (began, waiting) = mpsc::channel();
    let out2 = out.clone();
    let second = std::thread::spawn(move || {
        let set = OutputSet::begin(&out2, None).expect("begin");
        began.send(()).expect("send");
        // It sees the first set whole: its record owns a.yaml.
        assert!(set.is_recorded("a.yaml"));
        set.write("a.yaml", b"second", false).expect("write");
        set.commit(Removal::Stale).expect("commit")
    });
    assert!(
        waiting.recv_timeout(Duration::from_millis(300)).is_err(),
        "the second set began while the first held the lock"
    );
    first.commit(Removal::Stale).expect("commit");
    waiting
        .recv_timeout(Duration::from_secs(10))
        .expect("began after the commit");
    second.join().expect("second set");
    assert_eq!(read(&out.join("a.yaml")), "second");
}

#[test]
fn many_sets_into_one_target_at_once_are_never_mixed() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let names: Vec<String> = (0..40).map(|i| format!("c{i}.yaml")).collect();
    let threads: Vec<_> = (0..4)
        .map(|writer| {
            let (out, names) = (out.clone(), names.clone());
            std::thread::spawn(move || {
                for round in 0..5 {
                    let set = OutputSet::begin(&out, None).expect("begin");
                    let text = format!("writer {writer} round {round}");
                    for name in &names[..20 + writer * 5] {
                        set.write(name, text.as_bytes(), false).expect("write");
                    }
                    set.commit(Removal::Stale).expect("commit");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("writer");
    }
    let files: Vec<String> = tree(&out)
        .into_iter()
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    let texts: BTreeSet<String> = files.iter().map(|n| read(&out.join(n))).collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    let writer: usize = texts
        .iter()
        .next()
        .and_then(|t| t.split(' ').nth(1))
        .and_then(|w| w.parse().ok())
        .expect("a writer");
    assert_eq!(files.len(), 20 + writer * 5, "{files:?}");
    assert!(!tree(&parent).iter().any(|p| p.contains(STAGING_MARKER)));
}

#[test]
fn a_corrupt_record_is_an_error_naming_it_and_nothing_is_deleted() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    std::fs::write(out.join(RECORD_NAME), "\"a.yaml\"\n\"../../etc/passwd\"\n").expect("write");
    let error = OutputSet::begin(&out, None).expect_err("corrupt");
    let text = error.to_string();
    assert!(text.contains(RECORD_NAME) && text.contains(":2:"), "{text}");
    std::fs::write(out.join(RECORD_NAME), "not json\n").expect("write");
    assert!(OutputSet::begin(&out, None).is_err());
    assert_eq!(read(&out.join("a.yaml")), "a");
}

#[test]
fn names_that_leave_the_folder_are_refused() {
    let (_keep, parent) = scratch();
    let set = OutputSet::begin(&parent.join("out"), None).expect("begin");
    for name in [
        "../x",
        "/etc/x",
        "a//b",
        "./a",
        "",
        RECORD_NAME,
        "a/../../b",
    ] {
        assert!(
            matches!(
                set.write(name, b"x", false),
                Err(OutputError::BadName { .. })
            ),
            "{name:?}"
        );
    }
    assert!(OutputSet::begin(&parent.join("out2"), Some("../x")).is_err());
}

#[test]
fn names_with_newlines_round_trip_through_the_record() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a\nb.yaml", "x"), ("c.yaml", "y")], Removal::Stale);
    let report = put(&out, &[("c.yaml", "y")], Removal::Stale);
    assert_eq!(report.removed, [out.join("a\nb.yaml")]);
}

#[test]
fn secret_files_get_mode_0600() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write("ca.key", b"key", true).expect("write");
    set.write("ca.crt", b"crt", false).expect("write");
    set.commit(Removal::None).expect("commit");
    let mode = |name: &str| std::fs::metadata(out.join(name)).expect("meta").mode() & 0o777;
    assert_eq!(mode("ca.key"), 0o600);
    assert_eq!(mode("ca.crt"), 0o644);
}

#[test]
fn a_target_that_is_a_file_is_refused() {
    let (_keep, parent) = scratch();
    std::fs::write(parent.join("out"), "x").expect("write");
    assert!(OutputSet::begin(&parent.join("out"), None).is_err());
    assert_eq!(read(&parent.join("out")), "x");
}

#[test]
fn overlapping_inputs_are_refused_naming_both() {
    let (_keep, parent) = scratch();
    std::fs::create_dir_all(parent.join("fleet/a")).expect("folder");
    std::fs::create_dir_all(parent.join("certs")).expect("folder");
    std::os::unix::fs::symlink(parent.join("fleet"), parent.join("link")).expect("link");
    let fleet = parent.join("fleet");
    let inputs = [Input {
        what: "fleet folder",
        path: &fleet,
    }];
    for (out, relation) in [
        (parent.join("fleet"), "is the"),
        (parent.join("link"), "is the"),
        (parent.join("fleet/out"), "is inside the"),
        (parent.join("fleet/a/../out"), "is inside the"),
        (parent.clone(), "contains the"),
    ] {
        let error = refuse_overlap("--output-dir", &out, &inputs).expect_err("overlap");
        let text = error.to_string();
        assert!(
            text.contains(out.as_str()) && text.contains(fleet.as_str()) && text.contains(relation),
            "{text}"
        );
    }
    refuse_overlap("--output-dir", &parent.join("out"), &inputs).expect("a sibling is fine");
    refuse_overlap("--output-dir", &parent.join("fleetish"), &inputs)
        .expect("a prefix is not a parent");
}

#[test]
fn errors_chain_their_sources() {
    let (_keep, parent) = scratch();
    std::fs::write(parent.join("file"), "x").expect("write");
    let error = OutputSet::begin(&parent.join("file/out"), None).expect_err("under a file");
    assert!(std::error::Error::source(&error).is_some(), "{error}");
    assert!(error.to_string().contains("file/out"), "{error}");
}

#[test]
fn files_added_or_replaced_while_the_set_was_copied_are_carried_over() {
    let (_keep, parent) = scratch();
    let (old, target) = (parent.join("old"), parent.join("target"));
    std::fs::create_dir_all(old.join("sub")).expect("folder");
    std::fs::create_dir_all(target.join("sub")).expect("folder");
    for (name, text) in [("same.txt", "same"), ("sub/same.txt", "same")] {
        std::fs::write(old.join(name), text).expect("write");
        std::fs::hard_link(old.join(name), target.join(name)).expect("link");
    }
    // Replaced by the user after the copy: another file in the old folder.
    std::fs::write(target.join("edited.txt"), "before").expect("write");
    std::fs::write(old.join("edited.txt"), "after").expect("write");
    // Added by the user after the copy.
    std::fs::write(old.join("sub/late.txt"), "late").expect("write");
    std::fs::create_dir_all(old.join("late-folder")).expect("folder");
    std::fs::write(old.join("late-folder/x"), "x").expect("write");
    // The set's own file and record: the new versions stay.
    std::fs::write(old.join("out.yaml"), "old output").expect("write");
    std::fs::write(target.join("out.yaml"), "new output").expect("write");
    std::fs::write(old.join(RECORD_NAME), "old record").expect("write");
    std::fs::write(target.join(RECORD_NAME), "new record").expect("write");
    let skip: BTreeSet<&str> = ["out.yaml"].into_iter().collect();
    set::carry_over_late_changes(&old, &target, &skip);
    assert_eq!(read(&target.join("edited.txt")), "after");
    assert_eq!(read(&target.join("sub/late.txt")), "late");
    assert_eq!(read(&target.join("late-folder/x")), "x");
    assert_eq!(read(&target.join("out.yaml")), "new output");
    assert_eq!(read(&target.join(RECORD_NAME)), "new record");
    assert_eq!(read(&target.join("same.txt")), "same");
}

#[test]
fn an_adopted_file_may_be_replaced_and_nothing_else_of_the_users_is() {
    let (_keep, parent) = scratch();
    let out = parent.join("certs");
    std::fs::create_dir(&out).expect("folder");
    std::fs::write(out.join("issuer.crt"), "made by step").expect("user file");
    std::fs::write(out.join("notes.txt"), "mine").expect("user file");
    let refused = OutputSet::begin(&out, None).expect("begin");
    refused.write("issuer.crt", b"new", false).expect("staged");
    assert!(matches!(
        refused.commit(Removal::None),
        Err(OutputError::Foreign { .. })
    ));
    let mut set = OutputSet::begin(&out, None).expect("begin");
    set.adopt("issuer.crt").expect("adopted");
    set.write("issuer.crt", b"new", false).expect("staged");
    set.write("notes.txt", b"theirs", false).expect("staged");
    assert!(matches!(
        set.commit(Removal::None),
        Err(OutputError::Foreign { files, .. }) if files == [out.join("notes.txt")]
    ));
    let mut set = OutputSet::begin(&out, None).expect("begin");
    set.adopt("issuer.crt").expect("adopted");
    set.write("issuer.crt", b"new", false).expect("staged");
    set.commit(Removal::None).expect("commit");
    assert_eq!(read(&out.join("issuer.crt")), "new");
    assert_eq!(read(&out.join("notes.txt")), "mine");
}

#[test]
fn a_file_marked_for_removal_goes_even_when_the_rest_stays() {
    let (_keep, parent) = scratch();
    let out = parent.join("certs");
    put(
        &out,
        &[("a.crt", "a"), ("retired/old.crt", "old")],
        Removal::None,
    );
    std::fs::write(out.join("user.crt"), "mine").expect("user file");
    let set = OutputSet::begin(&out, None).expect("begin");
    set.remove("retired/old.crt");
    // Not in the record: never removed.
    set.remove("user.crt");
    set.write("b.crt", b"b", false).expect("staged");
    let report = set.commit(Removal::None).expect("commit");
    assert_eq!(report.removed, [out.join("retired/old.crt")]);
    assert_eq!(
        tree(&out),
        [RECORD_NAME, "a.crt", "b.crt", "retired/", "user.crt"]
    );
    let recorded = OutputSet::begin(&out, None).expect("begin");
    assert_eq!(recorded.recorded().collect::<Vec<_>>(), ["a.crt", "b.crt"]);
}

fn mode(path: &Utf8Path) -> u32 {
    std::fs::symlink_metadata(path).expect("meta").mode() & 0o777
}

#[test]
fn an_output_holding_a_secret_or_a_private_key_is_owner_only_from_staging_on() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let set = OutputSet::begin(&out, None).expect("begin");
    let outputs: [(&str, &[u8], u32); 4] = [
        (
            "secret.yaml",
            b"apiVersion: v1\nkind: Secret\ndata: {}\n",
            0o600,
        ),
        (
            "list.yaml",
            b"kind: List\nitems:\n- kind: \"Secret\"\n",
            0o600,
        ),
        ("key.pem", b"-----BEGIN EC PRIVATE KEY-----\nAAAA\n", 0o600),
        (
            "config.yaml",
            b"kind: ConfigMap\ndata:\n  kind: Secrets\n",
            0o644,
        ),
    ];
    for (name, bytes, expected) in outputs {
        set.write_with(name, bytes, false, |staged, bytes| {
            // Already created, with its final mode, before a byte is written.
            assert_eq!(mode(staged), expected, "{name} while staged");
            std::fs::write(staged, bytes)
        })
        .expect("write");
    }
    set.commit(Removal::Stale).expect("commit");
    for (name, _, expected) in outputs {
        assert_eq!(mode(&out.join(name)), expected, "{name} in place");
    }
}

#[test]
fn staging_folders_are_owner_only() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let set = OutputSet::begin(&out, None).expect("begin");
    set.write_with("a.yaml", b"a", false, |staged, bytes| {
        let staging = staged
            .parent()
            .and_then(Utf8Path::parent)
            .expect("the staging folder");
        assert_eq!(mode(staging), 0o700, "{staging}");
        std::fs::write(staged, bytes)
    })
    .expect("write");
}

/// Opens a set on `out` that goes in file by file (as into a mount point) and is killed after
/// `moves` files are in place.
fn killed_file_by_file(out: &Utf8Path, files: &[(&str, &str)], moves: usize) {
    let mut set = OutputSet::begin(out, None).expect("begin");
    set.file_by_file = Some(moves);
    for (name, text) in files {
        set.write(name, text.as_bytes(), false).expect("write");
    }
    set.commit(Removal::Stale).expect_err("killed midway");
}

#[test]
fn a_file_by_file_switch_killed_midway_is_completed_by_the_next_run_or_reader() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    let old = [
        ("a.yaml", "old"),
        ("b.yaml", "old"),
        ("c.yaml", "old"),
        ("d.yaml", "old"),
    ];
    let new = [("a.yaml", "new"), ("b.yaml", "new"), ("c.yaml", "new")];
    let whole_new = [RECORD_NAME, "a.yaml", "b.yaml", "c.yaml"];
    put(&out, &old, Removal::Stale);
    killed_file_by_file(&out, &new, 1);
    // A reader waits for the set to be whole.
    {
        let _reading = TargetLock::shared(&out).expect("shared lock");
        assert_eq!(tree(&out), whole_new);
        for (name, text) in new {
            assert_eq!(read(&out.join(name)), text, "{name}");
        }
    }
    put(&out, &old, Removal::Stale);
    killed_file_by_file(&out, &new, 2);
    // The next writer completes the set before it reads the record.
    let set = OutputSet::begin(&out, None).expect("begin");
    assert_eq!(
        set.recorded().collect::<Vec<_>>(),
        ["a.yaml", "b.yaml", "c.yaml"]
    );
    drop(set);
    assert_eq!(tree(&out), whole_new);
    assert!(tree(&parent).iter().all(|p| !p.contains(STAGING_MARKER)));
}

#[test]
fn files_a_user_creates_in_the_target_while_sets_are_switched_are_never_lost() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("a.yaml", "a")], Removal::Stale);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let user = {
        let (out, stop) = (out.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut made = Vec::new();
            // Some from a process whose working folder is the target (a shell in it).
            let inside = std::fs::File::open(&out).expect("open the target");
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let name = format!("user-{n}.txt");
                if n % 2 == 0 {
                    // A path walked into the old folder just before it went fails (ENOENT): an
                    // error the writer sees, not a file lost.
                    if std::fs::write(out.join(&name), "mine").is_err() {
                        continue;
                    }
                } else {
                    use std::os::fd::AsRawFd as _;
                    let c_name = std::ffi::CString::new(name.clone()).expect("name");
                    // SAFETY: a NUL-terminated name and a descriptor open for the call.
                    let fd = unsafe {
                        libc::openat(
                            inside.as_raw_fd(),
                            c_name.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_EXCL,
                            0o644,
                        )
                    };
                    if fd < 0 {
                        continue;
                    }
                    // SAFETY: the descriptor just opened.
                    unsafe { libc::close(fd) };
                }
                made.push(name);
                n += 1;
            }
            made
        })
    };
    for round in 0..40 {
        let text = format!("round {round}");
        put(
            &out,
            &[("a.yaml", &text), ("b.yaml", &text)],
            Removal::Stale,
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let made = user.join().expect("user thread");
    // Files still arriving in an old folder as a run ended are moved in by the next run.
    put(&out, &[("a.yaml", "last")], Removal::Stale);
    let lost: Vec<&String> = made
        .iter()
        .filter(|name| !out.join(name).exists())
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} lost, the first: {:?}",
        lost.len(),
        made.len(),
        lost.first()
    );
}

#[test]
fn a_file_a_user_put_in_the_old_folder_of_a_run_killed_right_after_its_switch_is_kept() {
    use std::os::fd::AsRawFd as _;
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(
        &out,
        &[("a.yaml", "old"), ("gone.yaml", "old")],
        Removal::Stale,
    );
    let before_the_switch = std::fs::File::open(&out).expect("open the target");
    let mut set = OutputSet::begin(&out, None).expect("begin");
    set.killed_after_exchange = true;
    set.write("a.yaml", b"new", false).expect("write");
    set.commit(Removal::Stale).expect("killed after the switch");
    // A shell whose working folder was the target writes into the old folder.
    let name = std::ffi::CString::new("late.txt").expect("name");
    // SAFETY: a NUL-terminated name and a descriptor open for the call.
    let fd = unsafe {
        libc::openat(
            before_the_switch.as_raw_fd(),
            name.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_EXCL,
            0o644,
        )
    };
    assert!(fd >= 0, "the old folder is still there");
    // SAFETY: the descriptor just opened.
    unsafe { libc::close(fd) };
    put(&out, &[("a.yaml", "newer")], Removal::Stale);
    assert_eq!(tree(&out), [RECORD_NAME, "a.yaml", "late.txt"]);
    assert!(tree(&parent).iter().all(|p| !p.contains(STAGING_MARKER)));
}

#[test]
fn a_write_that_fails_midway_leaves_no_half_file_to_land() {
    let (_keep, parent) = scratch();
    let out = parent.join("out");
    put(&out, &[("kept.yaml", "old")], Removal::Stale);
    let set = OutputSet::begin(&out, None).expect("begin");
    let full_disk = |staged: &Utf8Path, bytes: &[u8]| {
        std::fs::write(staged, &bytes[..bytes.len() / 2])?;
        Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
    };
    for name in ["kept.yaml", "new.yaml"] {
        let error = set
            .write_with(name, b"whole output", false, full_disk)
            .expect_err("disk full");
        assert!(error.to_string().contains(name), "{error}");
        assert_eq!(
            std::error::Error::source(&error)
                .and_then(|e| e.downcast_ref::<std::io::Error>())
                .and_then(std::io::Error::raw_os_error),
            Some(libc::ENOSPC)
        );
    }
    // What --keep-going does with a cluster that failed: its last output stays.
    set.keep("kept.yaml");
    set.write("other.yaml", b"whole", false).expect("write");
    set.commit(Removal::Stale).expect("commit");
    assert_eq!(tree(&out), [RECORD_NAME, "kept.yaml", "other.yaml"]);
    assert_eq!(read(&out.join("kept.yaml")), "old");
}
