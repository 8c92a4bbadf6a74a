//! Whole sets: what a commit writes, keeps, records and removes, into a folder or a subfolder,
//! and what dropping an open set leaves (nothing).

use super::*;

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
