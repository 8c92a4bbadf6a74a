//! The lock: a second set waits for the first, and many sets into one target never mix.

use super::*;

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
