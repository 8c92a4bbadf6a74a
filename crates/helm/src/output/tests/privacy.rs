//! Owner-only modes: secret outputs and private keys from staging on, and staging folders.

use super::*;

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
