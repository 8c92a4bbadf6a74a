//! Runs killed or failing midway: a file-by-file switch completed by the next run or reader, a
//! user's files never lost while sets are switched, no half-written file ever lands.

use super::*;

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
