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

mod checks;
mod issuer_material;
mod schedule;
mod targets;
mod value_paths;
mod webhook_material;
pub use targets::MaterialTargets;

use checks::{certificates, check_dns_name, check_issuer_material};
use issuer_material::plan_issuer;
use schedule::plan_schedule;
use value_paths::{check_settable, set_path};
use webhook_material::plan_webhook;

use crate::values::{Map, Value};
use camino::{Utf8Path, Utf8PathBuf};
use clock::Clock;
pub use error::IdentityError;
use error::Origin;

use std::time::SystemTime;

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

#[cfg(test)]
mod tests {
    use super::targets::ServiceNamespace;
    use super::*;
    use crate::chart::declared_in;
    use serde_json::Value as Json;

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
