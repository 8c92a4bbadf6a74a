//! `--certs-dir`: material kept in a folder, read back, and checked.

use super::*;

#[test]
fn certs_dir_round_trip_gives_identical_values_and_leaves_the_dir_unchanged() {
    let scratch = Scratch::new("round-trip");
    // A certs dir is made only inside an existing folder.
    std::fs::create_dir(&scratch.0).expect("scratch");
    let dir = scratch.0.join("certs");
    let mut first = defaults();
    complete_material(&mut first, &chart(), &options(Some(&dir))).expect("first render");
    let files = snapshot(&dir);
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "ca.crt",
            "ca.key",
            "issuer.crt",
            "issuer.key",
            "proxy-injector.crt",
            "proxy-injector.key",
            "sp-validator.crt",
            "sp-validator.key",
        ]
    );

    let mut second = defaults();
    let notes =
        complete_material(&mut second, &chart(), &options(Some(&dir))).expect("second render");
    assert_eq!(second, first);
    assert_eq!(snapshot(&dir), files);
    assert!(
        notes.iter().all(|n| !n.starts_with("generated")),
        "{notes:?}"
    );
    assert_eq!(
        get_str(&second, "identityTrustAnchorsPEM"),
        files["ca.crt"].0
    );
    assert_eq!(
        get_str(&second, "identity.issuer.tls.keyPEM"),
        files["issuer.key"].0
    );
}

#[cfg(unix)]
#[test]
fn certs_dir_keys_are_mode_0600() {
    let scratch = Scratch::new("modes");
    complete_material(&mut defaults(), &chart(), &options(Some(&scratch.0))).expect("render");
    for (name, (_, mode, _)) in snapshot(&scratch.0) {
        if name.ends_with(".key") {
            assert_eq!(mode, 0o600, "{name}");
        }
    }
}

#[test]
fn certs_dir_root_key_never_reaches_the_values() {
    let scratch = Scratch::new("root-key");
    let mut values = defaults();
    complete_material(&mut values, &chart(), &options(Some(&scratch.0))).expect("render");
    let ca_key = std::fs::read_to_string(scratch.0.join("ca.key")).expect("ca.key written");
    let mut all = Vec::new();
    strings(&values, &mut all);
    assert!(all.iter().all(|s| !s.contains(ca_key.trim())));
}

#[test]
fn certs_dir_with_part_of_a_set_is_an_error_and_is_left_as_it_was() {
    let scratch = Scratch::new("partial");
    complete_material(&mut defaults(), &chart(), &options(Some(&scratch.0))).expect("render");
    std::fs::remove_file(scratch.0.join("issuer.key")).expect("remove");
    let files = snapshot(&scratch.0);
    let mut values = defaults();
    let message = complete_material(&mut values, &chart(), &options(Some(&scratch.0)))
        .expect_err("an error")
        .to_string();
    assert!(
        message.contains(scratch.0.as_str()) && message.contains("but not issuer.key"),
        "{message}"
    );
    assert_eq!(snapshot(&scratch.0), files);
    assert_eq!(values, defaults());
}

#[test]
fn certs_dir_is_not_created_when_the_values_are_in_error() {
    let scratch = Scratch::new("untouched");
    let mut values = defaults();
    set(
        &mut values,
        "proxyInjector.crtPEM",
        reference_file("valid-crt.pem"),
    );
    complete_material(&mut values, &chart(), &options(Some(&scratch.0)))
        .expect_err("proxyInjector.keyPEM is missing");
    assert!(!scratch.0.exists());
}

#[test]
fn certs_dir_given_values_win_and_only_missing_sets_are_written() {
    let scratch = Scratch::new("mixed");
    let mut values = with_reference_issuer();
    complete_material(&mut values, &chart(), &options(Some(&scratch.0))).expect("render");
    let names: Vec<String> = snapshot(&scratch.0).into_keys().collect();
    assert_eq!(
        names,
        [
            "proxy-injector.crt",
            "proxy-injector.key",
            "sp-validator.crt",
            "sp-validator.key"
        ]
    );
    assert_eq!(
        get_str(&values, "identity.issuer.tls.crtPEM"),
        reference_file("valid-crt.pem")
    );
}

#[test]
fn issuer_crt_outside_its_validity_at_the_render_instant_is_an_error() {
    let mut values = with_reference_issuer();
    // 2031-01-01T00:00:00Z, after valid-crt.pem's notAfter.
    let err = complete_material(
        &mut values,
        &chart(),
        &MaterialOptions {
            certs_dir: None,
            now: at(1_924_992_000),
            read_only: false,
        },
    )
    .expect_err("an expired issuer is refused, as upstream's install refuses it");
    assert_eq!(
        err.to_string(),
        "identity.issuer.tls.crtPEM: it is valid from 2020-08-28T07:13:47Z to \
         2030-08-26T07:13:47Z, which does not include the render's instant \
         2031-01-01T00:00:00Z (SOURCE_DATE_EPOCH, or the clock when that is unset): renew the \
         issuer certificate"
    );
}

#[test]
fn certs_dir_issuer_expired_at_the_render_instant_is_an_error_naming_the_file_and_the_renewal() {
    let scratch = Scratch::new("expired");
    complete_material(&mut defaults(), &chart(), &options(Some(&scratch.0))).expect("first render");
    let err = complete_material(
        &mut defaults(),
        &chart(),
        &MaterialOptions {
            certs_dir: Some(scratch.0.clone()),
            now: at(NOW + 400 * DAY),
            read_only: false,
        },
    )
    .expect_err("the kept issuer lasts one year");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "{}: the issuer certificate expired at 2024-11-13T22:13:20Z (expired 35 days ago)",
            scratch.0.join("issuer.crt")
        )),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "renew it with `meshchart certs renew {}`",
            scratch.0
        )),
        "{text}"
    );
}

#[test]
fn certs_dir_serving_cert_for_another_namespace_is_rejected() {
    let scratch = Scratch::new("namespace");
    complete_material(&mut defaults(), &chart(), &options(Some(&scratch.0))).expect("render");
    let files = snapshot(&scratch.0);
    let mut values = defaults();
    set(&mut values, "namespace", "mesh");
    let message = complete_material(&mut values, &chart(), &options(Some(&scratch.0)))
        .expect_err("the kept certificate names the linkerd namespace")
        .to_string();
    assert_eq!(
        message,
        format!(
            "{}: it is for linkerd-proxy-injector.linkerd.svc, not \
             linkerd-proxy-injector.mesh.svc: remove proxy-injector.crt and proxy-injector.key \
             to generate a new pair",
            scratch.0.join("proxy-injector.crt")
        )
    );
    assert_eq!(snapshot(&scratch.0), files);
}
