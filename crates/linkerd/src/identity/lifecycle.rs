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

mod inspect;
mod renew;
mod rotate;
pub(super) use inspect::{expired_issuer, expiry_warning};
pub use inspect::{
    inspect, inspect_folder, AnchorView, CertificateView, Inspection, IssuerView, RetiredView,
};
pub use renew::renew;
pub(super) use renew::{holds_root_without_issuer, make_issuer_command};
pub use rotate::rotate_root;

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
