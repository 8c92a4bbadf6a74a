//! The heartbeat schedule, derived from the cluster's identity instead of the clock, so the same
//! inputs render the same bytes on any day. Separate because it is the one piece of the material
//! that is no certificate.

use super::error::IdentityError;
use super::targets::ServiceNamespace;
use super::value_paths::{flag, lookup, text};
use super::{
    pem, Plan, ANCHORS, CLUSTER_DOMAIN, DISABLE_HEARTBEAT, NAMESPACE, SCHEDULE, TRUST_DOMAIN,
};
use crate::values::Value;

pub(super) fn plan_schedule(values: &Value, plan: &mut Plan<'_>) -> Result<(), IdentityError> {
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
