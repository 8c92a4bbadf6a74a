//! Staging folders: beside the target with a random name, removed when a killed run left them,
//! never confused with a user's folder of a similar name.

use super::*;

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
