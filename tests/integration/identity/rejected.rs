//! Material that is rejected, each error naming the key (openssl-made material included).

use super::*;

#[test]
fn partial_issuer_material_error_names_the_missing_key() {
    let mut values = with_reference_issuer();
    set(&mut values, "identity.issuer.tls.keyPEM", "");
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.keyPEM is missing: give all of identityTrustAnchorsPEM, \
         identity.issuer.tls.crtPEM and identity.issuer.tls.keyPEM, or none to generate them"
    );
}

#[test]
fn partial_issuer_material_error_names_every_missing_key() {
    let mut values = defaults();
    set(
        &mut values,
        "identityTrustAnchorsPEM",
        reference_file("valid-trust-anchors.pem"),
    );
    let message = error(&mut values);
    assert!(
        message
            .starts_with("identity.issuer.tls.crtPEM and identity.issuer.tls.keyPEM are missing: "),
        "{message}"
    );
}

#[test]
fn partial_webhook_material_error_names_the_missing_key() {
    let mut values = defaults();
    set(
        &mut values,
        "profileValidator.keyPEM",
        reference_file("valid-key.pem"),
    );
    let message = error(&mut values);
    assert!(
        message.starts_with("profileValidator.crtPEM is missing: give both"),
        "{message}"
    );
}

#[test]
fn corrupt_pem_error_names_the_key() {
    let mut values = with_reference_issuer();
    let corrupt = reference_file("valid-crt.pem").replacen("MII", "MI*", 1);
    set(&mut values, "identity.issuer.tls.crtPEM", corrupt);
    let message = error(&mut values);
    assert!(
        message.starts_with("identity.issuer.tls.crtPEM: ") && message.contains("base64"),
        "{message}"
    );
}

#[test]
fn key_in_a_certificate_slot_error_names_the_key_and_the_block() {
    let mut values = with_reference_issuer();
    set(
        &mut values,
        "identityTrustAnchorsPEM",
        reference_file("valid-key.pem"),
    );
    let message = error(&mut values);
    assert_eq!(
        message,
        "identityTrustAnchorsPEM: expected CERTIFICATE blocks, found a EC PRIVATE KEY block"
    );
}

#[test]
fn truncated_webhook_key_error_names_the_key() {
    let mut values = defaults();
    let key = reference_file("valid-key.pem");
    set(
        &mut values,
        "proxyInjector.crtPEM",
        reference_file("valid-crt.pem"),
    );
    set(&mut values, "proxyInjector.keyPEM", &key[..key.len() - 30]);
    let message = error(&mut values);
    assert!(message.starts_with("proxyInjector.keyPEM: "), "{message}");
}

#[test]
fn issuer_key_of_another_certificate_is_rejected() {
    let mut generated = defaults();
    complete(&mut generated);
    let mut values = with_reference_issuer();
    set(
        &mut values,
        "identity.issuer.tls.keyPEM",
        get_str(&generated, "identity.issuer.tls.keyPEM"),
    );
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.keyPEM is not the private key of the certificate in \
         identity.issuer.tls.crtPEM: their public keys differ"
    );
}

/// A file of `tests/identity-material` (openssl-made; see its README).
fn material(name: &str) -> String {
    let path = support::repo_root()
        .join("tests/identity-material")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Values with an openssl-made trust anchor, issuer certificate and key.
fn with_issuer(anchors: &str, crt: &str, key: &str) -> Value {
    let mut values = defaults();
    set(&mut values, "identityTrustAnchorsPEM", material(anchors));
    set(&mut values, "identity.issuer.tls.crtPEM", material(crt));
    set(&mut values, "identity.issuer.tls.keyPEM", material(key));
    values
}

#[test]
fn pkcs8_ec_issuer_key_is_accepted_and_kept_as_given() {
    let mut values = with_issuer("ca.crt", "issuer.crt", "issuer-pkcs8.key");
    complete(&mut values);
    let key = get_str(&values, "identity.issuer.tls.keyPEM");
    assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"), "{key}");
    assert_eq!(
        get_str(&values, "identity.issuer.crtExpiry"),
        "2033-01-01T00:00:00Z"
    );
}

#[test]
fn rsa_issuer_key_reads_and_matches_but_the_issuer_must_be_ecdsa() {
    let mut values = with_issuer("ca.crt", "issuer-rsa.crt", "issuer-rsa.key");
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.crtPEM: the issuer certificate must have an ECDSA P-256 key, the \
         only kind linkerd's identity controller uses"
    );
}

#[test]
fn rsa_issuer_key_of_another_certificate_is_a_mismatch() {
    let mut values = with_issuer("ca.crt", "issuer.crt", "issuer-rsa.key");
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.keyPEM is not the private key of the certificate in \
         identity.issuer.tls.crtPEM: their public keys differ"
    );
}

#[test]
fn issuer_key_of_another_block_type_names_the_type_found_and_the_accepted_ones() {
    let mut values = with_reference_issuer();
    let other = reference_file("valid-key.pem").replace("EC PRIVATE KEY", "DSA PRIVATE KEY");
    set(&mut values, "identity.issuer.tls.keyPEM", other);
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.keyPEM: expected an EC PRIVATE KEY, RSA PRIVATE KEY or PRIVATE KEY \
         (PKCS#8) block, found a DSA PRIVATE KEY block"
    );
}

#[test]
fn issuer_signed_by_another_ca_is_rejected_naming_both_keys() {
    let mut values = with_issuer("ca.crt", "issuer-other-ca.crt", "issuer-other-ca.key");
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.crtPEM: it is not signed by any certificate in \
         identityTrustAnchorsPEM (it names CN=root.linkerd.cluster.local as its issuer): proxies \
         would reject every certificate it issues"
    );
}

#[test]
fn issuer_signed_with_another_digest_than_sha256_is_rejected() {
    let mut values = with_issuer("ca.crt", "issuer-sha384.crt", "issuer-pkcs8.key");
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.crtPEM: it is signed with ecdsa-with-SHA384; linkerd needs \
         ecdsa-with-SHA256 (a P-256 trust anchor)"
    );
}

#[test]
fn issuer_signed_by_one_of_several_trust_anchors_is_accepted() {
    let mut values = with_issuer("other-ca.crt", "issuer.crt", "issuer-pkcs8.key");
    let bundle = format!("{}{}", material("other-ca.crt"), material("ca.crt"));
    set(&mut values, "identityTrustAnchorsPEM", bundle);
    complete(&mut values);
}

#[test]
fn issuer_that_is_not_a_ca_is_rejected() {
    // A webhook serving certificate is a leaf: self-signed, so its own trust anchor.
    let mut generated = defaults();
    complete(&mut generated);
    let mut values = defaults();
    let crt = get_str(&generated, "proxyInjector.crtPEM");
    set(&mut values, "identityTrustAnchorsPEM", crt);
    set(&mut values, "identity.issuer.tls.crtPEM", crt);
    set(
        &mut values,
        "identity.issuer.tls.keyPEM",
        get_str(&generated, "proxyInjector.keyPEM"),
    );
    assert_eq!(
        error(&mut values),
        "identity.issuer.tls.crtPEM: it is not a CA certificate (no basicConstraints CA:TRUE), so \
         it cannot issue proxy certificates"
    );
}

#[test]
fn non_string_pem_value_error_names_the_key() {
    let mut values = defaults();
    set(&mut values, "identityTrustAnchorsPEM", 5i64);
    assert_eq!(
        error(&mut values),
        "identityTrustAnchorsPEM must be a string, not a int"
    );
}
