//! What a chart takes ([`MaterialTargets`]): which webhooks carry a serving certificate, where
//! their Services live, which keys the chart declares. Separate because it is read from the
//! chart once, before any material is planned.

use super::checks::{check_dns_name, namespace};
use super::error::IdentityError;
use super::{ANCHORS, CRT_EXPIRY, ISSUER_CRT, ISSUER_KEY, NAMESPACE, SCHEDULE};
use crate::chart::declared_in;
use crate::values::Value;
use serde_json::Value as Json;
use std::cell::OnceCell;

/// One admission webhook whose serving certificate a chart may carry. A chart carries it when it
/// declares the webhook's `crtPEM` and `keyPEM` (see [`MaterialTargets::new`]); this table only
/// knows the Service and file names, which the values do not say.
#[derive(Debug)]
pub(super) struct Webhook {
    /// Its values subtree.
    pub(super) component: &'static str,
    /// Its Service name.
    pub(super) service: &'static str,
    /// Its files in the certs dir (certificate, key).
    pub(super) files: [&'static str; 2],
    pub(super) external: &'static [&'static str],
    pub(super) crt: &'static [&'static str],
    pub(super) key: &'static [&'static str],
    pub(super) ca_bundle: &'static [&'static str],
    /// cert-manager's injection of the caBundle (later charts only): the chart then writes no
    /// caBundle, and refuses one beside it.
    pub(super) inject_ca_from: &'static [&'static str],
    pub(super) inject_ca_from_secret: &'static [&'static str],
}

/// Every webhook meshchart can make a certificate for, in the order they are planned.
pub(super) const WEBHOOKS: [Webhook; 3] = [
    Webhook {
        component: "proxyInjector",
        service: "linkerd-proxy-injector",
        files: ["proxy-injector.crt", "proxy-injector.key"],
        external: &["proxyInjector", "externalSecret"],
        crt: &["proxyInjector", "crtPEM"],
        key: &["proxyInjector", "keyPEM"],
        ca_bundle: &["proxyInjector", "caBundle"],
        inject_ca_from: &["proxyInjector", "injectCaFrom"],
        inject_ca_from_secret: &["proxyInjector", "injectCaFromSecret"],
    },
    Webhook {
        component: "profileValidator",
        service: "linkerd-sp-validator",
        files: ["sp-validator.crt", "sp-validator.key"],
        external: &["profileValidator", "externalSecret"],
        crt: &["profileValidator", "crtPEM"],
        key: &["profileValidator", "keyPEM"],
        ca_bundle: &["profileValidator", "caBundle"],
        inject_ca_from: &["profileValidator", "injectCaFrom"],
        inject_ca_from_secret: &["profileValidator", "injectCaFromSecret"],
    },
    // The policy controller's validating webhook (edge-24.10.2 and later).
    Webhook {
        component: "policyValidator",
        service: "linkerd-policy-validator",
        files: ["policy-validator.crt", "policy-validator.key"],
        external: &["policyValidator", "externalSecret"],
        crt: &["policyValidator", "crtPEM"],
        key: &["policyValidator", "keyPEM"],
        ca_bundle: &["policyValidator", "caBundle"],
        inject_ca_from: &["policyValidator", "injectCaFrom"],
        inject_ca_from_secret: &["policyValidator", "injectCaFromSecret"],
    },
];

/// Where a chart's control-plane Services live, which the webhook certificates must name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ServiceNamespace {
    /// The `namespace` value (default `linkerd`): the 2021 chart, whose defaults have that key.
    Value,
    /// The release namespace (`-n`, Helm's `Release.Namespace`): later charts, which have no
    /// `namespace` value.
    Release(String),
}

/// What a chart takes of the material: read from its default values and `values.schema.json`
/// by [`MaterialTargets::new`], so that each release line gets what its templates read.
#[derive(Clone, Debug)]
pub struct MaterialTargets {
    /// The webhooks the chart carries a serving certificate for.
    pub(super) webhooks: Vec<&'static Webhook>,
    /// The namespace its Services (and so the certificates' names) are in.
    pub(super) namespace: ServiceNamespace,
    /// The keys the material step may write that the chart declares.
    pub(super) declared: Vec<&'static [&'static str]>,
}

impl MaterialTargets {
    /// Reads what a chart takes from its default values (`defaults`) and its
    /// `values.schema.json` (`schema`, the file's text; read only when the defaults do not
    /// settle a key, and ignored when it is not JSON, which lint reports).
    ///
    /// A key is declared when the defaults have it or the schema lists it under `properties`
    /// (the modern charts declare `heartbeatSchedule` only there, as upstream's values.yaml has it
    /// commented out). A webhook is carried when its `crtPEM` and `keyPEM` are declared. The
    /// Services are named after the `namespace` value when the defaults have that key (the 2021
    /// chart), else after `release_namespace`.
    pub fn new(defaults: &Value, schema: Option<&str>, release_namespace: &str) -> MaterialTargets {
        let parsed: OnceCell<Option<Json>> = OnceCell::new();
        let schema = || {
            parsed
                .get_or_init(|| schema.and_then(|text| serde_json::from_str(text).ok()))
                .as_ref()
        };
        MaterialTargets::declared_by(defaults, schema, release_namespace)
    }

    /// [`MaterialTargets::new`] with the schema already read (a render has it from the values
    /// check: parsing a modern line's schema again would cost a tenth of the render).
    pub fn with_schema(
        defaults: &Value,
        schema: Option<&Json>,
        release_namespace: &str,
    ) -> MaterialTargets {
        MaterialTargets::declared_by(defaults, || schema, release_namespace)
    }

    /// The targets, `schema` asked for only when the defaults do not settle a key.
    fn declared_by<'s>(
        defaults: &Value,
        schema: impl Fn() -> Option<&'s Json>,
        release_namespace: &str,
    ) -> MaterialTargets {
        let declares = |path: &[&str]| {
            declared_in(Some(defaults), None, path)
                || schema().is_some_and(|schema| declared_in(Some(defaults), Some(schema), path))
        };
        let webhooks: Vec<&'static Webhook> = WEBHOOKS
            .iter()
            .filter(|w| declares(w.crt) && declares(w.key))
            .collect();
        let mut candidates: Vec<&'static [&'static str]> =
            vec![ANCHORS, ISSUER_CRT, ISSUER_KEY, CRT_EXPIRY, SCHEDULE];
        for webhook in &webhooks {
            candidates.extend([webhook.crt, webhook.key, webhook.ca_bundle]);
        }
        let declared = candidates.into_iter().filter(|p| declares(p)).collect();
        let namespace = match defaults {
            Value::Map(map) if map.contains_key(NAMESPACE[0]) => ServiceNamespace::Value,
            _ => ServiceNamespace::Release(release_namespace.to_owned()),
        };
        MaterialTargets {
            webhooks,
            namespace,
            declared,
        }
    }

    /// The values keys of the webhooks the chart carries (`proxyInjector`, ...), in order.
    pub fn webhooks(&self) -> Vec<&'static str> {
        self.webhooks.iter().map(|w| w.component).collect()
    }

    pub(super) fn declares(&self, path: &[&str]) -> bool {
        self.declared.contains(&path)
    }

    /// The namespace the chart's Services are in, checked as a DNS label.
    pub(super) fn namespace<'v>(&'v self, values: &'v Value) -> Result<&'v str, IdentityError> {
        match &self.namespace {
            ServiceNamespace::Value => namespace(values),
            ServiceNamespace::Release(namespace) => {
                check_dns_name("the release namespace (--namespace)", namespace, true)?;
                Ok(namespace)
            }
        }
    }
}
