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

/// `meshchart certs inspect DIR`: what the folder holds, at `now`.
pub fn inspect(dir: &Utf8Path, now: SystemTime) -> Result<String, IdentityError> {
    require_folder(dir)?;
    let _reading = super::super::certs_dir::lock_for_reading(dir)?;
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
            RootSigner::new(&super::super::pem::encode("CERTIFICATE", &cert.der), key).is_ok()
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
pub(in crate::identity) fn expiry_warning(
    pem: &str,
    what: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<String> {
    let der = super::super::pem::certificates(pem)
        .ok()?
        .into_iter()
        .next()?;
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
pub(in crate::identity) fn expired_issuer(
    pem: &str,
    origin: &str,
    now: i64,
    how: &str,
) -> Option<IdentityError> {
    let der = super::super::pem::certificates(pem)
        .ok()?
        .into_iter()
        .next()?;
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
