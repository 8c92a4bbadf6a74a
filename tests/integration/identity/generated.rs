//! Material meshchart generates, and material the user gives that it keeps.

use super::*;

#[test]
fn generated_issuer_is_a_pathlen_0_ca_signed_by_the_generated_anchor() {
    let mut values = defaults();
    complete(&mut values);
    let anchors = get_str(&values, "identityTrustAnchorsPEM");
    let issuer = get_str(&values, "identity.issuer.tls.crtPEM");
    with_cert(anchors, |root| {
        assert_eq!(common_name(root), "root.linkerd");
        root.verify_signature(None)
            .expect("the anchor is self-signed");
        let constraints = root.basic_constraints().expect("valid").expect("present");
        assert!(constraints.value.ca);
        with_cert(issuer, |issuer| {
            assert_eq!(common_name(issuer), "identity.linkerd.cluster.local");
            issuer
                .verify_signature(Some(root.public_key()))
                .expect("the issuer chains to the anchor");
            let constraints = issuer.basic_constraints().expect("valid").expect("present");
            assert!(constraints.value.ca);
            assert_eq!(constraints.value.path_len_constraint, Some(0));
        });
    });
    assert!(get_str(&values, "identity.issuer.tls.keyPEM")
        .starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
}

#[test]
fn generated_material_passes_the_checks_for_given_material() {
    let mut values = defaults();
    complete(&mut values);
    // Feeding the result back with crtExpiry cleared parses the issuer and matches its key.
    let expiry = get(&values, "identity.issuer.crtExpiry").clone();
    set(&mut values, "identity.issuer.crtExpiry", Value::Null);
    let before = values.clone();
    let notes = complete(&mut values);
    assert_eq!(get(&values, "identity.issuer.crtExpiry"), &expiry);
    set(&mut values, "identity.issuer.crtExpiry", Value::Null);
    assert_eq!(values, before, "nothing else changes");
    assert_eq!(notes.len(), 1, "{notes:?}");
}

#[test]
fn generated_anchor_and_issuer_last_ten_years_and_one_year() {
    let mut values = defaults();
    complete(&mut values);
    let not_after = |text: &str| with_cert(text, |c| c.validity().not_after.timestamp());
    let not_before = |text: &str| with_cert(text, |c| c.validity().not_before.timestamp());
    let anchors = get_str(&values, "identityTrustAnchorsPEM");
    let issuer = get_str(&values, "identity.issuer.tls.crtPEM");
    assert_eq!(not_after(anchors), (NOW + 3650 * DAY) as i64);
    assert_eq!(not_after(issuer), (NOW + 365 * DAY) as i64);
    assert!(not_before(issuer) <= NOW as i64);
}

#[test]
fn crt_expiry_of_a_generated_issuer_is_its_not_after() {
    let mut values = defaults();
    complete(&mut values);
    assert_eq!(
        get_str(&values, "identity.issuer.crtExpiry"),
        "2024-11-13T22:13:20Z"
    );
    let not_after = with_cert(get_str(&values, "identity.issuer.tls.crtPEM"), |c| {
        c.validity().not_after.timestamp()
    });
    assert_eq!(not_after, (NOW + 365 * DAY) as i64);
}

#[test]
fn reference_issuer_crt_gives_crt_expiry_2030_08_26t07_13_47z() {
    // `openssl x509 -noout -enddate -in valid-crt.pem`: notAfter=Aug 26 07:13:47 2030 GMT
    let mut values = with_reference_issuer();
    let notes = complete(&mut values);
    assert_eq!(
        get_str(&values, "identity.issuer.crtExpiry"),
        "2030-08-26T07:13:47Z"
    );
    assert!(notes.iter().any(|n| n.contains("crtExpiry")), "{notes:?}");
}

#[test]
fn given_material_is_kept_untouched() {
    let mut values = with_reference_issuer();
    set(
        &mut values,
        "identity.issuer.crtExpiry",
        "2030-01-01T00:00:00Z",
    );
    for component in ["proxyInjector", "profileValidator"] {
        set(
            &mut values,
            &format!("{component}.crtPEM"),
            reference_file("valid-crt.pem"),
        );
        set(
            &mut values,
            &format!("{component}.keyPEM"),
            reference_file("valid-key.pem"),
        );
        set(
            &mut values,
            &format!("{component}.caBundle"),
            reference_file("valid-trust-anchors.pem"),
        );
    }
    set(&mut values, "heartbeatSchedule", "1 2 * * *");
    let before = values.clone();
    let notes = complete(&mut values);
    assert_eq!(values, before);
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn given_crt_expiry_is_kept_as_is() {
    let mut values = with_reference_issuer();
    set(
        &mut values,
        "identity.issuer.crtExpiry",
        "2031-02-03T04:05:06Z",
    );
    complete(&mut values);
    assert_eq!(
        get_str(&values, "identity.issuer.crtExpiry"),
        "2031-02-03T04:05:06Z"
    );
}

#[test]
fn given_webhook_cert_without_ca_bundle_gets_the_cert_as_ca_bundle() {
    let mut values = defaults();
    set(
        &mut values,
        "proxyInjector.crtPEM",
        reference_file("valid-crt.pem"),
    );
    set(
        &mut values,
        "proxyInjector.keyPEM",
        reference_file("valid-key.pem"),
    );
    complete(&mut values);
    assert_eq!(
        get_str(&values, "proxyInjector.crtPEM"),
        reference_file("valid-crt.pem")
    );
    assert_eq!(
        get_str(&values, "proxyInjector.keyPEM"),
        reference_file("valid-key.pem")
    );
    assert_eq!(
        get_str(&values, "proxyInjector.caBundle"),
        reference_file("valid-crt.pem")
    );
}

#[test]
fn generated_webhook_certs_name_their_service_and_fill_the_ca_bundle() {
    let mut values = defaults();
    set(&mut values, "namespace", "mesh");
    complete(&mut values);
    for (component, host) in [
        ("proxyInjector", "linkerd-proxy-injector.mesh.svc"),
        ("profileValidator", "linkerd-sp-validator.mesh.svc"),
    ] {
        let crt = get_str(&values, &format!("{component}.crtPEM"));
        with_cert(crt, |cert| {
            assert_eq!(common_name(cert), host);
            assert_eq!(dns_names(cert), [host]);
            cert.verify_signature(None).expect("self-signed");
            assert_eq!(
                cert.validity().not_after.timestamp(),
                (NOW + 365 * DAY) as i64
            );
        });
        assert_eq!(get_str(&values, &format!("{component}.caBundle")), crt);
        assert!(get_str(&values, &format!("{component}.keyPEM")).contains("PRIVATE KEY"));
    }
}

#[test]
fn webhook_with_external_secret_is_left_alone() {
    let mut values = defaults();
    set(&mut values, "proxyInjector.externalSecret", true);
    complete(&mut values);
    assert_eq!(get_str(&values, "proxyInjector.crtPEM"), "");
    assert_eq!(get_str(&values, "proxyInjector.caBundle"), "");
    assert_ne!(get_str(&values, "profileValidator.crtPEM"), "");
}

#[test]
fn trust_domain_names_the_generated_issuer_but_not_the_root() {
    // A root may serve a fleet of clusters with several trust domains: it is named for none.
    let mut values = defaults();
    set(&mut values, "identityTrustDomain", "example.org");
    complete(&mut values);
    with_cert(get_str(&values, "identityTrustAnchorsPEM"), |c| {
        assert_eq!(common_name(c), "root.linkerd");
    });
    with_cert(get_str(&values, "identity.issuer.tls.crtPEM"), |c| {
        assert_eq!(common_name(c), "identity.linkerd.example.org");
    });
    let mut values = defaults();
    set(&mut values, "clusterDomain", "corp.internal");
    complete(&mut values);
    with_cert(get_str(&values, "identity.issuer.tls.crtPEM"), |c| {
        assert_eq!(common_name(c), "identity.linkerd.corp.internal");
    });
}

#[test]
fn external_issuer_scheme_generates_nothing_for_the_issuer() {
    let mut values = defaults();
    set(&mut values, "identity.issuer.scheme", "kubernetes.io/tls");
    complete(&mut values);
    assert_eq!(get_str(&values, "identityTrustAnchorsPEM"), "");
    assert_eq!(get_str(&values, "identity.issuer.tls.crtPEM"), "");
    assert_eq!(get(&values, "identity.issuer.crtExpiry"), &Value::Null);
}
