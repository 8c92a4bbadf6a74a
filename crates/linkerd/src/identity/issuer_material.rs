//! The trust anchors and identity issuer a render needs: checked when given, reused from the
//! certs dir, or generated. Separate from the webhooks' pairs, which hang on other rules.

use super::checks::{certificates, check_dns_name, check_given_issuer, private_key};
use super::clock::{rfc3339, Clock};
use super::error::IdentityError;
use super::error::Origin;
use super::value_paths::{lookup, text};
use super::{
    certs_dir, generate, lifecycle, pem, x509, Plan, ANCHORS, CLUSTER_DOMAIN, CRT_EXPIRY,
    ISSUER_CRT, ISSUER_FILES, ISSUER_KEY, ISSUER_SCHEME, ISSUER_SET, LINKERD_TLS,
    NEW_TRUST_ROOT_NOTE, TRUST_DOMAIN,
};
use crate::values::Value;
use camino::Utf8Path;

pub(super) fn plan_issuer(
    values: &Value,
    clock: Clock,
    dir: Option<&Utf8Path>,
    plan: &mut Plan<'_>,
) -> Result<(), IdentityError> {
    let scheme = text(values, ISSUER_SCHEME)?.unwrap_or(LINKERD_TLS);
    let anchors = text(values, ANCHORS)?;
    let crt = text(values, ISSUER_CRT)?;
    let key = text(values, ISSUER_KEY)?;
    let has_expiry = lookup(values, CRT_EXPIRY)?.is_some_and(|v| !v.is_empty_like());

    if scheme != LINKERD_TLS {
        // An external issuer: its credentials live in the cluster; nothing to make or stamp.
        for (path, given) in [(ISSUER_CRT, crt), (ISSUER_KEY, key)] {
            if given.is_some() {
                return Err(IdentityError::ExternalIssuerCredentials {
                    key: path.join("."),
                    scheme: scheme.to_owned(),
                });
            }
        }
        if let Some(anchors) = anchors {
            certificates(anchors, Origin::Key(ANCHORS))?;
        }
        return Ok(());
    }

    match (anchors, crt, key) {
        (Some(anchors), Some(crt), Some(key)) => {
            let expiry = check_given_issuer(
                [
                    (anchors, Origin::Key(ANCHORS)),
                    (crt, Origin::Key(ISSUER_CRT)),
                    (key, Origin::Key(ISSUER_KEY)),
                ],
                clock,
            )?;
            plan.notes.extend(lifecycle::expiry_warning(
                crt,
                "identity issuer certificate",
                "identity.issuer.tls.crtPEM",
                clock.unix_seconds()?,
                "renew it from its root (`meshchart certs renew DIR` for a folder that `meshchart \
                 certs create` or `render --certs-dir` made) and give the new \
                 identity.issuer.tls.crtPEM and keyPEM",
            ));
            if !has_expiry && plan.chart.declares(CRT_EXPIRY) {
                plan.notes.push(format!(
                    "set identity.issuer.crtExpiry to {expiry}, the notAfter of \
                     identity.issuer.tls.crtPEM"
                ));
                plan.set(CRT_EXPIRY, expiry);
            }
            Ok(())
        }
        (None, None, None) => {
            if let Some(dir) = dir {
                match certs_dir::load(dir, &ISSUER_SET) {
                    Ok(Some(texts)) => return reuse_issuer(dir, texts, has_expiry, clock, plan),
                    Ok(None) => {}
                    Err(IdentityError::IncompleteCertsDir { .. })
                        if lifecycle::holds_root_without_issuer(dir) =>
                    {
                        let domain = match text(values, TRUST_DOMAIN)? {
                            Some(domain) => domain,
                            None => text(values, CLUSTER_DOMAIN)?.unwrap_or("cluster.local"),
                        };
                        return Err(IdentityError::CertsDirWithoutIssuer {
                            dir: dir.to_owned(),
                            command: lifecycle::make_issuer_command(dir, domain),
                        });
                    }
                    Err(e) => return Err(e),
                }
            }
            generate_issuer(values, clock, dir, has_expiry, plan)
        }
        _ => Err(IdentityError::IncompleteIssuer {
            missing: [(ANCHORS, anchors), (ISSUER_CRT, crt), (ISSUER_KEY, key)]
                .iter()
                .filter(|(_, given)| given.is_none())
                .map(|(path, _)| path.join("."))
                .collect(),
        }),
    }
}

fn reuse_issuer(
    dir: &Utf8Path,
    [ca_crt, crt, key]: [String; 3],
    has_expiry: bool,
    clock: Clock,
    plan: &mut Plan<'_>,
) -> Result<(), IdentityError> {
    let paths = ISSUER_SET.map(|name| dir.join(name));
    let root_key_path = dir.join(ISSUER_FILES[1]);
    let root_key = certs_dir::load(dir, &[ISSUER_FILES[1]])?;
    if let Some([root_key]) = &root_key {
        private_key(root_key, Origin::File(&root_key_path))?;
    }
    let renew = match root_key {
        Some(_) => format!("renew it with `meshchart certs renew {dir}`"),
        None => format!("renew it with `meshchart certs renew {dir} --ca-key PATH` (the root key)"),
    };
    if let Some(expired) =
        lifecycle::expired_issuer(&crt, paths[1].as_str(), clock.unix_seconds()?, &renew)
    {
        return Err(expired);
    }
    let expiry = check_given_issuer(
        [
            (&ca_crt, Origin::File(&paths[0])),
            (&crt, Origin::File(&paths[1])),
            (&key, Origin::File(&paths[2])),
        ],
        clock,
    )?;
    plan.notes.push(format!(
        "reused the identity trust anchor and issuer (valid until {expiry}) from {dir}{}",
        if root_key.is_none() {
            " (its root key is kept elsewhere)"
        } else {
            ""
        }
    ));
    plan.notes.extend(lifecycle::expiry_warning(
        &crt,
        "identity issuer certificate",
        paths[1].as_str(),
        clock.unix_seconds()?,
        &renew,
    ));
    plan.set(ANCHORS, ca_crt);
    plan.set(ISSUER_CRT, crt);
    plan.set(ISSUER_KEY, key);
    if !has_expiry {
        plan.set(CRT_EXPIRY, expiry);
    }
    Ok(())
}

fn generate_issuer(
    values: &Value,
    clock: Clock,
    dir: Option<&Utf8Path>,
    has_expiry: bool,
    plan: &mut Plan<'_>,
) -> Result<(), IdentityError> {
    let namespace = plan.chart.namespace(values)?;
    let trust_domain = match text(values, TRUST_DOMAIN)? {
        Some(domain) => (domain, "identityTrustDomain"),
        None => (
            text(values, CLUSTER_DOMAIN)?.unwrap_or("cluster.local"),
            "clusterDomain",
        ),
    };
    check_dns_name(trust_domain.1, trust_domain.0, false)?;
    // Not named after this cluster: a folder may serve a fleet (see ROOT_COMMON_NAME).
    let root_cn = lifecycle::ROOT_COMMON_NAME;
    let issuer_cn = format!("identity.{namespace}.{}", trust_domain.0);
    let set = generate::issuer_set(root_cn, &issuer_cn, clock.datetime()?).map_err(|reason| {
        IdentityError::Generate {
            what: format!("the identity trust anchor {root_cn} and issuer {issuer_cn}"),
            reason,
        }
    })?;
    let expiry = rfc3339(set.issuer.not_after);
    plan.generated
        .push("the identity trust anchor and issuer".to_owned());
    plan.notes.push(format!(
        "{NEW_TRUST_ROOT_NOTE}{root_cn} (valid until {}) and issuer {issuer_cn} \
         (valid until {expiry})",
        rfc3339(set.root.not_after)
    ));
    if let Some(dir) = dir {
        let fingerprint = pem::certificates(&set.root.crt_pem)
            .ok()
            .and_then(|ders| ders.first().map(|der| x509::fingerprint(der)))
            .unwrap_or_default();
        plan.notes.push(format!(
            "made a new trust root CN={root_cn} (SHA-256 {fingerprint}) in {dir}: every control \
             plane rendered with this folder trusts it; if you meant a folder that already \
             holds your root, check the --certs-dir path"
        ));
        plan.keep(ISSUER_FILES[0], &set.root.crt_pem, false);
        plan.keep(ISSUER_FILES[1], &set.root.key_pem, true);
        plan.keep(ISSUER_FILES[2], &set.issuer.crt_pem, false);
        plan.keep(ISSUER_FILES[3], &set.issuer.key_pem, true);
    } else {
        plan.notes.push(
            "the trust anchor's key was not kept, so this issuer cannot be renewed: pass \
             --certs-dir DIR to keep the set and reuse it"
                .to_owned(),
        );
    }
    plan.set(ANCHORS, set.root.crt_pem);
    plan.set(ISSUER_CRT, set.issuer.crt_pem);
    plan.set(ISSUER_KEY, set.issuer.key_pem);
    if !has_expiry {
        plan.set(CRT_EXPIRY, expiry);
    }
    Ok(())
}
