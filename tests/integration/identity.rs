//! Identity and webhook material: what `complete_material` generates, keeps, reuses and rejects.

use crate::support;

use camino::{Utf8Path, Utf8PathBuf};
use meshchart::chart::Chart;
use meshchart::identity::{complete_material, IdentityError, MaterialOptions, MaterialTargets};
use meshchart::render::{Clock, RenderRequest};
use meshchart::values::Value;
use meshchart::yaml::parse_document;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use support::{get, reference_file, set};
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;
use x509_parser::pem::Pem;

/// The identity-related defaults of the 2021 chart's values.yaml (spec §4).
const DEFAULTS: &str = r#"
namespace: linkerd
heartbeatSchedule: ""
clusterDomain: cluster.local
identityTrustAnchorsPEM: ""
identityTrustDomain: ""
identity:
  issuer:
    scheme: linkerd.io/tls
    clockSkewAllowance: 20s
    crtExpiry:
    issuanceLifetime: 24h0m0s
    tls:
      crtPEM: ""
      keyPEM: ""
disableHeartBeat: false
proxyInjector:
  externalSecret: false
  crtPEM: ""
  keyPEM: ""
  caBundle: ""
profileValidator:
  externalSecret: false
  crtPEM: ""
  keyPEM: ""
  caBundle: ""
"#;

/// 2023-11-14T22:13:20Z.
const NOW: u64 = 1_700_000_000;
const DAY: u64 = 86_400;

fn defaults() -> Value {
    parse_document(DEFAULTS).expect("defaults parse")
}

/// What the 2021 chart takes: its defaults name the namespace, two webhooks and crtExpiry.
fn chart() -> MaterialTargets {
    MaterialTargets::new(&defaults(), None, "default")
}

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

fn options(certs_dir: Option<&Utf8Path>) -> MaterialOptions {
    MaterialOptions {
        certs_dir: certs_dir.map(Utf8Path::to_owned),
        now: at(NOW),
        read_only: false,
    }
}

fn get_str<'v>(values: &'v Value, dotted: &str) -> &'v str {
    get(values, dotted)
        .as_str()
        .unwrap_or_else(|| panic!("{dotted} is not a string"))
}

/// Values with the reference trust anchors, issuer certificate and key.
fn with_reference_issuer() -> Value {
    let mut values = defaults();
    set(
        &mut values,
        "identityTrustAnchorsPEM",
        reference_file("valid-trust-anchors.pem"),
    );
    set(
        &mut values,
        "identity.issuer.tls.crtPEM",
        reference_file("valid-crt.pem"),
    );
    set(
        &mut values,
        "identity.issuer.tls.keyPEM",
        reference_file("valid-key.pem"),
    );
    values
}

/// Parses the first PEM block of `text` (with x509-parser's own reader) and hands the
/// certificate to `check`.
fn with_cert<R>(text: &str, check: impl FnOnce(&X509Certificate<'_>) -> R) -> R {
    let pem = Pem::iter_from_buffer(text.as_bytes())
        .next()
        .expect("a PEM block")
        .expect("valid PEM");
    assert_eq!(pem.label, "CERTIFICATE");
    let cert = pem.parse_x509().expect("valid X.509");
    check(&cert)
}

fn common_name(cert: &X509Certificate<'_>) -> String {
    cert.subject()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .expect("a CN")
        .to_owned()
}

fn dns_names(cert: &X509Certificate<'_>) -> Vec<String> {
    cert.subject_alternative_name()
        .expect("valid SAN")
        .map(|san| {
            san.value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    GeneralName::DNSName(dns) => Some((*dns).to_owned()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn complete(values: &mut Value) -> Vec<String> {
    complete_material(values, &chart(), &options(None)).expect("material completes")
}

fn error(values: &mut Value) -> String {
    let before = values.clone();
    let err: IdentityError =
        complete_material(values, &chart(), &options(None)).expect_err("an error");
    assert_eq!(*values, before, "values are unchanged on error");
    err.to_string()
}

/// A folder under the system temp dir, removed when dropped.
struct Scratch(Utf8PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = Utf8PathBuf::from_path_buf(std::env::temp_dir())
            .expect("UTF-8 temp dir")
            .join(format!("meshchart-identity-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file of `dir` with its contents, mode and modification time.
/// The certificate files in `dir` (the output door's record of what it wrote is left out: it
/// is bookkeeping, not material).
fn snapshot(dir: &Utf8Path) -> BTreeMap<String, (String, u32, SystemTime)> {
    std::fs::read_dir(dir)
        .expect("readable dir")
        .filter(|entry| {
            entry
                .as_ref()
                .map_or(true, |e| e.file_name() != meshchart::output::RECORD_NAME)
        })
        .map(|entry| {
            let entry = entry.expect("entry");
            let meta = entry.metadata().expect("metadata");
            #[cfg(unix)]
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777;
            #[cfg(not(unix))]
            let mode = 0;
            (
                entry.file_name().to_string_lossy().into_owned(),
                (
                    std::fs::read_to_string(entry.path()).expect("text"),
                    mode,
                    meta.modified().expect("mtime"),
                ),
            )
        })
        .collect()
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Seq(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Map(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

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

fn schedule_at(mut values: Value, seconds: u64) -> String {
    complete_material(
        &mut values,
        &chart(),
        &MaterialOptions {
            certs_dir: None,
            now: at(seconds),
            read_only: false,
        },
    )
    .expect("completes");
    get_str(&values, "heartbeatSchedule").to_owned()
}

/// Whether `schedule` is daily at a minute and hour: `MM HH * * *`.
fn is_daily(schedule: &str) -> bool {
    let fields: Vec<&str> = schedule.split(' ').collect();
    let in_range =
        |text: &str, below: u32| text.len() == 2 && text.parse::<u32>().is_ok_and(|n| n < below);
    fields.len() == 5
        && in_range(fields[0], 60)
        && in_range(fields[1], 24)
        && fields[2..] == ["*", "*", "*"]
}

#[test]
fn heartbeat_schedule_does_not_move_with_the_clock() {
    let today = schedule_at(with_reference_issuer(), NOW);
    let tomorrow = schedule_at(with_reference_issuer(), NOW + DAY + 37 * 60 + 11);
    assert_eq!(today, tomorrow);
    // The SHA-256 of the length-prefixed trust domain (`cluster.local`, from clusterDomain),
    // namespace (`linkerd`) and the reference anchors' DER picks minute 926 of the day (the
    // first 8 bytes, big-endian, modulo 1440), as Python's hashlib computes it too.
    assert_eq!(today, "26 15 * * *");
}

#[test]
fn heartbeat_schedule_follows_the_trust_domain_namespace_and_anchors() {
    let reference = schedule_at(with_reference_issuer(), NOW);
    let mut other_domain = with_reference_issuer();
    set(&mut other_domain, "identityTrustDomain", "prod.example.com");
    let mut other_namespace = with_reference_issuer();
    set(&mut other_namespace, "namespace", "linkerd-prod");
    let mut other_anchors = with_reference_issuer();
    let anchors = reference_file("valid-trust-anchors.pem");
    // The issuer's own certificate beside the root: a different bundle (still valid).
    let bundle = format!("{anchors}{}", reference_file("valid-crt.pem"));
    set(
        &mut other_anchors,
        "identityTrustAnchorsPEM",
        bundle.as_str(),
    );
    for (what, values) in [
        ("trust domain", other_domain),
        ("namespace", other_namespace),
        ("anchors", other_anchors),
    ] {
        let schedule = schedule_at(values, NOW);
        assert!(is_daily(&schedule), "{schedule}");
        assert_ne!(schedule, reference, "another {what} moves the schedule");
    }
}

#[test]
fn heartbeat_schedule_reads_the_anchors_not_their_line_endings() {
    let mut crlf = with_reference_issuer();
    let anchors = reference_file("valid-trust-anchors.pem").replace('\n', "\r\n");
    set(&mut crlf, "identityTrustAnchorsPEM", anchors.as_str());
    assert_eq!(
        schedule_at(crlf, NOW),
        schedule_at(with_reference_issuer(), NOW)
    );
}

#[test]
fn heartbeat_schedule_is_left_out_when_the_heartbeat_is_disabled() {
    let mut values = defaults();
    set(&mut values, "disableHeartBeat", true);
    complete(&mut values);
    assert_eq!(get_str(&values, "heartbeatSchedule"), "");
}

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

// The release lines: what each chart takes of the material, and renders with none given.

/// The release lines after the 2021 chart, whose control planes carry a policy validator.
const MODERN_LINES: [&str; 2] = ["edge-24.10.2", "edge-26.8.3"];

fn control_plane(release: &str) -> Chart {
    meshchart::releases::embedded_line(release, "linkerd-control-plane")
        .expect("an embedded release line")
}

/// `meshchart render` of release line `release`'s control plane with no values at all, into
/// `namespace`, keeping material in `certs_dir`, at [`NOW`]: the stream and the notes.
fn render_line(release: &str, namespace: &str, certs_dir: &Utf8Path) -> (String, Vec<String>) {
    let request = RenderRequest {
        namespace: namespace.to_owned(),
        certs_dir: Some(certs_dir.to_owned()),
        // The 2021 line runs on Kubernetes 1.24 at the newest.
        kube_version: (release == "edge-21.4.4").then(|| "1.24.0".to_owned()),
        ..RenderRequest::default()
    };
    let outcome = meshchart::render::render(
        &control_plane(release),
        &request,
        &mut std::io::empty(),
        Clock::Fixed(at(NOW)),
    )
    .unwrap_or_else(|e| panic!("{release}: a render without values fails: {e}"));
    (outcome.rendered.to_stream(), outcome.notes)
}

/// The documents of a stream by `Kind/name`.
fn documents(stream: &str) -> BTreeMap<String, Value> {
    meshchart::yaml::parse_documents(stream)
        .expect("the render parses")
        .into_iter()
        .filter(|doc| doc.get_path(&["kind"]).is_some())
        .map(|doc| {
            let name = format!(
                "{}/{}",
                get_str(&doc, "kind"),
                get_str(&doc, "metadata.name")
            );
            (name, doc)
        })
        .collect()
}

/// A base64 field of a rendered document, decoded (`path` by keys: Secret keys have dots).
fn decoded(doc: &Value, path: &[&str]) -> String {
    use base64::Engine as _;
    let text = doc
        .get_path(path)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string at {path:?}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_else(|e| panic!("{path:?} is not base64: {e}"));
    String::from_utf8(bytes).expect("PEM text")
}

#[test]
fn each_chart_says_which_webhooks_it_carries() {
    let webhooks = |release: &str| {
        meshchart::render::material_targets(&control_plane(release), "linkerd")
            .expect("readable defaults")
            .webhooks()
    };
    assert_eq!(
        webhooks("edge-21.4.4"),
        ["proxyInjector", "profileValidator"]
    );
    for release in MODERN_LINES {
        assert_eq!(
            webhooks(release),
            ["proxyInjector", "profileValidator", "policyValidator"],
            "{release}"
        );
    }
}

#[test]
fn modern_lines_render_without_values_and_again_identically_from_the_certs_dir() {
    for release in MODERN_LINES {
        let scratch = Scratch::new(&format!("no-values-{release}"));
        let (first, notes) = render_line(release, "linkerd", &scratch.0);
        assert!(
            notes.iter().any(|n| n.starts_with(
                "generated a self-signed policyValidator serving certificate for \
                 linkerd-policy-validator.linkerd.svc"
            )),
            "{release}: {notes:?}"
        );
        let files = snapshot(&scratch.0);
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "ca.crt",
                "ca.key",
                "issuer.crt",
                "issuer.key",
                "policy-validator.crt",
                "policy-validator.key",
                "proxy-injector.crt",
                "proxy-injector.key",
                "sp-validator.crt",
                "sp-validator.key",
            ],
            "{release}"
        );
        let (second, notes) = render_line(release, "linkerd", &scratch.0);
        assert_eq!(second, first, "{release}: the second render differs");
        assert_eq!(
            snapshot(&scratch.0),
            files,
            "{release}: the certs dir changed"
        );
        assert!(
            notes.iter().all(|n| !n.starts_with("generated")),
            "{release}: {notes:?}"
        );
    }
}

#[test]
fn generated_webhook_certificates_serve_the_release_namespace_and_verify_against_their_ca_bundle() {
    for release in MODERN_LINES {
        let scratch = Scratch::new(&format!("release-namespace-{release}"));
        let (stream, _) = render_line(release, "mesh", &scratch.0);
        let docs = documents(&stream);
        for (service, kind) in [
            ("linkerd-policy-validator", "ValidatingWebhookConfiguration"),
            ("linkerd-sp-validator", "ValidatingWebhookConfiguration"),
            ("linkerd-proxy-injector", "MutatingWebhookConfiguration"),
        ] {
            let host = format!("{service}.mesh.svc");
            let secret = &docs[&format!("Secret/{service}-k8s-tls")];
            let config = &docs[&format!("{kind}/{service}-webhook-config")];
            let Value::Seq(hooks) = get(config, "webhooks") else {
                panic!("{release}: {service}: webhooks is not a list");
            };
            assert_eq!(get_str(&hooks[0], "clientConfig.service.namespace"), "mesh");
            let ca_bundle = decoded(&hooks[0], &["clientConfig", "caBundle"]);
            with_cert(&decoded(secret, &["data", "tls.crt"]), |served| {
                assert_eq!(dns_names(served), [host.as_str()], "{release}");
                with_cert(&ca_bundle, |ca| {
                    served
                        .verify_signature(Some(ca.public_key()))
                        .unwrap_or_else(|e| panic!("{release}: {service}: {e}"));
                });
            });
        }
        let issuer = &docs["Secret/linkerd-identity-issuer"];
        with_cert(&decoded(issuer, &["data", "crt.pem"]), |crt| {
            assert_eq!(common_name(crt), "identity.mesh.cluster.local", "{release}");
        });
    }
}

#[test]
fn only_keys_the_chart_declares_are_written() {
    // The 2021 chart declares identity.issuer.crtExpiry and reads it; the modern lines do not,
    // so their linkerd-config shows no such key (as upstream's). heartbeatSchedule is declared
    // by the modern lines' schema only, and still filled in.
    for release in ["edge-21.4.4", "edge-24.10.2", "edge-26.8.3"] {
        let scratch = Scratch::new(&format!("declared-{release}"));
        let (stream, notes) = render_line(release, "linkerd", &scratch.0);
        let docs = documents(&stream);
        let values = parse_document(get_str(&docs["ConfigMap/linkerd-config"], "data.values"))
            .expect("linkerd-config holds YAML");
        let expiry = values.get_path(&["identity", "issuer", "crtExpiry"]);
        if release == "edge-21.4.4" {
            assert_eq!(expiry, Some(&Value::from("2024-11-13T22:13:20Z")));
        } else {
            assert_eq!(expiry, None, "{release}");
            assert!(notes.iter().all(|n| !n.contains("crtExpiry")), "{notes:?}");
        }
        // Derived from the anchors this folder holds, so the same on every render from it.
        let schedule = get_str(&values, "heartbeatSchedule");
        assert!(is_daily(schedule), "{release}: {schedule}");
        let (again, _) = render_line(release, "linkerd", &scratch.0);
        assert_eq!(again, stream, "{release}");
    }
}

#[test]
fn a_key_declared_by_the_schema_only_is_filled_and_one_declared_nowhere_is_not() {
    let mut chart_defaults = defaults();
    if let Value::Map(map) = &mut chart_defaults {
        map.remove("heartbeatSchedule");
    }
    let mut values = chart_defaults.clone();
    let without_schema = MaterialTargets::new(&chart_defaults, None, "default");
    complete_material(&mut values, &without_schema, &options(None)).expect("completes");
    assert!(values.get_path(&["heartbeatSchedule"]).is_none());

    let schema = r#"{"properties": {"heartbeatSchedule": {"type": "string"}}}"#;
    let mut values = chart_defaults.clone();
    let with_schema = MaterialTargets::new(&chart_defaults, Some(schema), "default");
    complete_material(&mut values, &with_schema, &options(None)).expect("completes");
    assert!(is_daily(get_str(&values, "heartbeatSchedule")));
}

/// The webhook sections of a modern chart's defaults, without a `namespace` key.
const MODERN_DEFAULTS: &str = r#"
clusterDomain: cluster.local
identityTrustAnchorsPEM: ""
identityTrustDomain: ""
identity:
  issuer:
    scheme: linkerd.io/tls
    tls:
      crtPEM: ""
      keyPEM: ""
disableHeartBeat: false
proxyInjector: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
profileValidator: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
policyValidator: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
"#;

#[test]
fn without_a_namespace_value_the_release_namespace_names_the_certificates() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "mesh");
    let mut values = chart_defaults.clone();
    // A `namespace` value the chart does not read changes nothing.
    set(&mut values, "namespace", "elsewhere");
    complete_material(&mut values, &targets, &options(None)).expect("completes");
    with_cert(get_str(&values, "policyValidator.crtPEM"), |cert| {
        assert_eq!(dns_names(cert), ["linkerd-policy-validator.mesh.svc"]);
    });
    with_cert(get_str(&values, "identity.issuer.tls.crtPEM"), |cert| {
        assert_eq!(common_name(cert), "identity.mesh.cluster.local");
    });
    assert!(values
        .get_path(&["identity", "issuer", "crtExpiry"])
        .is_none());
}

#[test]
fn release_namespace_that_is_not_a_dns_label_is_an_error_naming_it() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "Mesh");
    let mut values = chart_defaults.clone();
    let message = complete_material(&mut values, &targets, &options(None))
        .expect_err("an upper-case namespace")
        .to_string();
    assert!(
        message.starts_with("the release namespace (--namespace) is \"Mesh\""),
        "{message}"
    );
}

#[test]
fn certs_dir_serving_cert_for_another_release_namespace_is_rejected() {
    let scratch = Scratch::new("release-namespace-reuse");
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let linkerd = MaterialTargets::new(&chart_defaults, None, "linkerd");
    complete_material(
        &mut chart_defaults.clone(),
        &linkerd,
        &options(Some(&scratch.0)),
    )
    .expect("render into linkerd");
    let mesh = MaterialTargets::new(&chart_defaults, None, "mesh");
    let message = complete_material(
        &mut chart_defaults.clone(),
        &mesh,
        &options(Some(&scratch.0)),
    )
    .expect_err("the kept certificates name linkerd")
    .to_string();
    assert!(
        message.contains(
            "it is for linkerd-proxy-injector.linkerd.svc, not linkerd-proxy-injector.mesh.svc"
        ),
        "{message}"
    );
}

#[test]
fn ca_injected_by_cert_manager_leaves_the_ca_bundle_empty() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "linkerd");
    for key in ["injectCaFrom", "injectCaFromSecret"] {
        let mut values = chart_defaults.clone();
        set(
            &mut values,
            &format!("policyValidator.{key}"),
            "linkerd/linkerd-policy-validator",
        );
        complete_material(&mut values, &targets, &options(None)).expect("completes");
        assert_ne!(get_str(&values, "policyValidator.crtPEM"), "", "{key}");
        assert_eq!(get_str(&values, "policyValidator.caBundle"), "", "{key}");
        assert_ne!(get_str(&values, "proxyInjector.caBundle"), "", "{key}");
    }
}
