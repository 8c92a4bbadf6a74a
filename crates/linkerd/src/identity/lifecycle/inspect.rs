//! `meshchart certs inspect` and the expiry checks a render makes: what a folder holds, and how
//! long each certificate has left. Separate because it only reads the folder, never writes it.

use super::super::clock::Clock;
use super::super::error::IdentityError;
use super::super::generate::RootSigner;
use super::super::x509;
use super::{
    read_certs, read_optional, require_folder, until, Cert, ANCHORS_FILE, ISSUER_CRT_FILE,
    NEXT_ROOT_CRT_FILE, NEXT_ROOT_KEY_FILE, RETIRED_DIR, ROOT_KEY_FILE, WARN_DAYS, WEBHOOK_STEMS,
};
use camino::Utf8Path;
use std::time::SystemTime;

/// One certificate as `certs inspect` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateView {
    /// Its subject (`CN=root.linkerd.cluster.local`).
    pub subject: String,
    /// Its SHA-256 fingerprint (`AB:CD:...`).
    pub sha256: String,
    /// Its not-after instant, seconds since 1970.
    pub not_after: i64,
    /// That instant and the days left: `2027-12-03T15:47:10Z (364 days left)`.
    pub not_after_text: String,
    /// Whole days until it expires (negative once it has).
    pub days_left: i64,
    /// Expired at the instant of the inspection.
    pub expired: bool,
    /// Expires within the days `render` warns about.
    pub expires_soon: bool,
}

impl CertificateView {
    fn of(cert: &Cert, now: i64) -> CertificateView {
        let not_after = cert.not_after();
        CertificateView {
            subject: cert.subject(),
            sha256: cert.fingerprint(),
            not_after,
            not_after_text: until(not_after, now),
            days_left: (not_after - now).div_euclid(86_400),
            expired: not_after < now,
            expires_soon: not_after >= now && not_after - now <= WARN_DAYS * 86_400,
        }
    }
}

/// A trust anchor of ca.crt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnchorView {
    /// The certificate.
    pub certificate: CertificateView,
    /// The file in the folder holding its key; `None` when the key is not there (offline).
    pub key_file: Option<String>,
    /// It is the new root of a rotation under way.
    pub next_root: bool,
}

/// The issuer, and which anchor signed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuerView {
    /// The certificate.
    pub certificate: CertificateView,
    /// The anchor that signed it (`CN=... (SHA-256 ...)`); `None`: none of them did.
    pub signed_by: Option<String>,
}

/// A retired file, kept until its certificates expire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetiredView {
    /// Its name under retired/.
    pub file: String,
    /// The subjects it holds.
    pub subjects: Vec<String>,
    /// The last not-after of them, and the days left.
    pub until_text: String,
}

/// What a `--certs-dir` folder holds, at one instant: what `certs inspect` prints as text or
/// JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// The trust anchors (ca.crt).
    pub anchors: Vec<AnchorView>,
    /// The issuer (issuer.crt), if there is one.
    pub issuer: Option<IssuerView>,
    /// Where a root rotation stands, and the next command, when one is under way.
    pub rotation: Option<String>,
    /// The webhook serving certificates, by file name.
    pub webhooks: Vec<(String, CertificateView)>,
    /// The retired material.
    pub retired: Vec<RetiredView>,
}

/// `meshchart certs inspect DIR`: what the folder holds, at `now`, as text.
pub fn inspect(dir: &Utf8Path, now: SystemTime) -> Result<String, IdentityError> {
    Ok(inspect_folder(dir, now)?.to_text())
}

/// What the folder holds, at `now`.
pub fn inspect_folder(dir: &Utf8Path, now: SystemTime) -> Result<Inspection, IdentityError> {
    require_folder(dir)?;
    let _reading = super::super::certs_dir::lock_for_reading(dir)?;
    let now = Clock(now).unix_seconds()?;
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
            RootSigner::new(&super::super::pem::encode("CERTIFICATE", &cert.der), key).is_ok()
        })
    };
    let next_key = read_optional(&dir.join(NEXT_ROOT_KEY_FILE))?;
    let anchor_views = anchors
        .iter()
        .map(|anchor| {
            let next_root = next.iter().any(|n| n.der == anchor.der);
            let key_file = if key_of(anchor, root_key.as_ref()) {
                Some(ROOT_KEY_FILE.to_owned())
            } else if next_root && key_of(anchor, next_key.as_ref()) {
                Some(NEXT_ROOT_KEY_FILE.to_owned())
            } else {
                None
            };
            AnchorView {
                certificate: CertificateView::of(anchor, now),
                key_file,
                next_root,
            }
        })
        .collect();
    let issuer_path = dir.join(ISSUER_CRT_FILE);
    let issuer = match read_optional(&issuer_path)? {
        Some(text) => Some(read_certs(&text, &issuer_path)?.remove(0)),
        None => None,
    };
    let issuer = issuer.map(|issuer| IssuerView {
        certificate: CertificateView::of(&issuer, now),
        signed_by: anchors.iter().find(|a| issuer.signed(a)).map(Cert::named),
    });
    let rotation = match (anchors.len(), next.is_empty()) {
        (_, false) => Some(format!(
            "bundle done; next: `meshchart certs rotate-root {dir} --phase issuer`"
        )),
        (n, true) if n > 1 => Some(format!(
            "issuer done; next: `meshchart certs rotate-root {dir} --phase finish`"
        )),
        _ => None,
    };
    let mut webhooks = Vec::new();
    for stem in WEBHOOK_STEMS {
        let path = dir.join(format!("{stem}.crt"));
        if let Some(text) = read_optional(&path)? {
            let cert = read_certs(&text, &path)?.remove(0);
            webhooks.push((format!("{stem}.crt"), CertificateView::of(&cert, now)));
        }
    }
    let mut retired = Vec::new();
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
        for name in names {
            let path = retired_dir.join(&name);
            let certs = read_certs(&read_optional(&path)?.unwrap_or_default(), &path)?;
            let last = certs.iter().map(Cert::not_after).max().unwrap_or_default();
            retired.push(RetiredView {
                file: name,
                subjects: certs.iter().map(Cert::subject).collect(),
                until_text: until(last, now),
            });
        }
    }
    Ok(Inspection {
        anchors: anchor_views,
        issuer,
        rotation,
        webhooks,
        retired,
    })
}

impl Inspection {
    /// The inspection as `certs inspect` prints it for a person.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, text: String| {
            out.push_str(&text);
            out.push('\n');
        };
        line(
            &mut out,
            format!("trust anchors ({ANCHORS_FILE}, the render's identityTrustAnchorsPEM):"),
        );
        if self.anchors.is_empty() {
            line(&mut out, "  none".to_owned());
        }
        for anchor in &self.anchors {
            describe(&mut out, None, &anchor.certificate);
            let key = anchor
                .key_file
                .clone()
                .unwrap_or_else(|| "not in this folder (offline)".to_owned());
            line(&mut out, format!("    key          {key}"));
            if anchor.next_root {
                line(
                    &mut out,
                    format!("    role         new root of a rotation ({NEXT_ROOT_CRT_FILE})"),
                );
            }
        }
        line(&mut out, format!("issuer ({ISSUER_CRT_FILE}):"));
        match &self.issuer {
            None => line(&mut out, "  none".to_owned()),
            Some(issuer) => {
                describe(&mut out, None, &issuer.certificate);
                line(
                    &mut out,
                    format!(
                        "    signed by    {}",
                        issuer.signed_by.clone().unwrap_or_else(|| {
                            "none of the trust anchors: the render refuses it".to_owned()
                        })
                    ),
                );
            }
        }
        if let Some(phase) = &self.rotation {
            line(&mut out, format!("rotation: {phase}"));
        }
        if !self.webhooks.is_empty() {
            line(&mut out, "webhook serving certificates:".to_owned());
            for (file, cert) in &self.webhooks {
                describe(&mut out, Some(file), cert);
            }
        }
        if !self.retired.is_empty() {
            line(
                &mut out,
                format!("retired ({RETIRED_DIR}/, kept until they expire):"),
            );
        }
        for retired in &self.retired {
            line(
                &mut out,
                format!(
                    "  {}: {}, until {}",
                    retired.file,
                    retired.subjects.join(" + "),
                    retired.until_text
                ),
            );
        }
        out
    }

    /// The inspection as one JSON document, for programs: the same facts as the text, with
    /// instants as RFC 3339 text and seconds since 1970.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let cert = |c: &CertificateView| {
            json!({
                "subject": c.subject,
                "sha256": c.sha256,
                "notAfter": c.not_after_text.split(' ').next().unwrap_or_default(),
                "notAfterUnix": c.not_after,
                "daysLeft": c.days_left,
                "expired": c.expired,
                "expiresSoon": c.expires_soon,
            })
        };
        json!({
            "trustAnchors": self.anchors.iter().map(|a| json!({
                "certificate": cert(&a.certificate),
                "keyFile": a.key_file,
                "nextRoot": a.next_root,
            })).collect::<Vec<_>>(),
            "issuer": self.issuer.as_ref().map(|i| json!({
                "certificate": cert(&i.certificate),
                "signedBy": i.signed_by,
            })),
            "rotation": self.rotation,
            "webhooks": self.webhooks.iter().map(|(file, c)| json!({
                "file": file,
                "certificate": cert(c),
            })).collect::<Vec<_>>(),
            "retired": self.retired.iter().map(|r| json!({
                "file": r.file,
                "subjects": r.subjects,
                "until": r.until_text.split(' ').next().unwrap_or_default(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// Writes a certificate's subject (after `label`, when given), fingerprint and expiry, indented.
fn describe(out: &mut String, label: Option<&str>, cert: &CertificateView) {
    let soon = if cert.expired {
        "  EXPIRED"
    } else if cert.expires_soon {
        "  EXPIRES SOON"
    } else {
        ""
    };
    let label = label.map(|l| format!("{l}: ")).unwrap_or_default();
    out.push_str(&format!(
        "  {label}{}\n    sha256       {}\n    not after    {}{soon}\n",
        cert.subject, cert.sha256, cert.not_after_text
    ));
}

/// The warning `render` gives when the certificate in `pem` (from `origin`) expires within
/// [`WARN_DAYS`] of `now`, saying how to renew it (`how`); `None` otherwise.
pub(in crate::identity) fn expiry_warning(
    pem: &str,
    what: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<String> {
    let not_after = first_not_after(pem)?;
    if not_after - now > WARN_DAYS * 86_400 {
        return None;
    }
    let verb = if not_after < now {
        "expired"
    } else {
        "expires"
    };
    Some(format!(
        "warning: the {what} in {origin} {verb} at {}: {how}",
        until(not_after, now)
    ))
}

/// When the first certificate in `pem` expires, if it holds one. Remembered for the latest
/// certificates read on the thread ([`recent`](super::super::recent)): a fleet's clusters share
/// their trust anchors and issuer, and decoding and parsing them again for every cluster was a
/// percent of the fleet's time.
fn first_not_after(pem: &str) -> Option<i64> {
    thread_local! {
        static EXPIRIES: super::super::recent::Passes<i64> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    super::super::recent::passed(&EXPIRIES, &[pem], || {
        let der = super::super::pem::certificates(pem)
            .ok()
            .and_then(|certificates| certificates.into_iter().next())
            .ok_or(())?;
        x509::parse(&der).map(|cert| cert.not_after).map_err(|_| ())
    })
    .ok()
}

/// The error for an issuer in a certs dir that has expired at `now`, naming the command that
/// renews it (`how`); `None` while it is valid (the render's other checks follow).
pub(in crate::identity) fn expired_issuer(
    pem: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<IdentityError> {
    let not_after = first_not_after(pem)?;
    (not_after < now).then(|| IdentityError::InvalidIssuer {
        origin: origin.to_owned(),
        reason: format!(
            "the issuer certificate expired at {}, before the render's instant (SOURCE_DATE_EPOCH, \
             or the clock when that is unset): {how}",
            until(not_after, now)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::first_not_after;

    fn read(name: &str) -> String {
        let path = format!("{}/../../tests/certs/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).expect("test certificate")
    }

    fn parsed_not_after(pem: &str) -> i64 {
        let der = crate::identity::pem::certificates(pem).expect("pem")[0].clone();
        super::x509::parse(&der).expect("certificate").not_after
    }

    #[test]
    fn a_remembered_expiry_is_each_certificates_own() {
        let (ca, issuer) = (read("ca.crt"), read("issuer.crt"));
        assert_ne!(parsed_not_after(&ca), parsed_not_after(&issuer));
        for pem in [&ca, &issuer, &ca, &issuer, &ca] {
            assert_eq!(first_not_after(pem), Some(parsed_not_after(pem)));
        }
        assert_eq!(first_not_after("not a certificate"), None);
        assert_eq!(first_not_after("not a certificate"), None);
    }
}
