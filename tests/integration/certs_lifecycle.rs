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
//! went, not its bytes. `UPDATE_GOLDEN=1 cargo test --test certs_lifecycle` rewrites them.

use crate::support;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::cli::{scratch_dir, skip};
use x509_parser::certificate::X509Certificate;

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

/// Writes what random keys made as where it went (see the module doc).
struct Redactions(Vec<(String, String)>);

impl Redactions {
    /// From the files before the commands and after each of them (`states`, in order): what
    /// first appears after command N is written as `[... of PATH@N]`.
    fn new(before: &BTreeMap<String, Vec<u8>>, states: &[BTreeMap<String, Vec<u8>>]) -> Redactions {
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut seen_texts: std::collections::BTreeSet<String> = before
            .values()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        let mut seen_certs: std::collections::BTreeSet<Vec<u8>> = seen_texts
            .iter()
            .flat_map(|t| pem_certificates(t))
            .collect();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (step, after) in states.iter().enumerate() {
            // Certificate files name what they hold before the renders that carry it.
            let mut order: Vec<(&String, &Vec<u8>)> = after.iter().collect();
            order.sort_by_key(|(name, _)| {
                (!(name.ends_with(".crt") || name.ends_with(".key")), *name)
            });
            for (name, bytes) in order {
                let label = format!("{name}@{}", step + 1);
                let text = String::from_utf8_lossy(bytes).into_owned();
                if seen_texts.insert(text.clone()) {
                    pairs.push((b64.encode(text.as_bytes()), format!("[base64 of {label}]")));
                    pairs.push((b64.encode(text.trim_end()), format!("[base64 of {label}]")));
                    // The chart stamps the trust bundle's digest on the identity pod template.
                    for variant in [text.as_str(), text.trim_end()] {
                        let hex: String = Sha256::digest(variant.as_bytes())
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect();
                        pairs.push((hex, format!("[sha256 of {label}]")));
                    }
                }
                for der in pem_certificates(&text) {
                    if !seen_certs.insert(der.clone()) {
                        continue;
                    }
                    pairs.push((fingerprint(&der), format!("[fingerprint of {label}]")));
                    for line in b64.encode(&der).as_bytes().chunks(64) {
                        pairs.push((
                            String::from_utf8(line.to_vec()).unwrap(),
                            format!("[line of {label}]"),
                        ));
                    }
                }
            }
        }
        // Longest first: a PEM line is part of the file's text.
        pairs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        pairs.retain(|(from, _)| from.len() >= 16);
        Redactions(pairs)
    }

    fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (from, to) in &self.0 {
            out = out.replace(from, to);
        }
        out
    }
}

/// Runs one case; returns what `expected.txt` must hold.
fn produce(case: &Path) -> String {
    let work = scratch_dir(&format!(
        "certs-golden-{}",
        case.file_name().unwrap().to_string_lossy()
    ));
    let setup = std::fs::read_to_string(case.join("setup")).unwrap_or_default();
    for line in setup.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        match parts.as_slice() {
            ["copy", from, to] => copy_tree(&case.join(from), &work.join(to)),
            ["mkdir", dir] => std::fs::create_dir_all(work.join(dir)).unwrap(),
            _ => panic!("{}: bad setup line {line:?}", case.display()),
        }
    }
    let before = files(&work);
    let commands = std::fs::read_to_string(case.join("commands")).unwrap();
    let mut runs = Vec::new();
    let mut states = Vec::new();
    for line in commands.lines().filter(|l| !l.trim().is_empty()) {
        let mut args: Vec<&str> = line.split_whitespace().collect();
        // `SOURCE_DATE_EPOCH=N command ...` runs that command at another instant.
        let at = match args
            .first()
            .and_then(|a| a.strip_prefix("SOURCE_DATE_EPOCH="))
        {
            Some(at) => {
                args.remove(0);
                at
            }
            None => GOLDEN_EPOCH,
        };
        let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .args(&args)
            .current_dir(&work)
            .env("SOURCE_DATE_EPOCH", at)
            .output()
            .unwrap();
        let shown = match at {
            GOLDEN_EPOCH => format!("meshchart {}", args.join(" ")),
            at => format!("SOURCE_DATE_EPOCH={at} meshchart {}", args.join(" ")),
        };
        runs.push((shown, out));
        states.push(files(&work));
    }
    let after = files(&work);
    let redactions = Redactions::new(&before, &states);
    let mut text = String::new();
    for (line, out) in runs {
        text.push_str(&format!(
            "$ {line}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status.code().unwrap_or(-1),
            redactions.apply(&String::from_utf8_lossy(&out.stdout)),
            redactions.apply(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    text.push_str("--- files\n");
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let state = match (before.get(name), after.get(name)) {
            (Some(a), Some(b)) if a == b => "unchanged",
            (Some(_), Some(_)) => "changed",
            (None, Some(_)) => "new",
            _ => "removed",
        };
        text.push_str(&format!("{name}  {state}\n"));
    }
    let _ = std::fs::remove_dir_all(&work);
    text
}

#[test]
fn certs_golden_cases_match() {
    let root = repo().join("tests/golden/certs");
    let update = meshchart::golden::update_requested();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("commands").is_file())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 8,
        "found {} cases under {}",
        cases.len(),
        root.display()
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            readme.contains(&format!("`{name}`")),
            "tests/golden/certs/README.md has no line for case {name}"
        );
        let actual = produce(&case);
        let expected_path = case.join("expected.txt");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
        } else {
            failures.push(format!(
                "golden case {name} differs:\n{}",
                similar::TextDiff::from_lines(&expected, &actual)
                    .unified_diff()
                    .header(&expected_path.display().to_string(), "actual")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is intended: UPDATE_GOLDEN=1 cargo test --test certs_lifecycle)",
        failures.join("\n")
    );
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

#[test]
fn a_renewal_killed_at_any_point_leaves_the_old_issuer_or_the_whole_new_state() {
    let work = scratch_dir("certs-kill");
    let dir = work.join("c");
    let original = files(&fixtures().join("kept"));
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    let (mut old_seen, mut new_seen) = (0, 0);
    for round in 0..24u64 {
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(&fixtures().join("kept"), &dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .args(["certs", "renew", "c"])
            .current_dir(&work)
            .env("SOURCE_DATE_EPOCH", GOLDEN_EPOCH)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(round * round * 60));
        let _ = child.kill();
        let _ = child.wait();
        let now = files(&dir);
        if now == original {
            old_seen += 1;
        } else {
            new_seen += 1;
            assert_eq!(now["ca.crt"], original["ca.crt"], "round {round}");
            assert_ne!(now["issuer.crt"], original["issuer.crt"], "round {round}");
            assert_eq!(
                now["retired/issuer-20231114T221320Z.crt"], original["issuer.crt"],
                "round {round}"
            );
            assert_eq!(
                now["retired/issuer-20231114T221320Z.key"], original["issuer.key"],
                "round {round}"
            );
        }
        // Either state renders: the issuer key is its certificate's, signed by the root.
        ok(&meshchart_in(&work, GOLDEN_EPOCH, &render));
    }
    // The next run removes what a killed one left beside the folder.
    ok(&meshchart_in(&work, GOLDEN_EPOCH, &["certs", "renew", "c"]));
    let leftovers: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    eprintln!("killed renewals: {old_seen} left the old state, {new_seen} the new one");
    let _ = std::fs::remove_dir_all(&work);
}

/// The names under `dir/retired/`, sorted.
fn retired_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("retired"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn two_renewals_in_one_second_keep_both_retired_issuers() {
    let work = scratch_dir("certs-renew-twice");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let first = read(&dir, "issuer.crt");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let second = read(&dir, "issuer.crt");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let names = retired_names(&dir);
    assert_eq!(names.len(), 4, "two certificates and two keys: {names:?}");
    let kept: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".crt"))
        .map(|n| read(&dir, &format!("retired/{n}")))
        .collect();
    assert!(kept.contains(&first) && kept.contains(&second), "{names:?}");
}

#[test]
fn a_renewal_then_a_rotation_in_one_second_keep_every_retired_issuer() {
    let work = scratch_dir("certs-renew-rotate");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    let renewed = read(&dir, "issuer.crt");
    ok(&meshchart_in(
        &work,
        LATER,
        &["certs", "rotate-root", "c", "--phase", "bundle"],
    ));
    ok(&meshchart_in(
        &work,
        LATER,
        &["certs", "rotate-root", "c", "--phase", "issuer"],
    ));
    let kept: Vec<String> = retired_names(&dir)
        .iter()
        .filter(|n| n.starts_with("issuer-") && n.ends_with(".crt"))
        .map(|n| read(&dir, &format!("retired/{n}")))
        .collect();
    assert_eq!(kept.len(), 2, "{:?}", retired_names(&dir));
    assert!(kept.contains(&renewed));
}

#[test]
fn a_certs_folder_of_another_user_stays_theirs_through_a_renewal() {
    use std::os::unix::fs::MetadataExt as _;
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root, so the folder cannot be given to another user");
        return;
    }
    let work = scratch_dir("certs-owner");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    let owner = |path: &Path| {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.uid(), meta.gid())
    };
    for path in [dir.clone(), dir.join("issuer.crt"), dir.join("issuer.key")] {
        std::os::unix::fs::chown(&path, Some(12345), Some(12345)).unwrap();
    }
    ok(&meshchart_in(&work, LATER, &["certs", "renew", "c"]));
    for path in [dir.clone(), dir.join("issuer.crt"), dir.join("issuer.key")] {
        assert_eq!(owner(&path), (12345, 12345), "{}", path.display());
    }
    assert_eq!(
        std::fs::metadata(dir.join("issuer.key")).unwrap().mode() & 0o777,
        0o600
    );
}

#[test]
fn a_retired_folder_linked_elsewhere_is_named_once() {
    let work = scratch_dir("certs-retired-link");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let elsewhere = work.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, work.join("c/retired")).unwrap();
    let out = meshchart_in(&work, LATER, &["certs", "renew", "c"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("c/retired").count(), 1, "{stderr}");
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
}

#[test]
fn a_folder_holding_only_a_root_says_how_to_make_its_issuer_and_that_command_makes_it() {
    let work = scratch_dir("certs-root-only");
    ok(&meshchart_in(
        &work,
        GOLDEN_EPOCH,
        &["certs", "create", "c"],
    ));
    let dir = work.join("c");
    std::fs::remove_file(dir.join("issuer.crt")).unwrap();
    std::fs::remove_file(dir.join("issuer.key")).unwrap();
    let mut render = RENDER_IDENTITY.to_vec();
    render.push("c");
    let refused = meshchart_in(&work, LATER, &render);
    let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(!refused.status.success(), "{stderr}");
    let command = "meshchart certs renew c";
    assert!(stderr.contains(&format!("`{command}`")), "{stderr}");
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let made = ok(&meshchart_in(&work, LATER, &args));
    let root = read(&dir, "ca.crt");
    assert!(verifies(&read(&dir, "issuer.crt"), &root), "{made}");
    ok(&meshchart_in(&work, LATER, &render));
}
