//! Renewals and rotations: chains that verify (here and with openssl), refused renewals, webhook pairs, openssl-made folders.

use super::*;

#[test]
fn a_renewal_keeps_the_root_and_the_new_issuer_verifies_against_it() {
    let work = scratch_dir("certs-renewal");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let (root, root_key, old_issuer, old_key) = (
        read(&dir, "ca.crt"),
        read(&dir, "ca.key"),
        read(&dir, "issuer.crt"),
        read(&dir, "issuer.key"),
    );
    let mut before = RENDER_IDENTITY.to_vec();
    before.push("c");
    let rendered_before = ok(&meshchart_in(&work, LATER, &before));

    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));

    assert_eq!(read(&dir, "ca.crt"), root, "the root is kept");
    assert_eq!(read(&dir, "ca.key"), root_key, "the root key is kept");
    let new_issuer = read(&dir, "issuer.crt");
    assert_ne!(new_issuer, old_issuer, "a new issuer certificate");
    assert_ne!(read(&dir, "issuer.key"), old_key, "a new issuer key");
    assert!(
        verifies(&new_issuer, &root),
        "the new issuer chains to the old root"
    );
    with_certs(&new_issuer, |new| {
        with_certs(&old_issuer, |old| {
            assert_eq!(new[0].subject(), old[0].subject(), "the same name");
            assert!(new[0].validity().not_after > old[0].validity().not_after);
            assert_eq!(new[0].validity().not_before.timestamp(), 1_717_200_000 - 20);
        })
    });
    // The old issuer is kept, with its key, under a dated name.
    assert_eq!(
        read(&dir, "retired/issuer-20240601T000000Z.crt"),
        old_issuer
    );
    assert_eq!(read(&dir, "retired/issuer-20240601T000000Z.key"), old_key);

    let rendered_after = ok(&meshchart_in(&work, LATER, &before));
    assert_eq!(rendered_anchors(&rendered_after), root);
    assert_eq!(
        rendered_anchors(&rendered_after),
        rendered_anchors(&rendered_before),
        "the render carries the same trust anchors"
    );
    assert_ne!(rendered_after, rendered_before, "with the new issuer");
    // The chart trims the PEM before it encodes it.
    let b64 = base64::engine::general_purpose::STANDARD.encode(new_issuer.trim_end().as_bytes());
    assert!(
        rendered_after.contains(&b64),
        "the issuer Secret holds the new issuer"
    );

    if let Some(report) = openssl_verify(
        "a_renewal_keeps_the_root_and_the_new_issuer_verifies_against_it",
        &dir,
        LATER,
        "ca.crt",
        "issuer.crt",
    ) {
        assert_eq!(report.trim(), "issuer.crt: OK", "{report}");
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn an_issuer_renewed_with_an_offline_root_key_verifies_and_the_key_is_not_copied() {
    let work = scratch_dir("certs-offline");
    copy_tree(&fixtures().join("offline"), &work.join("c"));
    std::fs::copy(fixtures().join("root.key"), work.join("root.key")).unwrap();
    let refused = meshchart_in(&work, GOLDEN_EPOCH, &["certs", "renew", "c"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--ca-key PATH"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "renew", "c", "--ca-key", "root.key"],
    ));
    let dir = work.join("c");
    assert!(
        !dir.join("ca.key").exists(),
        "the root key stays out of the folder"
    );
    assert!(verifies(&read(&dir, "issuer.crt"), &read(&dir, "ca.crt")));
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    let stream = ok(&meshchart_in(&work, GOLDEN_EPOCH, &render));
    assert_eq!(rendered_anchors(&stream), read(&dir, "ca.crt"));
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_root_rotation_trusts_both_roots_until_the_issuer_moves_then_only_the_new_one() {
    let test = "a_root_rotation_trusts_both_roots_until_the_issuer_moves_then_only_the_new_one";
    let work = scratch_dir("certs-rotation");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let old_root = read(&dir, "ca.crt");
    let old_issuer = read(&dir, "issuer.crt");
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");

    // Phase 1: the bundle holds new + old; the issuer (old root's) did not change.
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "rotate-root", "c", "--phase", "bundle"],
    ));
    let new_root = read(&dir, "ca-next.crt");
    assert_eq!(read(&dir, "ca.crt"), format!("{new_root}{old_root}"));
    assert_eq!(read(&dir, "issuer.crt"), old_issuer);
    assert_eq!(
        rendered_anchors(&ok(&meshchart_in(&work, GOLDEN_EPOCH, &render))),
        format!("{new_root}{old_root}")
    );

    // Phase 2: a new issuer from the new root; both roots still trusted.
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "rotate-root", "c", "--phase", "issuer"],
    ));
    let issuer = read(&dir, "issuer.crt");
    assert!(verifies(&issuer, &new_root));
    assert!(!verifies(&issuer, &old_root));
    assert!(!dir.join("ca-next.crt").exists());
    assert_eq!(read(&dir, "ca.crt"), format!("{new_root}{old_root}"));
    if let Some(report) = openssl_verify(test, &dir, GOLDEN_EPOCH, "ca.crt", "issuer.crt") {
        assert_eq!(report.trim(), "issuer.crt: OK", "{report}");
    }
    ok(&meshchart_in(&work, GOLDEN_EPOCH, &render));

    // Phase 3: only the new root.
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "rotate-root", "c", "--phase", "finish"],
    ));
    assert_eq!(read(&dir, "ca.crt"), new_root);
    assert_eq!(
        rendered_anchors(&ok(&meshchart_in(&work, GOLDEN_EPOCH, &render))),
        new_root
    );
    if let Some(report) = openssl_verify(test, &dir, GOLDEN_EPOCH, "ca.crt", "issuer.crt") {
        assert_eq!(report.trim(), "issuer.crt: OK", "{report}");
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_refused_renewal_leaves_the_folder_byte_for_byte_as_it_was() {
    let work = scratch_dir("certs-refused");
    copy_tree(&fixtures().join("offline"), &work.join("c"));
    // The key of another root: refused after the lock is taken and the folder read.
    copy_tree(&fixtures().join("expiring/ca.key"), &work.join("other.key"));
    let before = files(&work.join("c"));
    let out = meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "renew", "c", "--ca-key", "other.key"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not the key of the root"));
    assert_eq!(files(&work.join("c")), before);
    let leftovers: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn the_new_trust_root_message_gives_the_fingerprint_openssl_computes() {
    let work = scratch_dir("certs-fingerprint");
    let out = meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["render", "-n", "linkerd", "--certs-dir", "c"],
    );
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let der = pem_certificates(&read(&work.join("c"), "ca.crt")).remove(0);
    let expected = fingerprint(&der);
    assert!(
        stderr.contains(&format!(
            "made a new trust root CN=root.linkerd (SHA-256 {expected}) in c"
        )),
        "{stderr}"
    );
    if let Ok(openssl) = Command::new("openssl")
        .args([
            "x509",
            "-noout",
            "-fingerprint",
            "-sha256",
            "-in",
            "c/ca.crt",
        ])
        .current_dir(&work)
        .output()
    {
        let printed = String::from_utf8_lossy(&openssl.stdout);
        assert!(printed.trim().ends_with(&expected), "{printed}");
    } else {
        skip(
            "the_new_trust_root_message_gives_the_fingerprint_openssl_computes",
            "openssl",
            "openssl is not installed",
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn renewed_webhook_pairs_serve_the_same_names_and_silence_the_warning() {
    let work = scratch_dir("certs-webhooks");
    copy_tree(&fixtures().join("expiring"), &work.join("c"));
    let render = ["render", "-n", "linkerd", "--certs-dir", "c"];
    let warned = meshchart_in(&work, GOLDEN_EPOCH, &render);
    let stderr = String::from_utf8_lossy(&warned.stderr).into_owned();
    assert_eq!(stderr.matches("warning: the ").count(), 4, "{stderr}");
    ok(&meshchart_in(&work, GOLDEN_EPOCH, &["certs", "renew", "c"]));
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "renew", "c", "--webhooks"],
    ));
    let dir = work.join("c");
    with_certs(&read(&dir, "proxy-injector.crt"), |new| {
        let names: Vec<String> = new[0]
            .subject_alternative_name()
            .unwrap()
            .unwrap()
            .value
            .general_names
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(names, ["DNSName(linkerd-proxy-injector.linkerd.svc)"]);
    });
    let quiet = meshchart_in(&work, GOLDEN_EPOCH, &render);
    ok(&quiet);
    assert!(
        !String::from_utf8_lossy(&quiet.stderr).contains("warning:"),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_folder_made_by_openssl_is_renewed_from_its_own_root_and_openssl_accepts_the_chain() {
    let test =
        "a_folder_made_by_openssl_is_renewed_from_its_own_root_and_openssl_accepts_the_chain";
    let work = scratch_dir("certs-openssl-root");
    let dir = work.join("c");
    std::fs::create_dir(&dir).unwrap();
    let material = repo().join("tests/identity-material");
    for (from, to) in [
        ("ca.crt", "ca.crt"),
        ("ca.key", "ca.key"),
        ("issuer.crt", "issuer.crt"),
        ("issuer-pkcs8.key", "issuer.key"),
    ] {
        std::fs::copy(material.join(from), dir.join(to)).unwrap();
    }
    let root = read(&dir, "ca.crt");
    let old_issuer = read(&dir, "issuer.crt");
    // The files are not the output door's (no record): the lifecycle's own names are taken
    // over, the old issuer kept.
    ok(&meshchart_in(&work, GOLDEN_EPOCH, &["certs", "renew", "c"]));
    assert_eq!(read(&dir, "ca.crt"), root);
    assert_eq!(
        read(&dir, "retired/issuer-20231114T221320Z.crt"),
        old_issuer
    );
    let issuer = read(&dir, "issuer.crt");
    assert!(verifies(&issuer, &root));
    with_certs(&issuer, |new| {
        with_certs(&root, |roots| {
            // The authorityKeyIdentifier is the root's own subjectKeyIdentifier.
            let aki = new[0]
                .extensions()
                .iter()
                .find_map(|e| match e.parsed_extension() {
                    x509_parser::extensions::ParsedExtension::AuthorityKeyIdentifier(a) => {
                        a.key_identifier.as_ref().map(|k| k.0.to_vec())
                    }
                    _ => None,
                })
                .expect("an authorityKeyIdentifier");
            let ski = roots[0]
                .extensions()
                .iter()
                .find_map(|e| match e.parsed_extension() {
                    x509_parser::extensions::ParsedExtension::SubjectKeyIdentifier(k) => {
                        Some(k.0.to_vec())
                    }
                    _ => None,
                })
                .expect("the root's subjectKeyIdentifier");
            assert_eq!(aki, ski);
            assert_eq!(new[0].issuer().as_raw(), roots[0].subject().as_raw());
        })
    });
    if let Some(report) = openssl_verify(test, &dir, GOLDEN_EPOCH, "ca.crt", "issuer.crt") {
        assert_eq!(report.trim(), "issuer.crt: OK", "{report}");
    }
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    assert_eq!(
        rendered_anchors(&ok(&meshchart_in(&work, GOLDEN_EPOCH, &render))),
        root
    );
    let _ = std::fs::remove_dir_all(&work);
}
