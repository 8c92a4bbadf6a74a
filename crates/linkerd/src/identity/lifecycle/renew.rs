//! `meshchart certs renew`: a new identity issuer signed by the kept root (or the first one, for a
//! folder that holds only a root), and new webhook serving pairs. Separate from the rotation of
//! the root, which has phases and state of its own.

use super::super::clock::{rfc3339, Clock};
use super::super::error::IdentityError;
use super::super::generate::{self, IssuerName, RootSigner};
use super::{
    check_new_issuer, commit, file_stamp, fresh_retired, generate_error, open, read_certs,
    read_optional, require_folder, sweep_retired, to_time, until, Cert, NewFiles, RenewRequest,
    ANCHORS_FILE, ISSUER_CRT_FILE, ISSUER_KEY_FILE, NEXT_ROOT_CRT_FILE, ROOT_KEY_FILE,
    WEBHOOK_STEMS,
};
use camino::{Utf8Path, Utf8PathBuf};

/// Reads `ca.crt` and the key (`--ca-key`, else `DIR/<key_file>`), and finds the anchor the
/// key belongs to.
pub(super) fn signing_root(
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
        let pem = super::super::pem::encode("CERTIFICATE", &cert.der);
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
pub(in crate::identity) fn holds_root_without_issuer(dir: &Utf8Path) -> bool {
    let exists = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    exists(ANCHORS_FILE) && !exists(ISSUER_CRT_FILE) && !exists(ISSUER_KEY_FILE)
}

/// The `meshchart certs` command that makes an issuer for `dir`'s root, named for `domain`.
pub(in crate::identity) fn make_issuer_command(dir: &Utf8Path, domain: &str) -> String {
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
    super::super::check_dns_name("--identity-trust-domain", domain, false)?;
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
pub(super) fn current_issuer(
    dir: &Utf8Path,
) -> Result<(String, Cert, Option<String>), IdentityError> {
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
pub(super) fn reissue(
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
