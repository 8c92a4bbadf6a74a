//! The certificate lifecycle (`meshchart certs`, and what `render --certs-dir` does with the
//! folder): golden cases in `tests/golden/certs/`, and checks that hold whatever the random key
//! bytes are (signatures verified here with x509-parser, and by `openssl verify` when it is
//! installed).
//!
//! A golden case is a folder: `setup` (lines `copy SRC DEST`, SRC relative to the case, DEST to
//! an empty work folder), `commands` (one meshchart command per line, arguments split on
//! spaces, run in the work folder with SOURCE_DATE_EPOCH at the golden instant), and
//! `expected.txt` (a line may start with `SOURCE_DATE_EPOCH=N` to run at another instant): each
//! command's exit code, stdout and stderr, then every file of the work
//! folder marked `unchanged`, `changed`, `new` or `removed`. Certificates the commands made
//! have random keys: their fingerprints, PEM text, base64 and SHA-256 are written as `[... of PATH]`
//! (PATH@N: the first certificate file, else the first file, holding them after command N), so the expectation pins where each new certificate
//! went, not its bytes. `UPDATE_GOLDEN=1 cargo test --test integration certs_lifecycle` rewrites them.

use crate::support;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::cli::{scratch_dir, skip};
use x509_parser::certificate::X509Certificate;

mod golden;
mod interruptions;
mod renewals;

/// The golden instant, 2023-11-14T22:13:20Z.
const GOLDEN_EPOCH: &str = "1700000000";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    repo().join("tests/certs-lifecycle")
}

/// Every file under `dir` (relative path, bytes), the output door's record and staging left
/// out.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(here) = stack.pop() {
        for entry in std::fs::read_dir(&here).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if name.ends_with(".meshchart-outputs") || name.contains(".meshchart-staging-") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                found.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// The DER of each PEM certificate in `text`.
fn pem_certificates(text: &str) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut body: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "-----BEGIN CERTIFICATE-----" {
            body = Some(String::new());
        } else if line == "-----END CERTIFICATE-----" {
            if let Some(b64) = body.take() {
                found.push(
                    base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .unwrap(),
                );
            }
        } else if let Some(b64) = &mut body {
            b64.push_str(line);
        }
    }
    found
}

/// `AB:CD:...`, as `openssl x509 -fingerprint -sha256` prints it.
fn fingerprint(der: &[u8]) -> String {
    Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

// ---- Checks that hold whatever the random keys are ----

fn meshchart_in(dir: &Path, at: &str, args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", at)
        .output()
        .unwrap();
    out
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn with_certs<R>(text: &str, check: impl FnOnce(&[X509Certificate<'_>]) -> R) -> R {
    let ders = pem_certificates(text);
    let parsed: Vec<X509Certificate<'_>> = ders
        .iter()
        .map(|der| x509_parser::parse_x509_certificate(der).unwrap().1)
        .collect();
    check(&parsed)
}

/// Whether the issuer in `issuer_pem` is signed by the (single) root in `root_pem`.
fn verifies(issuer_pem: &str, root_pem: &str) -> bool {
    with_certs(issuer_pem, |issuer| {
        with_certs(root_pem, |roots| {
            roots.iter().any(|root| {
                issuer[0].issuer() == root.subject()
                    && issuer[0].verify_signature(Some(root.public_key())).is_ok()
            })
        })
    })
}

/// The trust anchors a render carries: the `ca-bundle.crt` of `linkerd-identity-trust-roots`.
fn rendered_anchors(stream: &str) -> String {
    let start = stream
        .find("name: linkerd-identity-trust-roots")
        .expect("the trust roots ConfigMap");
    let body = &stream[start..];
    let bundle = body.find("ca-bundle.crt: |").expect("ca-bundle.crt");
    let mut pem = String::new();
    for line in body[bundle..].lines().skip(1) {
        let trimmed = line.trim();
        if !line.starts_with("    ") || trimmed.is_empty() {
            break;
        }
        pem.push_str(trimmed);
        pem.push('\n');
    }
    pem
}

/// `openssl verify -attime AT -CAfile CA CRT`, or `None` (after saying so) without openssl.
fn openssl_verify(test: &str, dir: &Path, at: &str, ca: &str, crt: &str) -> Option<String> {
    let out = Command::new("openssl")
        .args(["verify", "-attime", at, "-CAfile", ca, crt])
        .current_dir(dir)
        .output();
    match out {
        Ok(out) => Some(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(_) => {
            skip(test, "openssl", "openssl is not installed");
            None
        }
    }
}

const RENDER_IDENTITY: [&str; 6] = [
    "render",
    "-n",
    "linkerd",
    "--show-only",
    "templates/identity.yaml",
    "--certs-dir",
];

/// 2024-06-01T00:00:00Z, a little over 200 days after the golden instant.
const LATER: &str = "1717200000";
