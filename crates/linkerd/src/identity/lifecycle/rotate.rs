//! `meshchart certs rotate-root`: a new trust root brought in Linkerd's phases (bundle both roots,
//! switch the issuer, drop the old root), with the new root kept in `ca-next.*` between them.
//! Separate because it is the one command whose effect spans several runs.

use super::super::clock::{rfc3339, Clock};
use super::super::error::IdentityError;
use super::super::generate;
use super::renew::{current_issuer, reissue, signing_root};
use super::{
    commit, file_stamp, fresh_retired, generate_error, open, read_certs, read_optional,
    require_folder, sweep_retired, to_time, Cert, RotatePhase, RotateRequest, ANCHORS_FILE,
    ISSUER_CRT_FILE, ISSUER_KEY_FILE, NEXT_ROOT_CRT_FILE, NEXT_ROOT_KEY_FILE, ROOT_COMMON_NAME,
    ROOT_KEY_FILE,
};

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
                .map(|c| super::super::pem::encode("CERTIFICATE", &c.der))
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
                .map(|c| super::super::pem::encode("CERTIFICATE", &c.der))
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
