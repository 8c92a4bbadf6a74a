//! The certificate lifecycle of a `--certs-dir` folder (`meshchart certs`): create a trust root
//! and issuer, renew the issuer from the kept root, rotate the root in Linkerd's phases, renew
//! the webhook serving pairs, and inspect what the folder holds.
//!
//! The folder's layout, which `render --certs-dir` reads:
//!
//! | file | what |
//! | --- | --- |
//! | `ca.crt` | the trust anchors the render uses as `identityTrustAnchorsPEM` (two during a rotation) |
//! | `ca.key` | the key of the root that signs issuers; absent when the root is kept offline |
//! | `issuer.crt`, `issuer.key` | the identity issuer |
//! | `ca-next.crt`, `ca-next.key` | the new root, between a rotation's `bundle` and `issuer` phases |
//! | `retired/` | what a command replaced (`issuer-<instant>.crt`, ...), kept until it expires |
//! | `proxy-injector.crt`, ... | the webhook serving pairs |
//!
//! Every command writes through the output door ([`crate::output`]): under the folder's lock,
//! the whole change in one step or nothing. The only clock is the instant each request carries;
//! keys are random, nothing else is.

use super::clock::{rfc3339, Clock};
use super::error::{IdentityError, Origin};
use super::generate::{self, IssuerName, RootSigner};
use super::x509;
use crate::output::{OutputSet, Removal};
use camino::{Utf8Path, Utf8PathBuf};
use std::time::SystemTime;
use time::{Duration, OffsetDateTime};

/// The trust anchors the render uses.
pub const ANCHORS_FILE: &str = "ca.crt";
/// The key of the root that signs issuers (absent: the root is offline).
pub const ROOT_KEY_FILE: &str = "ca.key";
/// The issuer certificate.
pub const ISSUER_CRT_FILE: &str = "issuer.crt";
/// The issuer key.
pub const ISSUER_KEY_FILE: &str = "issuer.key";
/// The new root during a rotation.
pub const NEXT_ROOT_CRT_FILE: &str = "ca-next.crt";
/// The new root's key during a rotation.
pub const NEXT_ROOT_KEY_FILE: &str = "ca-next.key";
/// Where replaced material is kept until it expires.
pub const RETIRED_DIR: &str = "retired";

/// The name of every root meshchart makes. A root is a trust boundary, not a cluster: the
/// clusters that share one (a fleet sharing a `--certs-dir`, a multicluster mesh, which needs a
/// shared root) may each have their own trust domain, and Linkerd reads no name from a root.
/// So no root is named after a cluster's domain; roots are told apart by fingerprint.
pub const ROOT_COMMON_NAME: &str = "root.linkerd";

/// How many days before expiry `render` warns, and `certs inspect` flags a certificate.
pub const WARN_DAYS: i64 = 30;

/// The webhook serving pairs a folder may hold: file stem and the component it serves.
pub(super) const WEBHOOK_STEMS: [&str; 3] = ["proxy-injector", "sp-validator", "policy-validator"];

/// `certs create`.
#[derive(Clone, Debug)]
pub struct CreateRequest {
    /// The folder (made if missing; its parent must exist).
    pub dir: Utf8PathBuf,
    /// The trust domain the issuer is named for (`identity.linkerd.<domain>`).
    pub trust_domain: String,
    /// The root's lifetime.
    pub root_validity: std::time::Duration,
    /// The issuer's lifetime.
    pub issuer_validity: std::time::Duration,
    /// The instant the certificates start from.
    pub now: SystemTime,
}

/// `certs renew`.
#[derive(Clone, Debug)]
pub struct RenewRequest {
    /// The folder.
    pub dir: Utf8PathBuf,
    /// The root key, when the folder does not hold it (kept offline).
    pub ca_key: Option<Utf8PathBuf>,
    /// The new certificates' lifetime.
    pub validity: std::time::Duration,
    /// Renew the webhook serving pairs instead of the issuer.
    pub webhooks: bool,
    /// The trust domain an issuer is named for when the folder holds none yet (a root alone):
    /// `identity.linkerd.DOMAIN`, as `certs create` names it; `None` is `cluster.local`.
    pub trust_domain: Option<String>,
    /// The instant the new certificates start from.
    pub now: SystemTime,
}

/// A phase of a trust-root rotation, as Linkerd's "manually rotating control plane TLS
/// credentials" orders them; each phase is rolled out (and the workloads restarted) before the
/// next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RotatePhase {
    /// A new root; `ca.crt` becomes the bundle of the new and the old root. The issuer stays
    /// (the old root still signs it), so proxies that have not restarted still trust it.
    Bundle,
    /// A new issuer signed by the new root (every proxy trusts the bundle by now).
    Issuer,
    /// `ca.crt` holds the new root only.
    Finish,
}

/// `certs rotate-root`.
#[derive(Clone, Debug)]
pub struct RotateRequest {
    /// The folder.
    pub dir: Utf8PathBuf,
    /// Which phase to run.
    pub phase: RotatePhase,
    /// The new root's key for the `issuer` phase, when the folder does not hold it.
    pub ca_key: Option<Utf8PathBuf>,
    /// The new root's lifetime (`bundle`) or the new issuer's (`issuer`).
    pub validity: std::time::Duration,
    /// The instant the new certificates start from.
    pub now: SystemTime,
}

/// Files to add to the folder: name, text, and whether it is a secret (mode 0600).
type NewFiles = Vec<(String, String, bool)>;

/// A certificate read from a file.
struct Cert {
    der: Vec<u8>,
}

impl Cert {
    fn parsed(&self) -> x509::Certificate<'_> {
        // Every Cert was parsed once when read (see `read_certs`).
        x509::parse(&self.der).unwrap_or_else(|_| unreachable!("checked when read"))
    }

    fn fingerprint(&self) -> String {
        x509::fingerprint(&self.der)
    }

    fn subject(&self) -> String {
        self.parsed().subject.to_string()
    }

    /// `CN=root.linkerd (SHA-256 AB:CD:...)`.
    fn named(&self) -> String {
        format!("{} (SHA-256 {})", self.subject(), self.fingerprint())
    }

    fn not_after(&self) -> i64 {
        self.parsed().not_after
    }

    fn signed(&self, by: &Cert) -> bool {
        let (cert, signer) = (self.parsed(), by.parsed());
        cert.issuer == signer.subject && x509::signed_by(&cert, &signer.public_key)
    }
}

/// A file's text, `None` when it does not exist (read through the input door).
fn read_optional(path: &Utf8Path) -> Result<Option<String>, IdentityError> {
    match crate::input::read_path(path) {
        Ok(input) => Ok(Some(input.text)),
        Err(crate::input::InputError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn read_certs(text: &str, path: &Utf8Path) -> Result<Vec<Cert>, IdentityError> {
    let invalid = |reason: String| IdentityError::InvalidPem {
        origin: path.to_string(),
        reason,
    };
    let ders = super::pem::certificates(text).map_err(invalid)?;
    ders.into_iter()
        .map(|der| {
            x509::parse(&der)
                .map_err(|e| invalid(format!("not a valid X.509 certificate ({e})")))?;
            Ok(Cert { der })
        })
        .collect()
}

/// `20231114T221320Z`: an instant in a file name.
fn file_stamp(now: OffsetDateTime) -> String {
    rfc3339(now).replace(['-', ':'], "")
}

/// A name under `retired/` for what is retired at `stamp` as files with `endings`:
/// `retired/<stem>-<stamp>`, or, when a file of that name with one of `endings` is already
/// there (two renewals in one second, or under one `SOURCE_DATE_EPOCH`, or a renewal and a
/// rotation), the first free `-2`, `-3`, ...: a rollback copy is never overwritten. Only
/// `endings` are looked at, so a rotation's old root keeps one name for its key (retired by
/// the issuer phase) and its certificate (by the finish phase). `taken` holds names this
/// command already chose.
fn fresh_retired(
    dir: &Utf8Path,
    stem: &str,
    endings: &[&str],
    stamp: &str,
    taken: &[String],
) -> String {
    let base = format!("{RETIRED_DIR}/{stem}-{stamp}");
    let free = |candidate: &str| {
        endings.iter().all(|ending| {
            let name = format!("{candidate}{ending}");
            !taken.contains(&name) && std::fs::symlink_metadata(dir.join(&name)).is_err()
        })
    };
    if free(&base) {
        return base;
    }
    (2u64..)
        .map(|n| format!("{base}-{n}"))
        .find(|candidate| free(candidate))
        .unwrap_or(base)
}

/// `2024-11-13T22:13:20Z (365 days left)`.
fn until(not_after: i64, now: i64) -> String {
    let when = OffsetDateTime::from_unix_timestamp(not_after)
        .map(rfc3339)
        .unwrap_or_else(|_| format!("{not_after} s after 1970"));
    format!("{when} ({})", days_left(not_after, now))
}

/// `365 days left`, `1 day left`, `expired 3 days ago`.
pub(super) fn days_left(not_after: i64, now: i64) -> String {
    let plural = |n: i64| if n == 1 { "" } else { "s" };
    if not_after >= now {
        let days = (not_after - now) / 86_400;
        format!("{days} day{} left", plural(days))
    } else {
        let days = (now - not_after) / 86_400;
        format!("expired {days} day{} ago", plural(days))
    }
}

fn to_time(duration: std::time::Duration) -> Result<Duration, IdentityError> {
    Duration::try_from(duration).map_err(|_| IdentityError::TimeOutOfRange {
        detail: format!("a validity of {} seconds", duration.as_secs()),
    })
}

fn generate_error(what: &str) -> impl FnOnce(String) -> IdentityError + '_ {
    move |reason| IdentityError::Generate {
        what: what.to_owned(),
        reason,
    }
}

/// Refuses a folder that does not exist when its parent does not either: a mistyped path
/// would otherwise make a folder, and a new trust root, where none was meant.
pub(super) fn check_parent(dir: &Utf8Path) -> Result<(), IdentityError> {
    if dir.exists() {
        return Ok(());
    }
    match dir.parent() {
        Some(parent) if !parent.as_str().is_empty() && !parent.is_dir() => {
            Err(IdentityError::CertsDirParentMissing {
                dir: dir.to_owned(),
                parent: parent.to_owned(),
            })
        }
        _ => Ok(()),
    }
}

fn require_folder(dir: &Utf8Path) -> Result<(), IdentityError> {
    if dir.is_dir() {
        Ok(())
    } else {
        Err(IdentityError::CertsDirMissing {
            dir: dir.to_owned(),
        })
    }
}

/// Opens the folder under its exclusive lock, taking the files `adopt` names as the set's own
/// (see [`OutputSet::adopt`]): the lifecycle's files are what its commands replace, whichever
/// tool made them.
fn open(dir: &Utf8Path, adopt: &[&str]) -> Result<OutputSet, IdentityError> {
    let mut set = OutputSet::begin(dir, None)?;
    for name in adopt {
        set.adopt(name)?;
    }
    Ok(set)
}

/// Marks retired files whose certificate expired at `now` for removal; returns notes.
fn sweep_retired(set: &OutputSet, now: i64) -> Result<Vec<String>, IdentityError> {
    let dir = set.folder().to_owned();
    let mut notes = Vec::new();
    let retired: Vec<String> = set
        .recorded()
        .filter(|name| name.starts_with(&format!("{RETIRED_DIR}/")) && name.ends_with(".crt"))
        .map(str::to_owned)
        .collect();
    for name in retired {
        let path = dir.join(&name);
        let Some(text) = read_optional(&path)? else {
            continue;
        };
        let Ok(certs) = read_certs(&text, &path) else {
            continue;
        };
        if certs.iter().all(|c| c.not_after() < now) {
            set.remove(&name);
            let key = format!("{}.key", name.trim_end_matches(".crt"));
            set.remove(&key);
            notes.push(format!("removed {path} and its key: expired"));
        }
    }
    Ok(notes)
}

/// Adds `files` (name, text, secret) and commits, removing what was marked.
fn commit(set: OutputSet, files: &[(String, String, bool)]) -> Result<(), IdentityError> {
    for (name, text, secret) in files {
        set.write(name, text.as_bytes(), *secret)?;
    }
    set.commit(Removal::None)?;
    Ok(())
}

/// `meshchart certs create DIR`: a new root and an issuer it signs. Returns the notes.
pub fn create(request: &CreateRequest) -> Result<Vec<String>, IdentityError> {
    let dir = request.dir.as_path();
    check_parent(dir)?;
    super::check_dns_name("--identity-trust-domain", &request.trust_domain, false)?;
    let set = open(dir, &[])?;
    for name in [ANCHORS_FILE, ISSUER_CRT_FILE, NEXT_ROOT_CRT_FILE] {
        if dir.join(name).exists() {
            return Err(IdentityError::CertsDirInUse {
                dir: dir.to_owned(),
                file: name,
            });
        }
    }
    let clock = Clock(request.now);
    let now = clock.datetime()?;
    let issuer_cn = format!("identity.linkerd.{}", request.trust_domain);
    let root = generate::root(ROOT_COMMON_NAME, now, to_time(request.root_validity)?)
        .map_err(generate_error("the trust root"))?;
    let signer =
        RootSigner::new(&root.crt_pem, &root.key_pem).map_err(generate_error("the trust root"))?;
    let issuer = signer
        .sign_issuer(
            &IssuerName::Common(&issuer_cn),
            now,
            to_time(request.issuer_validity)?,
        )
        .map_err(generate_error(&issuer_cn))?;
    let files = vec![
        (ANCHORS_FILE.to_owned(), root.crt_pem.clone(), false),
        (ROOT_KEY_FILE.to_owned(), root.key_pem, true),
        (ISSUER_CRT_FILE.to_owned(), issuer.crt_pem, false),
        (ISSUER_KEY_FILE.to_owned(), issuer.key_pem, true),
    ];
    commit(set, &files)?;
    let root_cert = &read_certs(&root.crt_pem, &dir.join(ANCHORS_FILE))?[0];
    Ok(vec![
        format!(
            "made a new trust root {} in {dir}/{ANCHORS_FILE}, valid until {}",
            root_cert.named(),
            rfc3339(root.not_after)
        ),
        format!(
            "made the issuer CN={issuer_cn} in {dir}/{ISSUER_CRT_FILE}, signed by it, valid \
             until {}",
            rfc3339(issuer.not_after)
        ),
        format!(
            "to keep the root offline, move {dir}/{ROOT_KEY_FILE} to safe storage; `meshchart \
             certs renew {dir} --ca-key PATH` then renews the issuer"
        ),
    ])
}

/// Reads `ca.crt` and the key (`--ca-key`, else `DIR/<key_file>`), and finds the anchor the
/// key belongs to.
fn signing_root(
    dir: &Utf8Path,
    crt_file: &str,
    key_file: &str,
    ca_key: Option<&Utf8Path>,
    clock: Clock,
) -> Result<(String, Cert, RootSigner, Utf8PathBuf), IdentityError> {
    let crt_path = dir.join(crt_file);
    let text = read_optional(&crt_path)?.ok_or_else(|| IdentityError::CertsDirIncomplete {
        dir: dir.to_owned(),
        file: crt_file.to_owned(),
    })?;
    let certs = read_certs(&text, &crt_path)?;
    let key_path = match ca_key {
        Some(path) => path.to_owned(),
        None => dir.join(key_file),
    };
    let key_text = match read_optional(&key_path)? {
        Some(text) => text,
        None if ca_key.is_some() => {
            return Err(crate::input::InputError::NotFound {
                name: key_path.to_string(),
            }
            .into())
        }
        None => {
            return Err(IdentityError::RootKeyOffline {
                dir: dir.to_owned(),
                key: key_file.to_owned(),
                crt: crt_file.to_owned(),
            })
        }
    };
    let now = clock.unix_seconds()?;
    let mut last_error = None;
    for (index, cert) in certs.iter().enumerate() {
        let pem = super::pem::encode("CERTIFICATE", &cert.der);
        match RootSigner::new(&pem, &key_text) {
            Ok(signer) => {
                let parsed = cert.parsed();
                if !(parsed.not_before..=parsed.not_after).contains(&now) {
                    return Err(IdentityError::Lifecycle {
                        path: crt_path.clone(),
                        reason: format!(
                            "the root {} is valid until {}, not at {}: it can sign nothing; \
                             make a new root with `meshchart certs create` in a new folder",
                            cert.named(),
                            until(parsed.not_after, now),
                            rfc3339(clock.datetime()?)
                        ),
                    });
                }
                let mut certs = certs;
                let root = certs.swap_remove(index);
                return Ok((text, root, signer, key_path));
            }
            Err(reason) => last_error = Some(reason),
        }
    }
    Err(IdentityError::InvalidPem {
        origin: key_path.to_string(),
        reason: format!(
            "it is not the key of {} in {crt_path} ({})",
            if certs.len() == 1 {
                "the root"
            } else {
                "any root"
            },
            last_error.unwrap_or_default()
        ),
    })
}

/// Whether `dir` holds a trust root (`ca.crt`) and neither issuer file: what `certs renew`
/// makes an issuer for.
pub(super) fn holds_root_without_issuer(dir: &Utf8Path) -> bool {
    let exists = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    exists(ANCHORS_FILE) && !exists(ISSUER_CRT_FILE) && !exists(ISSUER_KEY_FILE)
}

/// The `meshchart certs` command that makes an issuer for `dir`'s root, named for `domain`.
pub(super) fn make_issuer_command(dir: &Utf8Path, domain: &str) -> String {
    let mut command = format!("meshchart certs renew {dir}");
    if domain != DEFAULT_TRUST_DOMAIN {
        command.push_str(&format!(" --identity-trust-domain {domain}"));
    }
    if std::fs::symlink_metadata(dir.join(ROOT_KEY_FILE)).is_err() {
        command.push_str(" --ca-key PATH");
    }
    command
}

/// The trust domain of an issuer named without one.
const DEFAULT_TRUST_DOMAIN: &str = "cluster.local";

/// A new issuer for a folder that holds a root alone, named for `domain`, signed by `signer`
/// and checked as the render will; returns its files and notes.
fn first_issuer(
    dir: &Utf8Path,
    signer: &RootSigner,
    anchors_text: &str,
    domain: &str,
    validity: std::time::Duration,
    clock: Clock,
) -> Result<(NewFiles, Vec<String>), IdentityError> {
    super::check_dns_name("--identity-trust-domain", domain, false)?;
    let issuer_cn = format!("identity.linkerd.{domain}");
    let made = signer
        .sign_issuer(
            &IssuerName::Common(&issuer_cn),
            clock.datetime()?,
            to_time(validity)?,
        )
        .map_err(generate_error(&issuer_cn))?;
    check_new_issuer(dir, anchors_text, &made.crt_pem, &made.key_pem, clock)?;
    let notes = vec![format!(
        "made the issuer CN={issuer_cn} ({dir} held a root and no issuer): valid until {}",
        rfc3339(made.not_after)
    )];
    Ok((
        vec![
            (ISSUER_CRT_FILE.to_owned(), made.crt_pem, false),
            (ISSUER_KEY_FILE.to_owned(), made.key_pem, true),
        ],
        notes,
    ))
}

/// The issuer in place: certificate and key texts, `None` for a missing key.
fn current_issuer(dir: &Utf8Path) -> Result<(String, Cert, Option<String>), IdentityError> {
    let path = dir.join(ISSUER_CRT_FILE);
    let text = read_optional(&path)?.ok_or_else(|| IdentityError::CertsDirIncomplete {
        dir: dir.to_owned(),
        file: ISSUER_CRT_FILE.to_owned(),
    })?;
    let cert = read_certs(&text, &path)?.remove(0);
    let key = read_optional(&dir.join(ISSUER_KEY_FILE))?;
    Ok((text, cert, key))
}

/// Makes a new issuer with the old one's name, signed by `signer`, checks it as the render
/// will (against `anchors_text`), and returns the files: the new pair and the old one retired.
fn reissue(
    dir: &Utf8Path,
    signer: &RootSigner,
    anchors_text: &str,
    validity: std::time::Duration,
    clock: Clock,
) -> Result<(NewFiles, Vec<String>), IdentityError> {
    let (old_text, old, old_key) = current_issuer(dir)?;
    let now = clock.datetime()?;
    let old_parsed = old.parsed();
    let made = signer
        .sign_issuer(
            &IssuerName::Existing(old_parsed.subject),
            now,
            to_time(validity)?,
        )
        .map_err(generate_error(&old.subject()))?;
    // The render's own checks: key, algorithm, CA, validity now, signed by an anchor.
    check_new_issuer(dir, anchors_text, &made.crt_pem, &made.key_pem, clock)?;
    let stamp = file_stamp(now);
    let retired = fresh_retired(dir, "issuer", &[".crt", ".key"], &stamp, &[]);
    let mut files = vec![
        (ISSUER_CRT_FILE.to_owned(), made.crt_pem, false),
        (ISSUER_KEY_FILE.to_owned(), made.key_pem, true),
    ];
    let mut notes = vec![format!(
        "renewed the issuer {}: valid until {}",
        old.subject(),
        rfc3339(made.not_after)
    )];
    let unix_now = clock.unix_seconds()?;
    if old_parsed.not_after < unix_now {
        // Nothing can roll back to an expired issuer.
        notes.push(format!(
            "the old issuer expired at {}: it is not kept",
            until(old_parsed.not_after, unix_now)
        ));
    } else {
        files.push((format!("{retired}.crt"), old_text, false));
        if let Some(key) = old_key {
            files.push((format!("{retired}.key"), key, true));
        }
        notes.push(format!(
            "kept the old issuer (valid until {}) as {dir}/{retired}.crt until it expires: to \
             roll back, copy it and its key over {ISSUER_CRT_FILE} and {ISSUER_KEY_FILE}",
            until(old_parsed.not_after, unix_now)
        ));
    }
    Ok((files, notes))
}

/// `meshchart certs renew DIR`: a new issuer from the kept root (or, with `webhooks`, new
/// webhook serving pairs). Returns the notes.
pub fn renew(request: &RenewRequest) -> Result<Vec<String>, IdentityError> {
    let dir = request.dir.as_path();
    require_folder(dir)?;
    if request.webhooks {
        return renew_webhooks(request);
    }
    let clock = Clock(request.now);
    let set = open(dir, &[ISSUER_CRT_FILE, ISSUER_KEY_FILE])?;
    let (anchors_text, root, signer, key_path) = signing_root(
        dir,
        ANCHORS_FILE,
        ROOT_KEY_FILE,
        request.ca_key.as_deref(),
        clock,
    )?;
    // Mid-rotation, the old root still signs renewals (every proxy trusts it); the new one
    // signs only by the rotation's issuer phase.
    if let Some(next) = read_optional(&dir.join(NEXT_ROOT_CRT_FILE))? {
        let next = read_certs(&next, &dir.join(NEXT_ROOT_CRT_FILE))?;
        if next.iter().any(|n| n.der == root.der) {
            return Err(IdentityError::Lifecycle {
                path: key_path,
                reason: format!(
                    "it is the key of the new root {} of the rotation under way: sign the issuer \
                     with it by `meshchart certs rotate-root {dir} --phase issuer`",
                    root.named()
                ),
            });
        }
    }
    let (files, mut notes) = if holds_root_without_issuer(dir) {
        let domain = request
            .trust_domain
            .as_deref()
            .unwrap_or(DEFAULT_TRUST_DOMAIN);
        first_issuer(dir, &signer, &anchors_text, domain, request.validity, clock)?
    } else {
        reissue(dir, &signer, &anchors_text, request.validity, clock)?
    };
    notes.insert(
        1,
        format!(
            "signed by the kept root {}; the trust anchors ({dir}/{ANCHORS_FILE}) did not change",
            root.named()
        ),
    );
    notes.extend(sweep_retired(&set, clock.unix_seconds()?)?);
    commit(set, &files)?;
    Ok(notes)
}

fn renew_webhooks(request: &RenewRequest) -> Result<Vec<String>, IdentityError> {
    let dir = request.dir.as_path();
    let clock = Clock(request.now);
    let now = clock.datetime()?;
    let stamp = file_stamp(now);
    let pairs: Vec<String> = WEBHOOK_STEMS
        .iter()
        .flat_map(|stem| [format!("{stem}.crt"), format!("{stem}.key")])
        .collect();
    let set = open(dir, &pairs.iter().map(String::as_str).collect::<Vec<_>>())?;
    let mut files: Vec<(String, String, bool)> = Vec::new();
    let mut notes = Vec::new();
    for stem in WEBHOOK_STEMS {
        let crt_name = format!("{stem}.crt");
        let crt_path = dir.join(&crt_name);
        let Some(text) = read_optional(&crt_path)? else {
            continue;
        };
        let old = read_certs(&text, &crt_path)?.remove(0);
        let parsed = old.parsed();
        let Some(host) = parsed.dns_names.first() else {
            return Err(IdentityError::Lifecycle {
                path: crt_path,
                reason: "it names no DNS name, so its renewal would serve none".to_owned(),
            });
        };
        let made = generate::serving_cert_for(host, now, to_time(request.validity)?)
            .map_err(generate_error(host))?;
        let key_name = format!("{stem}.key");
        let taken: Vec<String> = files.iter().map(|(name, _, _)| name.clone()).collect();
        let retired = fresh_retired(dir, stem, &[".crt", ".key"], &stamp, &taken);
        if let Some(key) = read_optional(&dir.join(&key_name))? {
            files.push((format!("{retired}.key"), key, true));
        }
        files.push((format!("{retired}.crt"), text, false));
        files.push((crt_name, made.crt_pem, false));
        files.push((key_name, made.key_pem, true));
        notes.push(format!(
            "renewed the {stem} serving certificate for {host}: valid until {} (the old one is \
             kept as {dir}/{retired}.crt)",
            rfc3339(made.not_after)
        ));
    }
    if files.is_empty() {
        return Err(IdentityError::Lifecycle {
            path: dir.to_owned(),
            reason: format!(
                "it holds no webhook serving pair ({}.crt): `render --certs-dir` makes them",
                WEBHOOK_STEMS.join(".crt, ")
            ),
        });
    }
    notes.extend(sweep_retired(&set, clock.unix_seconds()?)?);
    commit(set, &files)?;
    Ok(notes)
}

/// `meshchart certs rotate-root DIR --phase ...`. Returns the notes.
pub fn rotate_root(request: &RotateRequest) -> Result<Vec<String>, IdentityError> {
    let dir = request.dir.as_path();
    require_folder(dir)?;
    let clock = Clock(request.now);
    let set = open(
        dir,
        &[
            ANCHORS_FILE,
            ROOT_KEY_FILE,
            ISSUER_CRT_FILE,
            ISSUER_KEY_FILE,
            NEXT_ROOT_CRT_FILE,
            NEXT_ROOT_KEY_FILE,
        ],
    )?;
    let anchors_path = dir.join(ANCHORS_FILE);
    let anchors_text =
        read_optional(&anchors_path)?.ok_or_else(|| IdentityError::CertsDirIncomplete {
            dir: dir.to_owned(),
            file: ANCHORS_FILE.to_owned(),
        })?;
    let anchors = read_certs(&anchors_text, &anchors_path)?;
    let next_text = read_optional(&dir.join(NEXT_ROOT_CRT_FILE))?;
    let now = clock.datetime()?;
    let stamp = file_stamp(now);
    let mut notes = Vec::new();
    let files = match request.phase {
        RotatePhase::Bundle => {
            if next_text.is_some() || anchors.len() > 1 {
                return Err(IdentityError::Lifecycle {
                    path: anchors_path,
                    reason: format!(
                        "a rotation is under way ({} trust anchors{}): finish it first (`meshchart \
                         certs inspect {dir}` says which phase is next)",
                        anchors.len(),
                        if next_text.is_some() {
                            format!(", new root in {NEXT_ROOT_CRT_FILE}")
                        } else {
                            String::new()
                        }
                    ),
                });
            }
            let root = generate::root(ROOT_COMMON_NAME, now, to_time(request.validity)?)
                .map_err(generate_error("the new trust root"))?;
            let new = read_certs(&root.crt_pem, &dir.join(NEXT_ROOT_CRT_FILE))?.remove(0);
            // New first, then old, as `step certificate bundle ca-new.crt ca.crt` writes it.
            let bundle = format!("{}{}", root.crt_pem, anchors_text);
            notes.push(format!(
                "phase 1 of 3 (bundle): made a new trust root {} in {dir}/{NEXT_ROOT_CRT_FILE}, \
                 valid until {}",
                new.named(),
                rfc3339(root.not_after)
            ));
            notes.push(format!(
                "{dir}/{ANCHORS_FILE} now holds the new root and the old one {}; the issuer did \
                 not change",
                anchors[0].named()
            ));
            notes.push(format!(
                "next: render and roll out the control plane, restart the meshed workloads so \
                 every proxy trusts both roots, then run `meshchart certs rotate-root {dir} \
                 --phase issuer`"
            ));
            vec![
                (ANCHORS_FILE.to_owned(), bundle, false),
                (NEXT_ROOT_CRT_FILE.to_owned(), root.crt_pem, false),
                (NEXT_ROOT_KEY_FILE.to_owned(), root.key_pem, true),
            ]
        }
        RotatePhase::Issuer => {
            if next_text.is_none() {
                return Err(IdentityError::Lifecycle {
                    path: dir.join(NEXT_ROOT_CRT_FILE),
                    reason: format!(
                        "no rotation is under way (no new root): start one with `meshchart \
                         certs rotate-root {dir} --phase bundle`"
                    ),
                });
            }
            let (_, new_root, signer, _) = signing_root(
                dir,
                NEXT_ROOT_CRT_FILE,
                NEXT_ROOT_KEY_FILE,
                request.ca_key.as_deref(),
                clock,
            )?;
            if !anchors.iter().any(|a| a.der == new_root.der) {
                return Err(IdentityError::Lifecycle {
                    path: anchors_path,
                    reason: format!(
                        "it does not hold the new root {} of {NEXT_ROOT_CRT_FILE}: the proxies \
                         would not trust an issuer it signs",
                        new_root.named()
                    ),
                });
            }
            let (mut files, reissued) =
                reissue(dir, &signer, &anchors_text, request.validity, clock)?;
            notes.push(format!(
                "phase 2 of 3 (issuer): the issuer is now signed by the new root {}",
                new_root.named()
            ));
            notes.extend(reissued);
            // The new root becomes the folder's root: its key (when kept here) signs later
            // renewals; the old root's key is retired with it.
            if let Some(old_key) = read_optional(&dir.join(ROOT_KEY_FILE))? {
                let taken: Vec<String> = files.iter().map(|(name, _, _)| name.clone()).collect();
                let retired = fresh_retired(dir, "ca", &[".key"], &stamp, &taken);
                files.push((format!("{retired}.key"), old_key, true));
                set.remove(ROOT_KEY_FILE);
            }
            match read_optional(&dir.join(NEXT_ROOT_KEY_FILE))? {
                Some(key) => files.push((ROOT_KEY_FILE.to_owned(), key, true)),
                None => notes.push(
                    "the new root's key is kept offline: later renewals need `--ca-key` with it"
                        .to_owned(),
                ),
            }
            set.remove(NEXT_ROOT_CRT_FILE);
            set.remove(NEXT_ROOT_KEY_FILE);
            notes.push(format!(
                "next: render and roll out the control plane; once every proxy holds a \
                 certificate from the new issuer (restart the workloads, or wait the issuance \
                 lifetime, 24h by default), run `meshchart certs rotate-root {dir} --phase \
                 finish`"
            ));
            files
        }
        RotatePhase::Finish => {
            if next_text.is_some() {
                return Err(IdentityError::Lifecycle {
                    path: dir.join(NEXT_ROOT_CRT_FILE),
                    reason: format!(
                        "the issuer is still signed by the old root: run `meshchart certs \
                         rotate-root {dir} --phase issuer` first (dropping the old root now \
                         would break every proxy certificate it issued)"
                    ),
                });
            }
            if anchors.len() < 2 {
                return Err(IdentityError::Lifecycle {
                    path: anchors_path,
                    reason: "it holds one trust anchor: no rotation is under way".to_owned(),
                });
            }
            let (_, issuer, _) = current_issuer(dir)?;
            let (kept, dropped): (Vec<&Cert>, Vec<&Cert>) =
                anchors.iter().partition(|a| issuer.signed(a));
            if kept.is_empty() {
                return Err(IdentityError::Lifecycle {
                    path: dir.join(ISSUER_CRT_FILE),
                    reason: format!("none of the trust anchors in {anchors_path} signed it"),
                });
            }
            let text: String = kept
                .iter()
                .map(|c| super::pem::encode("CERTIFICATE", &c.der))
                .collect();
            notes.push(format!(
                "phase 3 of 3 (finish): {dir}/{ANCHORS_FILE} now holds only {}",
                kept.iter()
                    .map(|c| c.named())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            for old in &dropped {
                notes.push(format!("dropped the old root {}", old.named()));
            }
            notes.push(
                "next: render and roll out the control plane, then restart the meshed workloads \
                 so that no proxy trusts the old root any more"
                    .to_owned(),
            );
            let dropped_text: String = dropped
                .iter()
                .map(|c| super::pem::encode("CERTIFICATE", &c.der))
                .collect();
            let retired = fresh_retired(dir, "ca", &[".crt"], &stamp, &[]);
            vec![
                (ANCHORS_FILE.to_owned(), text, false),
                (format!("{retired}.crt"), dropped_text, false),
            ]
        }
    };
    notes.extend(sweep_retired(&set, clock.unix_seconds()?)?);
    commit(set, &files)?;
    Ok(notes)
}

/// `meshchart certs inspect DIR`: what the folder holds, at `now`.
pub fn inspect(dir: &Utf8Path, now: SystemTime) -> Result<String, IdentityError> {
    require_folder(dir)?;
    let _reading = super::certs_dir::lock_for_reading(dir)?;
    let now = Clock(now).unix_seconds()?;
    let mut out = String::new();
    let line = |out: &mut String, text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    let anchors_path = dir.join(ANCHORS_FILE);
    let anchors = match read_optional(&anchors_path)? {
        Some(text) => read_certs(&text, &anchors_path)?,
        None => Vec::new(),
    };
    let root_key = read_optional(&dir.join(ROOT_KEY_FILE))?;
    let next_path = dir.join(NEXT_ROOT_CRT_FILE);
    let next = match read_optional(&next_path)? {
        Some(text) => read_certs(&text, &next_path)?,
        None => Vec::new(),
    };
    let key_of = |cert: &Cert, key: Option<&String>| -> bool {
        key.is_some_and(|key| {
            RootSigner::new(&super::pem::encode("CERTIFICATE", &cert.der), key).is_ok()
        })
    };
    line(
        &mut out,
        format!("trust anchors ({ANCHORS_FILE}, the render's identityTrustAnchorsPEM):"),
    );
    if anchors.is_empty() {
        line(&mut out, "  none".to_owned());
    }
    let next_key = read_optional(&dir.join(NEXT_ROOT_KEY_FILE))?;
    for anchor in &anchors {
        let is_next = next.iter().any(|n| n.der == anchor.der);
        let key = if key_of(anchor, root_key.as_ref()) {
            ROOT_KEY_FILE.to_owned()
        } else if is_next && key_of(anchor, next_key.as_ref()) {
            NEXT_ROOT_KEY_FILE.to_owned()
        } else {
            "not in this folder (offline)".to_owned()
        };
        describe(&mut out, None, anchor, now);
        line(&mut out, format!("    key          {key}"));
        if is_next {
            line(
                &mut out,
                format!("    role         new root of a rotation ({NEXT_ROOT_CRT_FILE})"),
            );
        }
    }
    let issuer_path = dir.join(ISSUER_CRT_FILE);
    line(&mut out, format!("issuer ({ISSUER_CRT_FILE}):"));
    let issuer = match read_optional(&issuer_path)? {
        Some(text) => Some(read_certs(&text, &issuer_path)?.remove(0)),
        None => None,
    };
    match &issuer {
        None => line(&mut out, "  none".to_owned()),
        Some(issuer) => {
            describe(&mut out, None, issuer, now);
            let signer = anchors.iter().find(|a| issuer.signed(a));
            line(
                &mut out,
                format!(
                    "    signed by    {}",
                    signer.map_or_else(
                        || "none of the trust anchors: the render refuses it".to_owned(),
                        |s| s.named()
                    )
                ),
            );
        }
    }
    let phase = match (anchors.len(), next.is_empty()) {
        (_, false) => Some(format!(
            "bundle done; next: `meshchart certs rotate-root {dir} --phase issuer`"
        )),
        (n, true) if n > 1 => Some(format!(
            "issuer done; next: `meshchart certs rotate-root {dir} --phase finish`"
        )),
        _ => None,
    };
    if let Some(phase) = phase {
        line(&mut out, format!("rotation: {phase}"));
    }
    let mut webhooks = Vec::new();
    for stem in WEBHOOK_STEMS {
        let path = dir.join(format!("{stem}.crt"));
        if let Some(text) = read_optional(&path)? {
            webhooks.push((stem, read_certs(&text, &path)?.remove(0)));
        }
    }
    if !webhooks.is_empty() {
        line(&mut out, "webhook serving certificates:".to_owned());
        for (stem, cert) in &webhooks {
            describe(&mut out, Some(&format!("{stem}.crt")), cert, now);
        }
    }
    let retired_dir = dir.join(RETIRED_DIR);
    if retired_dir.is_dir() {
        let mut names: Vec<String> = retired_dir
            .read_dir_utf8()
            .map_err(|source| IdentityError::Io {
                action: "read the folder",
                path: retired_dir.clone(),
                source,
            })?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_owned())
            .filter(|name| name.ends_with(".crt"))
            .collect();
        names.sort();
        if !names.is_empty() {
            line(
                &mut out,
                format!("retired ({RETIRED_DIR}/, kept until they expire):"),
            );
        }
        for name in names {
            let path = retired_dir.join(&name);
            let certs = read_certs(&read_optional(&path)?.unwrap_or_default(), &path)?;
            let last = certs.iter().map(Cert::not_after).max().unwrap_or_default();
            line(
                &mut out,
                format!(
                    "  {name}: {}, until {}",
                    certs
                        .iter()
                        .map(Cert::subject)
                        .collect::<Vec<_>>()
                        .join(" + "),
                    until(last, now)
                ),
            );
        }
    }
    Ok(out)
}

/// Writes a certificate's subject (after `label`, when given), fingerprint and expiry, indented.
fn describe(out: &mut String, label: Option<&str>, cert: &Cert, now: i64) {
    let not_after = cert.not_after();
    let soon = if not_after < now {
        "  EXPIRED"
    } else if not_after - now <= WARN_DAYS * 86_400 {
        "  EXPIRES SOON"
    } else {
        ""
    };
    let label = label.map(|l| format!("{l}: ")).unwrap_or_default();
    out.push_str(&format!(
        "  {label}{}\n    sha256       {}\n    not after    {}{soon}\n",
        cert.subject(),
        cert.fingerprint(),
        until(not_after, now)
    ));
}

/// The warning `render` gives when the certificate in `pem` (from `origin`) expires within
/// [`WARN_DAYS`] of `now`, saying how to renew it (`how`); `None` otherwise.
pub(super) fn expiry_warning(
    pem: &str,
    what: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<String> {
    let der = super::pem::certificates(pem).ok()?.into_iter().next()?;
    let cert = x509::parse(&der).ok()?;
    if cert.not_after - now > WARN_DAYS * 86_400 {
        return None;
    }
    let verb = if cert.not_after < now {
        "expired"
    } else {
        "expires"
    };
    Some(format!(
        "warning: the {what} in {origin} {verb} at {}: {how}",
        until(cert.not_after, now)
    ))
}

/// The error for an issuer in a certs dir that has expired at `now`, naming the command that
/// renews it (`how`); `None` while it is valid (the render's other checks follow).
pub(super) fn expired_issuer(
    pem: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<IdentityError> {
    let der = super::pem::certificates(pem).ok()?.into_iter().next()?;
    let cert = x509::parse(&der).ok()?;
    (cert.not_after < now).then(|| IdentityError::InvalidIssuer {
        origin: origin.to_owned(),
        reason: format!(
            "the issuer certificate expired at {}, before the render's instant (SOURCE_DATE_EPOCH, \
             or the clock when that is unset): {how}",
            until(cert.not_after, now)
        ),
    })
}

/// The render's own checks of an issuer just made in `dir` (key, algorithm, CA, validity now,
/// signed by one of `anchors_text`), each file named as the folder will hold it.
fn check_new_issuer(
    dir: &Utf8Path,
    anchors_text: &str,
    crt_pem: &str,
    key_pem: &str,
    clock: Clock,
) -> Result<String, IdentityError> {
    super::check_issuer_material(
        [
            (anchors_text, Origin::File(&dir.join(ANCHORS_FILE))),
            (crt_pem, Origin::File(&dir.join(ISSUER_CRT_FILE))),
            (key_pem, Origin::File(&dir.join(ISSUER_KEY_FILE))),
        ],
        clock,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_left_counts_whole_days_and_says_when_it_expired() {
        let day = 86_400;
        assert_eq!(days_left(10 * day + 5, 0), "10 days left");
        assert_eq!(days_left(day, 0), "1 day left");
        assert_eq!(days_left(0, 0), "0 days left");
        assert_eq!(days_left(0, 3 * day), "expired 3 days ago");
    }

    #[test]
    fn a_file_stamp_is_the_instant_without_separators() {
        let at = OffsetDateTime::from_unix_timestamp(1_700_000_000).expect("in range");
        assert_eq!(file_stamp(at), "20231114T221320Z");
    }

    #[test]
    fn the_warning_starts_thirty_days_before_expiry() {
        let root = generate::root(
            ROOT_COMMON_NAME,
            OffsetDateTime::UNIX_EPOCH,
            Duration::days(100),
        )
        .expect("made");
        let end = root.not_after.unix_timestamp();
        let at = |days_before: i64| end - days_before * 86_400;
        assert!(expiry_warning(&root.crt_pem, "root", "x", at(31), "renew").is_none());
        let warning = expiry_warning(&root.crt_pem, "root", "x", at(30), "renew").expect("warns");
        assert_eq!(
            warning,
            "warning: the root in x expires at 1970-04-11T00:00:00Z (30 days left): renew"
        );
    }

    #[test]
    fn a_missing_parent_is_named_and_an_existing_one_is_fine() {
        let err = check_parent(Utf8Path::new("/no-such-folder-here/certs")).expect_err("refused");
        assert!(
            err.to_string()
                .contains("nor does its parent /no-such-folder-here"),
            "{err}"
        );
        check_parent(Utf8Path::new("certs-in-the-current-folder")).expect("the current folder");
        check_parent(Utf8Path::new("/")).expect("exists");
    }
}
