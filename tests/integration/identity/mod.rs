//! Identity and webhook material: what `complete_material` generates, keeps, reuses and rejects.

use crate::support;

mod certs_dir;
mod generated;
mod heartbeat;
mod modern_lines;
mod rejected;

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
