//! Why identity or webhook material could not be completed, and where the material in question
//! came from.

use camino::{Utf8Path, Utf8PathBuf};
use std::fmt;

/// Why the identity or webhook material could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// A file refused by the input rules (see [`crate::input`]).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// A `--certs-dir` only read (a `golden` check writes nothing) lacks material the render
    /// would generate and keep there.
    #[error(
        "--certs-dir {dir}: holds no {}; a check writes nothing (`meshchart golden --update` \
         creates them)",
        .files.join(", ")
    )]
    ReadOnlyLacks {
        /// The folder.
        dir: camino::Utf8PathBuf,
        /// The files the render would have written.
        files: Vec<String>,
    },
    /// Some, but not all, of the trust anchors and issuer certificate and key were given.
    #[error(
        "{} missing: give all of identityTrustAnchorsPEM, identity.issuer.tls.crtPEM and \
         identity.issuer.tls.keyPEM, or none to generate them",
        missing_list(.missing)
    )]
    IncompleteIssuer {
        /// The values keys that are empty.
        missing: Vec<String>,
    },
    /// A webhook's certificate was given without its key, or the other way round.
    #[error(
        "{missing} is missing: give both {component}.crtPEM and {component}.keyPEM, or neither \
         to generate them (or set {component}.externalSecret)"
    )]
    IncompleteWebhook {
        /// The webhook's values key: `proxyInjector`, `profileValidator` or `policyValidator`.
        component: &'static str,
        /// The values key that is empty.
        missing: String,
    },
    /// An external issuer was chosen, yet an issuer certificate or key was given.
    #[error(
        "{key} is set but identity.issuer.scheme is {scheme:?}: an external issuer's certificate \
         and key live in the cluster, so leave identity.issuer.tls empty"
    )]
    ExternalIssuerCredentials {
        /// The values key that should be empty.
        key: String,
        /// The scheme given.
        scheme: String,
    },
    /// Material would be generated with nowhere to keep it, where that is refused (a fleet):
    /// each run would make new credentials.
    #[error(
        "{} would be generated and kept nowhere, so every run would make new ones (a new mTLS \
         trust root at every sync): pass --certs-dir DIR (kept there and reused; clusters \
         without their own certs/ share it), make the cluster a NAME/ folder holding values.yaml \
         and a certs/ folder, or give the material in its values",
        and_list(.generated)
    )]
    NotKept {
        /// What would be generated, in plan order.
        generated: Vec<String>,
    },
    /// A value has the wrong type.
    #[error("{key} must be {expected}, not a {found}")]
    WrongType {
        /// The values key.
        key: String,
        /// What it must be.
        expected: &'static str,
        /// The type found.
        found: &'static str,
    },
    /// A name that certificates are made for is not a valid DNS name.
    #[error("{key} is {value:?}, which cannot name a certificate: {reason}")]
    InvalidName {
        /// The values key.
        key: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A certificate or key does not read (bad PEM, wrong block, not P-256, …).
    #[error("{origin}: {reason}")]
    InvalidPem {
        /// The values key or the file it came from.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The issuer certificate fails a check `linkerd install` makes (validity at the render's
    /// instant, algorithm, CA, signed by a trust anchor).
    #[error("{origin}: {reason}")]
    InvalidIssuer {
        /// The values key or the file of the certificate.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The issuer key is not the key of the issuer certificate.
    #[error("{key} is not the private key of the certificate in {crt}: their public keys differ")]
    KeyMismatch {
        /// The values key or file of the key.
        key: String,
        /// The values key or file of the certificate.
        crt: String,
    },
    /// The certs dir holds part of a set.
    #[error(
        "certs dir {dir} holds {present} but not {missing}: restore the missing files, or remove \
         the others to generate a new set"
    )]
    IncompleteCertsDir {
        /// The folder.
        dir: Utf8PathBuf,
        /// The files of the set that exist.
        present: String,
        /// The files of the set that do not.
        missing: String,
    },
    /// The certs dir holds a trust root but no issuer (neither issuer.crt nor issuer.key).
    #[error(
        "certs dir {dir} holds a trust root (ca.crt) but no issuer (issuer.crt, issuer.key): make \
         one signed by that root with `{command}`, then run again"
    )]
    CertsDirWithoutIssuer {
        /// The folder.
        dir: Utf8PathBuf,
        /// The `meshchart certs` command that makes the issuer.
        command: String,
    },
    /// A `--certs-dir` to make whose parent folder does not exist (a mistyped path).
    #[error(
        "certs dir {dir} does not exist, nor does its parent {parent}: meshchart makes the \
         folder (and a new trust root in it) only inside an existing folder; check the path, or \
         create {parent} first"
    )]
    CertsDirParentMissing {
        /// The folder asked for.
        dir: Utf8PathBuf,
        /// Its missing parent.
        parent: Utf8PathBuf,
    },
    /// A `certs` command on a folder that does not exist.
    #[error(
        "certs dir {dir} does not exist: make one with `meshchart certs create {dir}` (or `render \
         --certs-dir {dir}`)"
    )]
    CertsDirMissing {
        /// The folder.
        dir: Utf8PathBuf,
    },
    /// `certs create` on a folder that already holds a trust root or issuer.
    #[error(
        "certs dir {dir} already holds {file}: `meshchart certs create` makes a new trust root \
         only in a folder without one (renew the issuer with `meshchart certs renew {dir}`, \
         replace the root with `meshchart certs rotate-root {dir} --phase bundle`)"
    )]
    CertsDirInUse {
        /// The folder.
        dir: Utf8PathBuf,
        /// The file already there.
        file: &'static str,
    },
    /// A `certs` command needs a file the folder lacks.
    #[error("certs dir {dir} has no {file}")]
    CertsDirIncomplete {
        /// The folder.
        dir: Utf8PathBuf,
        /// The missing file.
        file: String,
    },
    /// Signing needs the root key, which the folder does not hold.
    #[error(
        "certs dir {dir} has no {key}: its root is kept offline, so pass the key of the root in \
         {dir}/{crt} with --ca-key PATH (it is read, never copied into the folder)"
    )]
    RootKeyOffline {
        /// The folder.
        dir: Utf8PathBuf,
        /// The key file it lacks.
        key: String,
        /// The certificate the key must belong to.
        crt: String,
    },
    /// A lifecycle step that the folder's state does not allow.
    #[error("{path}: {reason}")]
    Lifecycle {
        /// The file or folder at fault.
        path: Utf8PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// Writing the certs dir through the output door failed.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// Reading or writing the certs dir failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: Utf8PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The certificate library failed.
    #[error("cannot generate {what}: {reason}")]
    Generate {
        /// The certificate being made.
        what: String,
        /// The library's error.
        reason: String,
    },
    /// `SOURCE_DATE_EPOCH` is set but is not a number of seconds.
    #[error(transparent)]
    SourceDateEpoch(#[from] crate::epoch::EpochError),
    /// The time given cannot be used for certificates or the schedule.
    #[error(
        "the time to generate from ({detail}) is out of range: set SOURCE_DATE_EPOCH to a time \
         between 1970 and 9989"
    )]
    TimeOutOfRange {
        /// What is wrong with it.
        detail: String,
    },
}

fn missing_list(missing: &[String]) -> String {
    match missing {
        [one] => format!("{one} is"),
        [init @ .., last] => format!("{} and {last} are", init.join(", ")),
        [] => "nothing is".to_owned(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
        _ => items.concat(),
    }
}

/// Where a certificate or key came from, for error messages.
#[derive(Clone, Copy)]
pub(super) enum Origin<'a> {
    Key(&'static [&'static str]),
    /// A values key and the flag or file that set it (`--set-file identityTrustAnchorsPEM=ca.key`).
    KeySetBy(&'static [&'static str], &'a str),
    File(&'a Utf8Path),
}

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Key(path) => f.write_str(&path.join(".")),
            Origin::KeySetBy(path, by) => write!(f, "{} (from {by})", path.join(".")),
            Origin::File(path) => write!(f, "{path}"),
        }
    }
}
