//! What the door refuses and how it says so: a corrupt record, names that leave the folder, a
//! target that is a file, overlapping inputs; errors chain their sources.

use super::*;

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
