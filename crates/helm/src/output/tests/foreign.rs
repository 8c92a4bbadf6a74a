//! Files the door did not write: carried over as the same files, adopted when they hold the very
//! bytes, an error where the set would write, kept when added while a set was copied.

use super::*;

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
