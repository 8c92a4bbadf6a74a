//! The webhooks' serving pairs (the proxy injector's and the validators'): given, kept or
//! generated for the Service names the chart uses. Separate from the issuer, whose rules differ.

use super::checks::{certificates, check_serves, private_key};
use super::clock::{rfc3339, Clock};
use super::error::IdentityError;
use super::error::Origin;
use super::targets::Webhook;
use super::value_paths::{flag, text};
use super::{certs_dir, generate, lifecycle, Plan};
use crate::values::Value;
use camino::Utf8Path;

pub(super) fn plan_webhook(
    values: &Value,
    webhook: &Webhook,
    clock: Clock,
    dir: Option<&Utf8Path>,
    plan: &mut Plan<'_>,
) -> Result<(), IdentityError> {
    if flag(values, webhook.external)? {
        return Ok(());
    }
    let crt = text(values, webhook.crt)?;
    let key = text(values, webhook.key)?;
    let ca_bundle = text(values, webhook.ca_bundle)?;
    if let Some(bundle) = ca_bundle {
        certificates(bundle, Origin::Key(webhook.ca_bundle))?;
    }
    // With cert-manager injecting the caBundle the chart writes none, and refuses one given
    // beside the injection: filling it in would make that refusal the user's error.
    let injected = text(values, webhook.inject_ca_from)?.is_some()
        || text(values, webhook.inject_ca_from_secret)?.is_some();
    let fill_ca_bundle = ca_bundle.is_none() && !injected && plan.chart.declares(webhook.ca_bundle);
    let component = webhook.component;
    let (crt, key) = match (crt, key) {
        (Some(crt), Some(key)) => {
            certificates(crt, Origin::Key(webhook.crt))?;
            private_key(key, Origin::Key(webhook.key))?;
            plan.notes.extend(lifecycle::expiry_warning(
                crt,
                &format!("{component} serving certificate"),
                &format!("{component}.crtPEM"),
                clock.unix_seconds()?,
                &format!(
                    "give a new {component}.crtPEM and keyPEM (or neither, with --certs-dir DIR, \
                     and `meshchart certs renew DIR --webhooks` renews them)"
                ),
            ));
            if fill_ca_bundle {
                plan.notes
                    .push(format!("set {component}.caBundle to {component}.crtPEM"));
                plan.set(webhook.ca_bundle, crt);
            }
            return Ok(());
        }
        (None, None) => {
            let loaded = match dir {
                Some(dir) => certs_dir::load(dir, &webhook.files)?.map(|texts| (dir, texts)),
                None => None,
            };
            match loaded {
                Some((dir, [crt, key])) => {
                    let crt_path = dir.join(webhook.files[0]);
                    let der = certificates(&crt, Origin::File(&crt_path))?.swap_remove(0);
                    let host = format!("{}.{}.svc", webhook.service, plan.chart.namespace(values)?);
                    check_serves(&der, &host, &crt_path, webhook.files)?;
                    private_key(&key, Origin::File(&dir.join(webhook.files[1])))?;
                    plan.notes.push(format!(
                        "reused the {component} serving certificate from {dir}"
                    ));
                    plan.notes.extend(lifecycle::expiry_warning(
                        &crt,
                        &format!("{component} serving certificate"),
                        crt_path.as_str(),
                        clock.unix_seconds()?,
                        &format!("renew it with `meshchart certs renew {dir} --webhooks`"),
                    ));
                    (crt, key)
                }
                None => {
                    let namespace = plan.chart.namespace(values)?;
                    let host = format!("{}.{namespace}.svc", webhook.service);
                    let made =
                        generate::serving_cert(&host, clock.datetime()?).map_err(|reason| {
                            IdentityError::Generate {
                                what: format!("the {component} certificate for {host}"),
                                reason,
                            }
                        })?;
                    plan.generated
                        .push(format!("the {component} serving certificate"));
                    plan.notes.push(format!(
                        "generated a self-signed {component} serving certificate for {host} \
                         (valid until {})",
                        rfc3339(made.not_after)
                    ));
                    if dir.is_some() {
                        plan.keep(webhook.files[0], &made.crt_pem, false);
                        plan.keep(webhook.files[1], &made.key_pem, true);
                    }
                    (made.crt_pem, made.key_pem)
                }
            }
        }
        (Some(_), None) | (None, Some(_)) => {
            let missing = if crt.is_none() {
                webhook.crt
            } else {
                webhook.key
            };
            return Err(IdentityError::IncompleteWebhook {
                component,
                missing: missing.join("."),
            });
        }
    };
    match ca_bundle {
        None if fill_ca_bundle => plan.set(webhook.ca_bundle, crt.clone()),
        None => {}
        Some(bundle) if bundle != crt => plan.notes.push(format!(
            "kept the given {component}.caBundle: it must verify the {component} serving \
             certificate, or the API server will fail to call the webhook"
        )),
        Some(_) => {}
    }
    plan.set(webhook.crt, crt);
    plan.set(webhook.key, key);
    Ok(())
}
