//! Identity and webhook certificate material, filled into the values before templates render.
//!
//! The chart cannot make credentials itself (its `required` calls want the trust anchors, the
//! issuer certificate, key and expiry), and its webhook certificates and heartbeat schedule would
//! be random or clock-based. [`complete_material`] fills in whatever the values lack, the way
//! `linkerd install` does, and is deterministic whenever the inputs are given:
//!
//! - material the user gives is kept as given (checked, never rewritten);
//! - with `certs_dir`, generated material is kept there as PEM files and read back on later runs;
//! - the only clock is [`MaterialOptions::now`], which [`now_from_env`] takes from
//!   `SOURCE_DATE_EPOCH` when it is set; it dates generated certificates and checks given ones,
//!   and nothing else: the heartbeat schedule, which upstream takes from the clock, is derived
//!   from the cluster's identity, so the same inputs render the same bytes on any day.
//!
//! What a chart takes differs between release lines, so it is read from the chart
//! ([`MaterialTargets`]): which webhooks carry a serving certificate, whether the Services live
//! in the `namespace` value (the 2021 chart) or in the release namespace (later charts), and
//! which keys the chart declares at all; nothing is written to a key the chart does not declare.
//!
//! With everything given it only checks the PEM framing of what is there; certificates are parsed
//! only when something must be read from them (the issuer's expiry).

mod certs_dir;
mod clock;
mod error;
mod generate;
mod issuer;
pub mod lifecycle;
mod pem;
mod recent;
mod x509;

use crate::chart::declared_in;
use crate::values::{Map, Value};
use camino::{Utf8Path, Utf8PathBuf};
use clock::{rfc3339, Clock};
pub use error::IdentityError;
use error::Origin;
use serde_json::Value as Json;
use std::cell::OnceCell;

use std::time::{SystemTime, UNIX_EPOCH};

pub use crate::epoch::SOURCE_DATE_EPOCH;

/// How the note of a render that made a new trust root (and issuer) begins: the command line
/// leads stderr with a warning when nothing keeps that root.
pub const NEW_TRUST_ROOT_NOTE: &str = "generated the identity trust anchor ";

/// Inputs that make generated material reproducible.
#[derive(Clone, Debug)]
pub struct MaterialOptions {
    /// Where generated material is kept and reused (`--certs-dir`); `None` keeps nothing.
    pub certs_dir: Option<Utf8PathBuf>,
    /// The time that generated certificates start from and that given ones must be valid at
    /// (the heartbeat schedule does not depend on it).
    pub now: SystemTime,
    /// Only read `certs_dir`, never write it: material it lacks is an error (`golden` checks).
    pub read_only: bool,
}

/// Reads SOURCE_DATE_EPOCH (seconds) or the clock: the single place a clock is read.
pub fn now_from_env() -> Result<SystemTime, IdentityError> {
    match source_date_epoch_from_env()? {
        Some(pinned) => Ok(pinned),
        None => Ok(SystemTime::now()),
    }
}

/// `SOURCE_DATE_EPOCH` as an instant: `None` when unset, an error when set but not whole
/// seconds (see [`crate::epoch`]).
pub fn source_date_epoch_from_env() -> Result<Option<SystemTime>, IdentityError> {
    Ok(crate::epoch::source_date_epoch_from_env()?)
}

/// Fills `identityTrustAnchorsPEM` from `DIR/ca.crt` (the folder `render --certs-dir` keeps)
/// when the values give none, so `inject` matches a control plane rendered with that folder.
/// Returns a note for stderr when it did.
pub fn trust_anchors_from_dir(
    values: &mut Value,
    dir: &Utf8Path,
) -> Result<Option<String>, IdentityError> {
    let given = values
        .get_path(ANCHORS)
        .and_then(Value::as_str)
        .is_some_and(|pem| !pem.trim().is_empty());
    if given {
        return Ok(None);
    }
    let path = dir.join("ca.crt");
    let pem = crate::input::read_path(&path)?.text;
    certificates(&pem, Origin::File(&path))?;
    match values {
        Value::Map(map) => {
            map.insert(ANCHORS[0].to_owned(), Value::String(pem));
        }
        other => *other = Value::Map(Map::from([(ANCHORS[0].to_owned(), Value::String(pem))])),
    }
    Ok(Some(format!("took identityTrustAnchorsPEM from {path}")))
}

/// Checks that the values' `identityTrustAnchorsPEM`, when given, holds certificates and nothing
/// else: `inject` copies it into every pod's environment, so a key given by mistake
/// (`--set-file identityTrustAnchorsPEM=ca.key`) would land in every pod. `set_by` names the flag
/// or file that set it, for the message.
pub fn check_trust_anchors(values: &Value, set_by: Option<&str>) -> Result<(), IdentityError> {
    let Some(anchors) = values.get_path(ANCHORS) else {
        return Ok(());
    };
    let text = match anchors {
        Value::Null => return Ok(()),
        Value::String(text) if text.trim().is_empty() => return Ok(()),
        Value::String(text) => text,
        other => {
            return Err(IdentityError::InvalidPem {
                origin: ANCHORS.join("."),
                reason: format!("expected PEM certificates, found a {}", other.type_name()),
            })
        }
    };
    let origin = match set_by {
        Some(by) => Origin::KeySetBy(ANCHORS, by),
        None => Origin::Key(ANCHORS),
    };
    certificates(text, origin).map(drop)
}

// Values keys.
const ANCHORS: &[&str] = &["identityTrustAnchorsPEM"];
const ISSUER_SCHEME: &[&str] = &["identity", "issuer", "scheme"];
const ISSUER_CRT: &[&str] = &["identity", "issuer", "tls", "crtPEM"];
const ISSUER_KEY: &[&str] = &["identity", "issuer", "tls", "keyPEM"];
const CRT_EXPIRY: &[&str] = &["identity", "issuer", "crtExpiry"];
const TRUST_DOMAIN: &[&str] = &["identityTrustDomain"];
const CLUSTER_DOMAIN: &[&str] = &["clusterDomain"];
const NAMESPACE: &[&str] = &["namespace"];
const SCHEDULE: &[&str] = &["heartbeatSchedule"];
const DISABLE_HEARTBEAT: &[&str] = &["disableHeartBeat"];

/// The issuer scheme whose credentials the chart holds (anything else is an external issuer).
const LINKERD_TLS: &str = "linkerd.io/tls";

/// The certs dir's trust anchor and issuer set as generated, in this order.
const ISSUER_FILES: [&str; 4] = ["ca.crt", "ca.key", "issuer.crt", "issuer.key"];
/// What a render needs of that set: `ca.key` may be kept offline (Linkerd's docs advise it);
/// only `meshchart certs renew` needs it.
const ISSUER_SET: [&str; 3] = ["ca.crt", "issuer.crt", "issuer.key"];

/// One admission webhook whose serving certificate a chart may carry. A chart carries it when it
/// declares the webhook's `crtPEM` and `keyPEM` (see [`MaterialTargets::new`]); this table only
/// knows the Service and file names, which the values do not say.
#[derive(Debug)]
struct Webhook {
    /// Its values subtree.
    component: &'static str,
    /// Its Service name.
    service: &'static str,
    /// Its files in the certs dir (certificate, key).
    files: [&'static str; 2],
    external: &'static [&'static str],
    crt: &'static [&'static str],
    key: &'static [&'static str],
    ca_bundle: &'static [&'static str],
    /// cert-manager's injection of the caBundle (later charts only): the chart then writes no
    /// caBundle, and refuses one beside it.
    inject_ca_from: &'static [&'static str],
    inject_ca_from_secret: &'static [&'static str],
}

/// Every webhook meshchart can make a certificate for, in the order they are planned.
const WEBHOOKS: [Webhook; 3] = [
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
enum ServiceNamespace {
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
    webhooks: Vec<&'static Webhook>,
    /// The namespace its Services (and so the certificates' names) are in.
    namespace: ServiceNamespace,
    /// The keys the material step may write that the chart declares.
    declared: Vec<&'static [&'static str]>,
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
        let declares = |path: &[&str]| {
            declared_in(Some(defaults), None, path)
                || parsed
                    .get_or_init(|| schema.and_then(|text| serde_json::from_str(text).ok()))
                    .as_ref()
                    .is_some_and(|schema| declared_in(Some(defaults), Some(schema), path))
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

    fn declares(&self, path: &[&str]) -> bool {
        self.declared.contains(&path)
    }

    /// The namespace the chart's Services are in, checked as a DNS label.
    fn namespace<'v>(&'v self, values: &'v Value) -> Result<&'v str, IdentityError> {
        match &self.namespace {
            ServiceNamespace::Value => namespace(values),
            ServiceNamespace::Release(namespace) => {
                check_dns_name("the release namespace (--namespace)", namespace, true)?;
                Ok(namespace)
            }
        }
    }
}

/// What [`complete_material`] will change, gathered before anything is changed.
struct Plan<'t> {
    /// The chart: keys it does not declare are not written.
    chart: &'t MaterialTargets,
    edits: Vec<(&'static [&'static str], Value)>,
    files: Vec<certs_dir::NewFile>,
    notes: Vec<String>,
    /// What is generated (not given, not reused), kept or not.
    generated: Vec<String>,
}

impl Plan<'_> {
    /// Sets `path`, when the chart declares it: a key no template reads would only show up in
    /// linkerd-config's copy of the values.
    fn set(&mut self, path: &'static [&'static str], value: impl Into<Value>) {
        if self.chart.declares(path) {
            self.edits.push((path, value.into()));
        }
    }

    fn keep(&mut self, name: &'static str, contents: &str, secret: bool) {
        self.files.push(certs_dir::NewFile {
            name,
            contents: contents.to_owned(),
            secret,
        });
    }
}

/// Fills whatever of the identity/webhook material and heartbeat schedule the values lack, for
/// the keys `chart` takes. Returns notes for stderr (what was generated or reused, and where).
///
/// Nothing changes on error: neither `values` nor the certs dir.
pub fn complete_material(
    values: &mut Value,
    chart: &MaterialTargets,
    opts: &MaterialOptions,
) -> Result<Vec<String>, IdentityError> {
    complete(values, chart, opts, Unkept::Allowed)
}

/// [`complete_material`], refusing to generate material that nothing keeps: without
/// [`MaterialOptions::certs_dir`], whatever the values lack is an error naming it rather than
/// new credentials. A fleet renders its clusters so: in a GitOps loop, material made afresh at
/// every run would rotate each cluster's mTLS trust root at every sync.
pub fn complete_kept_material(
    values: &mut Value,
    chart: &MaterialTargets,
    opts: &MaterialOptions,
) -> Result<Vec<String>, IdentityError> {
    complete(values, chart, opts, Unkept::Refused)
}

/// Whether material may be generated with nowhere to keep it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unkept {
    Allowed,
    Refused,
}

fn complete(
    values: &mut Value,
    chart: &MaterialTargets,
    opts: &MaterialOptions,
    unkept: Unkept,
) -> Result<Vec<String>, IdentityError> {
    let clock = Clock(opts.now);
    let dir = opts.certs_dir.as_deref();
    if let Some(dir) = dir {
        lifecycle::check_parent(dir)?;
    }
    let plan_all = || -> Result<Plan, IdentityError> {
        let mut plan = Plan {
            chart,
            edits: Vec::new(),
            files: Vec::new(),
            notes: Vec::new(),
            generated: Vec::new(),
        };
        // A chart without the issuer's keys (an extension, say) has no issuer to make.
        if chart.declares(ISSUER_CRT) && chart.declares(ISSUER_KEY) {
            plan_issuer(values, clock, dir, &mut plan)?;
        }
        for webhook in &chart.webhooks {
            plan_webhook(values, webhook, clock, dir, &mut plan)?;
        }
        if chart.declares(SCHEDULE) {
            plan_schedule(values, &mut plan)?;
        }
        for (path, _) in &plan.edits {
            check_settable(values, path)?;
        }
        Ok(plan)
    };
    // The folder's sets are read under its shared lock: never while another run replaces them.
    let mut plan = {
        let _reading = dir.map(certs_dir::lock_for_reading).transpose()?;
        plan_all()?
    };
    if dir.is_none() && unkept == Unkept::Refused && !plan.generated.is_empty() {
        return Err(IdentityError::NotKept {
            generated: plan.generated,
        });
    }
    if let (Some(dir), true) = (dir, opts.read_only) {
        if !plan.files.is_empty() {
            return Err(IdentityError::ReadOnlyLacks {
                dir: dir.to_owned(),
                files: plan.files.iter().map(|f| f.name.to_owned()).collect(),
            });
        }
    }
    if let Some(dir) = dir {
        if !plan.files.is_empty() {
            // Sets are missing: under the exclusive lock, look again (a run that held it
            // meanwhile may have filled the folder, and then its sets are used), and commit
            // whatever is still missing in one step.
            let set = certs_dir::open_for_writing(dir)?;
            plan = plan_all()?;
            if plan.files.is_empty() {
                drop(set);
            } else {
                certs_dir::commit(set, &plan.files)?;
            }
        }
        if !plan.files.is_empty() {
            let names: Vec<&str> = plan.files.iter().map(|f| f.name).collect();
            plan.notes.push(format!(
                "wrote {} to {dir}; later renders with --certs-dir {dir} reuse them",
                names.join(", ")
            ));
        }
    }
    for (path, value) in plan.edits {
        set_path(values, path, value)?;
    }
    Ok(plan.notes)
}

fn plan_issuer(
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

fn plan_webhook(
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

fn plan_schedule(values: &Value, plan: &mut Plan<'_>) -> Result<(), IdentityError> {
    if flag(values, DISABLE_HEARTBEAT)? {
        return Ok(());
    }
    if lookup(values, SCHEDULE)?.is_some_and(|v| !v.is_empty_like()) {
        return Ok(());
    }
    // Upstream's chart takes the UTC minute and hour ten minutes after install, so a render a
    // minute later differs. Here the time of day comes from the cluster's identity instead: the
    // same cluster gets the same schedule on any day, and clusters that differ in their trust
    // anchors (each mesh its own root) spread over the day.
    let identity = ClusterIdentity::of(values, plan)?;
    let schedule = identity.heartbeat_schedule();
    plan.notes.push(format!(
        "set heartbeatSchedule to {schedule:?} (daily, at a time of day derived from the trust \
         domain, the namespace and the trust anchors)"
    ));
    plan.set(SCHEDULE, schedule);
    Ok(())
}

/// What identifies a cluster's mesh for [`plan_schedule`]: its trust domain, the namespace of
/// its control plane and its trust anchors (as the render will carry them: given, reused from
/// the certs dir or generated). Two clusters with one trust domain and namespace (most use
/// `cluster.local` and `linkerd`) still differ in their roots.
struct ClusterIdentity<'v> {
    trust_domain: &'v str,
    namespace: &'v str,
    /// The anchors' DER when they parse (so re-wrapped PEM text keeps the schedule), else
    /// their text with surrounding space trimmed; empty without anchors (an external issuer).
    anchors: Vec<u8>,
}

impl<'v> ClusterIdentity<'v> {
    fn of(values: &'v Value, plan: &'v Plan<'_>) -> Result<Self, IdentityError> {
        let trust_domain = match text(values, TRUST_DOMAIN)? {
            Some(domain) => domain,
            None => text(values, CLUSTER_DOMAIN)?.unwrap_or("cluster.local"),
        };
        let namespace = match &plan.chart.namespace {
            ServiceNamespace::Value => text(values, NAMESPACE)?.unwrap_or("linkerd"),
            ServiceNamespace::Release(namespace) => namespace,
        };
        let planned = plan.edits.iter().rev().find(|(path, _)| *path == ANCHORS);
        let anchors = match planned {
            Some((_, value)) => value.as_str(),
            None => text(values, ANCHORS)?,
        }
        .unwrap_or_default();
        let anchors = match pem::certificates(anchors) {
            Ok(ders) => ders.concat(),
            Err(_) => anchors.trim().as_bytes().to_vec(),
        };
        Ok(ClusterIdentity {
            trust_domain,
            namespace,
            anchors,
        })
    }

    /// `MM HH * * *`: daily, at the minute of the day the SHA-256 of the identity picks.
    fn heartbeat_schedule(&self) -> String {
        // Each part is length-prefixed, so no two identities hash the same bytes.
        let mut bytes = Vec::new();
        for part in [
            self.trust_domain.as_bytes(),
            self.namespace.as_bytes(),
            &self.anchors,
        ] {
            bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bytes.extend_from_slice(part);
        }
        let digest = crate::digest::sha256(&bytes);
        let number = u64::from_be_bytes(digest[..8].try_into().unwrap_or_default());
        let minute_of_day = number % (24 * 60);
        format!("{:02} {:02} * * *", minute_of_day % 60, minute_of_day / 60)
    }
}

/// Checks that `text` is one or more PEM certificates; returns their DER.
fn certificates(text: &str, origin: Origin<'_>) -> Result<Vec<Vec<u8>>, IdentityError> {
    thread_local! {
        static PARSED: recent::Passes<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    recent::passed(&PARSED, &[text], || {
        pem::certificates(text).map_err(|reason| IdentityError::InvalidPem {
            origin: origin.to_string(),
            reason,
        })
    })
}

/// Reads the trust anchors, the issuer certificate and its key (each with where it came from)
/// and checks them as `linkerd install` does; returns the issuer's notAfter, RFC 3339.
fn check_given_issuer(
    [(anchors, anchors_origin), (crt, crt_origin), (key, key_origin)]: [(&str, Origin<'_>); 3],
    clock: Clock,
) -> Result<String, IdentityError> {
    thread_local! {
        static CHECKED: recent::Passes<String> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Nanoseconds from 1970, negative before it: each instant its own key.
    let now = match clock.0.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos().to_string(),
        Err(before) => format!("-{}", before.duration().as_nanos()),
    };
    recent::passed(&CHECKED, &[anchors, crt, key, &now], || {
        check_issuer_material(
            [
                (anchors, anchors_origin),
                (crt, crt_origin),
                (key, key_origin),
            ],
            clock,
        )
    })
}

/// [`check_given_issuer`], every time.
fn check_issuer_material(
    [(anchors, anchors_origin), (crt, crt_origin), (key, key_origin)]: [(&str, Origin<'_>); 3],
    clock: Clock,
) -> Result<String, IdentityError> {
    let anchors_der = certificates(anchors, anchors_origin)?;
    let crt_der = certificates(crt, crt_origin)?.swap_remove(0);
    let key = private_key(key, key_origin)?;
    issuer::check_issuer(
        &issuer::IssuerInput {
            anchors: &anchors_der,
            anchors_origin,
            crt: &crt_der,
            crt_origin,
            key: (key.label, &key.der),
            key_origin,
        },
        clock,
    )
}

/// Checks that `text` is one PEM private key (EC, RSA or PKCS#8); returns its block.
fn private_key<'t>(text: &'t str, origin: Origin<'_>) -> Result<pem::Block<'t>, IdentityError> {
    pem::private_key(text).map_err(|reason| IdentityError::InvalidPem {
        origin: origin.to_string(),
        reason,
    })
}

/// Checks that a reused serving certificate names `host`: a certs dir filled for another
/// namespace would otherwise give the webhook a certificate the API server rejects.
fn check_serves(
    der: &[u8],
    host: &str,
    path: &Utf8Path,
    files: [&str; 2],
) -> Result<(), IdentityError> {
    let invalid = |reason: String| IdentityError::InvalidPem {
        origin: path.to_string(),
        reason,
    };
    let cert =
        x509::parse(der).map_err(|e| invalid(format!("not a valid X.509 certificate ({e})")))?;
    let names = cert.dns_names;
    if names.contains(&host) {
        Ok(())
    } else {
        Err(invalid(format!(
            "it is for {}, not {host}: remove {} and {} to generate a new pair",
            if names.is_empty() {
                "no DNS name".to_owned()
            } else {
                names.join(", ")
            },
            files[0],
            files[1]
        )))
    }
}

fn namespace(values: &Value) -> Result<&str, IdentityError> {
    let namespace = text(values, NAMESPACE)?.unwrap_or("linkerd");
    check_dns_name("namespace", namespace, true)?;
    Ok(namespace)
}

/// Checks a DNS-1123 label (`single_label`) or subdomain, as Kubernetes and linkerd require.
fn check_dns_name(key: &'static str, value: &str, single_label: bool) -> Result<(), IdentityError> {
    let invalid = |reason| IdentityError::InvalidName {
        key,
        value: value.to_owned(),
        reason,
    };
    if value.len() > if single_label { 63 } else { 253 } {
        return Err(invalid("it is too long"));
    }
    if single_label && value.contains('.') {
        return Err(invalid("it must be a single DNS label (no dots)"));
    }
    for label in value.split('.') {
        let bytes = label.as_bytes();
        let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
            return Err(invalid("it has an empty DNS label"));
        };
        if label.len() > 63 {
            return Err(invalid("a DNS label is longer than 63 characters"));
        }
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
        if !bytes.iter().all(allowed)
            || !first.is_ascii_alphanumeric()
            || !last.is_ascii_alphanumeric()
        {
            return Err(invalid(
                "DNS labels are lowercase letters, digits and '-', starting and ending with a \
                 letter or digit",
            ));
        }
    }
    Ok(())
}

fn key_name(path: &[&str]) -> String {
    if path.is_empty() {
        "the values".to_owned()
    } else {
        path.join(".")
    }
}

/// Follows `path`; `None` when a key is absent or a map on the way is null.
fn lookup<'v>(values: &'v Value, path: &[&str]) -> Result<Option<&'v Value>, IdentityError> {
    let mut current = values;
    for (depth, key) in path.iter().enumerate() {
        current = match current {
            Value::Map(map) => match map.get(*key) {
                Some(value) => value,
                None => return Ok(None),
            },
            Value::Null => return Ok(None),
            other => {
                return Err(IdentityError::WrongType {
                    key: key_name(&path[..depth]),
                    expected: "a map",
                    found: other.type_name(),
                })
            }
        };
    }
    Ok(Some(current))
}

/// A string value; `None` when absent, null or empty.
fn text<'v>(values: &'v Value, path: &[&str]) -> Result<Option<&'v str>, IdentityError> {
    match lookup(values, path)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok((!s.is_empty()).then_some(s.as_str())),
        Some(other) => Err(IdentityError::WrongType {
            key: path.join("."),
            expected: "a string",
            found: other.type_name(),
        }),
    }
}

/// A value's truth as Helm's `if` sees it; absent is false.
fn flag(values: &Value, path: &[&str]) -> Result<bool, IdentityError> {
    Ok(lookup(values, path)?.is_some_and(|v| !v.is_empty_like()))
}

/// Checks that [`set_path`] will succeed, so that nothing is written before a failure.
fn check_settable(values: &Value, path: &[&str]) -> Result<(), IdentityError> {
    let parent = &path[..path.len().saturating_sub(1)];
    match lookup(values, parent)? {
        None | Some(Value::Null) | Some(Value::Map(_)) => Ok(()),
        Some(other) => Err(IdentityError::WrongType {
            key: key_name(parent),
            expected: "a map",
            found: other.type_name(),
        }),
    }
}

/// Sets `path` to `value`, making maps on the way where keys are absent or null.
fn set_path(values: &mut Value, path: &[&str], value: Value) -> Result<(), IdentityError> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let mut current = values;
    for (depth, key) in parents.iter().enumerate() {
        current = map_at(current, &path[..depth])?
            .entry((*key).to_owned())
            .or_insert(Value::Null);
    }
    map_at(current, parents)?.insert((*last).to_owned(), value);
    Ok(())
}

/// The map in `value`, turning null into an empty map.
fn map_at<'v>(value: &'v mut Value, path: &[&str]) -> Result<&'v mut Map, IdentityError> {
    if matches!(value, Value::Null) {
        *value = Value::Map(Map::new());
    }
    match value {
        Value::Map(map) => Ok(map),
        other => Err(IdentityError::WrongType {
            key: key_name(path),
            expected: "a map",
            found: other.type_name(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        crate::yaml::parse_document(text).expect("test YAML")
    }

    #[test]
    fn a_key_is_declared_by_the_defaults_the_schema_or_both_along_its_path() {
        let defaults = yaml("identity:\n  issuer:\n    scheme: linkerd.io/tls\n    crtExpiry:\n");
        let schema: Json = serde_json::from_str(
            r#"{"properties": {"identity": {"properties": {"issuer": {"properties":
                {"tls": {"properties": {"crtPEM": {}}}}}}}, "heartbeatSchedule": {}}}"#,
        )
        .expect("test JSON");
        // A null default still declares its key.
        assert!(declared_in(Some(&defaults), None, CRT_EXPIRY));
        assert!(!declared_in(Some(&defaults), None, ISSUER_CRT));
        // identity.issuer from the defaults, tls.crtPEM from the schema.
        assert!(declared_in(Some(&defaults), Some(&schema), ISSUER_CRT));
        assert!(!declared_in(Some(&defaults), Some(&schema), ISSUER_KEY));
        assert!(declared_in(Some(&defaults), Some(&schema), SCHEDULE));
        // Below a scalar default nothing is declared.
        assert!(!declared_in(
            Some(&defaults),
            None,
            &["identity", "issuer", "scheme", "x"]
        ));
    }

    #[test]
    fn the_namespace_value_names_the_services_only_where_the_defaults_have_it() {
        let old = MaterialTargets::new(&yaml("namespace: linkerd\n"), None, "mesh");
        assert_eq!(old.namespace, ServiceNamespace::Value);
        let new = MaterialTargets::new(&yaml("clusterDomain: cluster.local\n"), None, "mesh");
        assert_eq!(new.namespace, ServiceNamespace::Release("mesh".to_owned()));
    }

    #[test]
    fn a_schema_that_is_not_json_declares_nothing() {
        let targets = MaterialTargets::new(&yaml("heartbeatSchedule: ''\n"), Some("{"), "x");
        assert!(targets.declares(SCHEDULE));
        assert!(!targets.declares(CRT_EXPIRY));
        assert!(targets.webhooks().is_empty());
    }

    #[test]
    fn dns_names_follow_rfc_1123() {
        assert!(check_dns_name("namespace", "linkerd", true).is_ok());
        assert!(check_dns_name("identityTrustDomain", "cluster.local", false).is_ok());
        assert!(check_dns_name("namespace", "a.b", true).is_err());
        assert!(check_dns_name("identityTrustDomain", "Cluster.local", false).is_err());
        assert!(check_dns_name("identityTrustDomain", "cluster..local", false).is_err());
        assert!(check_dns_name("identityTrustDomain", "-x.local", false).is_err());
    }
}
