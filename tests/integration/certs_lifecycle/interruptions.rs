//! Renewals killed or repeated within a second, folders of other users, linked retired folders, a folder with only a root.

use super::*;

#[test]
fn a_renewal_killed_at_any_point_leaves_the_old_issuer_or_the_whole_new_state() {
    let work = scratch_dir("certs-kill");
    let dir = work.join("c");
    let original = files(&fixtures().join("kept"));
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    let (mut old_seen, mut new_seen) = (0, 0);
    for round in 0..24u64 {
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(&fixtures().join("kept"), &dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .args(["certs", "renew", "c"])
            .current_dir(&work)
            .env("SOURCE_DATE_EPOCH", GOLDEN_EPOCH)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(round * round * 60));
        let _ = child.kill();
        let _ = child.wait();
        let now = files(&dir);
        if now == original {
            old_seen += 1;
        } else {
            new_seen += 1;
            assert_eq!(now["ca.crt"], original["ca.crt"], "round {round}");
            assert_ne!(now["issuer.crt"], original["issuer.crt"], "round {round}");
            assert_eq!(
                now["retired/issuer-20231114T221320Z.crt"], original["issuer.crt"],
                "round {round}"
            );
            assert_eq!(
                now["retired/issuer-20231114T221320Z.key"], original["issuer.key"],
                "round {round}"
            );
        }
        // Either state renders: the issuer key is its certificate's, signed by the root.
        ok(&meshchart_in(&work, GOLDEN_EPOCH, &render));
    }
    // The next run removes what a killed one left beside the folder.
    ok(&meshchart_in(&work, GOLDEN_EPOCH, &["certs", "renew", "c"]));
    let leftovers: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    eprintln!("killed renewals: {old_seen} left the old state, {new_seen} the new one");
    let _ = std::fs::remove_dir_all(&work);
}

/// The names under `dir/retired/`, sorted.
fn retired_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("retired"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn two_renewals_in_one_second_keep_both_retired_issuers() {
    let work = scratch_dir("certs-renew-twice");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let first = read(&dir, "issuer.crt");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let second = read(&dir, "issuer.crt");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let names = retired_names(&dir);
    assert_eq!(names.len(), 4, "two certificates and two keys: {names:?}");
    let kept: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".crt"))
        .map(|n| read(&dir, &format!("retired/{n}")))
        .collect();
    assert!(kept.contains(&first) && kept.contains(&second), "{names:?}");
}

#[test]
fn a_renewal_then_a_rotation_in_one_second_keep_every_retired_issuer() {
    let work = scratch_dir("certs-renew-rotate");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let renewed = read(&dir, "issuer.crt");
    ok(&meshchart_in(
        &work,
        LATER,
        &["certs", "rotate-root", "c", "--phase", "bundle"],
    ));
    ok(&meshchart_in(
        &work,
        LATER,
        &["certs", "rotate-root", "c", "--phase", "issuer"],
    ));
    let kept: Vec<String> = retired_names(&dir)
        .iter()
        .filter(|n| n.starts_with("issuer-") && n.ends_with(".crt"))
        .map(|n| read(&dir, &format!("retired/{n}")))
        .collect();
    assert_eq!(kept.len(), 2, "{:?}", retired_names(&dir));
    assert!(kept.contains(&renewed));
}

#[test]
fn a_certs_folder_of_another_user_stays_theirs_through_a_renewal() {
    use std::os::unix::fs::MetadataExt as _;
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root, so the folder cannot be given to another user");
        return;
    }
    let work = scratch_dir("certs-owner");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let owner = |path: &Path| {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.uid(), meta.gid())
    };
    for path in [dir.clone(), dir.join("issuer.crt"), dir.join("issuer.key")] {
        std::os::unix::fs::chown(&path, Some(12345), Some(12345)).unwrap();
    }
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    for path in [dir.clone(), dir.join("issuer.crt"), dir.join("issuer.key")] {
        assert_eq!(owner(&path), (12345, 12345), "{}", path.display());
    }
    assert_eq!(
        std::fs::metadata(dir.join("issuer.key")).unwrap().mode() & 0o777,
        0o600
    );
}

#[test]
fn a_retired_folder_linked_elsewhere_is_named_once() {
    let work = scratch_dir("certs-retired-link");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let elsewhere = work.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, work.join("c/retired")).unwrap();
    let out = meshchart_in(&work, LATER, &["certs", "renew", "c"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("c/retired").count(), 1, "{stderr}");
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
}

#[test]
fn a_folder_holding_only_a_root_says_how_to_make_its_issuer_and_that_command_makes_it() {
    let work = scratch_dir("certs-root-only");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    std::fs::remove_file(dir.join("issuer.crt")).unwrap();
    std::fs::remove_file(dir.join("issuer.key")).unwrap();
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    let refused = meshchart_in(&work, LATER, &render);
    let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(!refused.status.success(), "{stderr}");
    let command = "meshchart certs renew c";
    assert!(stderr.contains(&format!("`{command}`")), "{stderr}");
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let made = ok(&meshchart_in(&work, LATER, &args));
    let root = read(&dir, "ca.crt");
    assert!(verifies(&read(&dir, "issuer.crt"), &root), "{made}");
    ok(&meshchart_in(&work, LATER, &render));
}
