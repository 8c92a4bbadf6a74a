//! What happens to one workload document: [`Injector`] resolves its pod's configuration (sharing
//! resolved configurations between pods alike) and puts the sidecar in, [`Uninjector`] takes it out.
//! Separate from the streaming, which only feeds documents to a [`Transform`] and writes them out.

use super::config::InjectMode;
use super::config::{inject_mode, reads_annotation, resolve_for_chart, Layers, PodFacts};
use super::error::{InjectError, WorkloadRef};
use super::mutate::{inject_template, Owner, Sidecar};
use super::namespaces::Namespaces;
use super::owned::foreign_container_with_owned_name;
use super::pod_extras::{
    foreign_sidecar, named_ports, pod_extras, pod_values, selector_labels, uses_udp,
    with_inbound_ports, PodExtras,
};
use super::ports_fill::{fill_ports, PortsPlan};
use super::report::{Outcome, SkipReason, Warning};
use super::sidecar::{Part, SidecarSource};
use super::uninject::uninject_template;
use super::workload;
use super::workload::{
    meta_map, pod_template_mut, spec_list, text_at, truthy, workload_kind, WorkloadKind,
};
use crate::values::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// What happens to one resource (a map with a `kind`); documents are transformed in parallel.
pub(super) trait Transform: Sync {
    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError>;

    /// Whether the outcome alone says if the document changed (uninject: it changes exactly
    /// when something was removed), so no copy is needed to compare.
    fn outcome_tells_change(&self) -> bool {
        false
    }
}

pub(super) struct Injector<'a> {
    pub(super) values: &'a Value,
    pub(super) namespaces: &'a Namespaces,
    pub(super) sidecars: &'a dyn SidecarSource,
    /// Resolved configurations by [`config_key`]: a repository's workloads share a handful.
    pub(super) configs: Mutex<HashMap<String, Arc<ResolvedPod>>>,
}

/// Most distinct configurations kept at once (each holds a values tree); past it the cache
/// starts over, so memory stays bounded whatever the stream.
const MAX_CACHED_CONFIGS: usize = 64;

/// A pod configuration resolved once for every workload that has it: the values its sidecars
/// render with (but for the pod's inbound ports, given to each rendering), and the sidecars,
/// rendered on first use.
pub(super) struct ResolvedPod {
    values: Value,
    debug: bool,
    /// What resolving the annotations had to say (the same for every workload with the key).
    warnings: Vec<Warning>,
    /// Whether resolving read the pod's named ports (a port list annotation naming ports):
    /// then pods with other named ports need their own configuration.
    read_named_ports: bool,
    /// The sidecar of pods without inbound ports.
    portless: Mutex<Option<Arc<Sidecar>>>,
    /// How the sidecar of pods with inbound ports is made.
    ported: Mutex<Option<Arc<PortsPlan>>>,
}

/// Which of the pod's named ports a configuration key holds.
#[derive(Clone, Copy)]
enum PortsInKey {
    /// Those named like a port number ([`PodFacts::numeric_named_ports`]): enough for a
    /// configuration that does not read the named ports.
    Numeric,
    /// All of them.
    All,
}

/// Everything the pod's values are made of besides the base values and the pod's inbound ports:
/// the three layers' annotations that configure it ([`reads_annotation`]), the workload kind,
/// what the first app container dictates, and the named ports `ports` says. Equal keys give
/// equal configurations ([`resolve`] and [`pod_values`] read nothing else; the workload's name
/// only appears in their error messages). All the named ports only count for configurations
/// whose annotations name ports ([`ResolvedPod::read_named_ports`]), and the inbound ports only
/// reach the sidecar renders.
fn config_key(
    layers: &Layers<'_>,
    facts: &PodFacts,
    ports: PortsInKey,
    extras: &PodExtras,
    kind: &str,
) -> String {
    let layer = |m: Option<&Map>| m.cloned().map_or(Value::Null, Value::Map);
    // Only the annotations resolving reads: a checksum or a scrape port gives no new one.
    let annotations = |m: Option<&Map>| {
        m.map_or(Value::Null, |m| {
            Value::Map(
                m.iter()
                    .filter(|(k, _)| reads_annotation(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        })
    };
    let list = |ports: &[(String, i64)]| {
        Value::Seq(
            ports
                .iter()
                .map(|(name, port)| Value::Seq(vec![name.as_str().into(), Value::Int(*port)]))
                .collect(),
        )
    };
    let (ports_field, ports) = match ports {
        PortsInKey::Numeric => ("numericNamedPorts", list(&facts.numeric_named_ports())),
        PortsInKey::All => ("namedPorts", list(facts.named_ports_unread())),
    };
    let key: Map = [
        ("namespace", annotations(layers.namespace.map(|(_, a)| a))),
        ("workload", annotations(layers.workload)),
        ("pod", annotations(layers.pod)),
        (ports_field, ports),
        ("kind", kind.into()),
        ("capabilities", layer(extras.capabilities.as_ref())),
        ("saMount", layer(extras.sa_mount.as_ref())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    crate::yaml::to_json(&Value::Map(key))
}

impl Injector<'_> {
    /// The pod's configuration, from the cache when a workload before had the same key.
    fn resolved(
        &self,
        layers: &Layers<'_>,
        facts: &PodFacts,
        extras: &PodExtras,
        kind: &WorkloadKind,
        at: &WorkloadRef,
    ) -> Result<Arc<ResolvedPod>, InjectError> {
        let key_of = |ports| config_key(layers, facts, ports, extras, kind.kind);
        let key = key_of(PortsInKey::Numeric);
        // Held while resolving, so a configuration is resolved once even when two threads meet
        // it at the same time (a miss is rare; a hit holds the lock only to clone an Arc).
        let mut configs = self.configs.lock().unwrap_or_else(PoisonError::into_inner);
        let key = match configs.get(&key) {
            Some(found) if !found.read_named_ports => return Ok(found.clone()),
            Some(_) => {
                let key = key_of(PortsInKey::All);
                if let Some(found) = configs.get(&key) {
                    return Ok(found.clone());
                }
                key
            }
            None => key,
        };
        let config = resolve_for_chart(self.values, layers, facts, at, &|path| {
            self.sidecars.declares_value(path)
        })?;
        let resolved = Arc::new(ResolvedPod {
            values: pod_values(config.values, extras, kind),
            debug: config.debug,
            warnings: config.warnings,
            read_named_ports: facts.were_read(),
            portless: Mutex::new(None),
            ported: Mutex::new(None),
        });
        if configs.len() + 2 > MAX_CACHED_CONFIGS {
            configs.clear();
        }
        if resolved.read_named_ports {
            // Under the key without named ports it only tells the next pod to look further.
            configs.insert(key_of(PortsInKey::Numeric), resolved.clone());
            configs.insert(key_of(PortsInKey::All), resolved.clone());
        } else {
            configs.insert(key, resolved.clone());
        }
        Ok(resolved)
    }

    /// The sidecar containers of `pod` with `inbound_ports`: rendered the first time a workload
    /// needs them, and for pods with ports, given each pod's ports (see [`super::ports_fill`]).
    fn sidecar(
        &self,
        pod: &ResolvedPod,
        inbound_ports: &str,
        at: &WorkloadRef,
    ) -> Result<Sidecar, InjectError> {
        let render = |ports: &str| self.render_sidecar(pod, ports, at);
        if inbound_ports.is_empty() {
            let mut portless = pod.portless.lock().unwrap_or_else(PoisonError::into_inner);
            let sidecar = match &*portless {
                Some(sidecar) => sidecar.clone(),
                None => portless.insert(Arc::new(render("")?)).clone(),
            };
            drop(portless);
            return Ok(Sidecar::clone(&sidecar));
        }
        let plan = {
            let mut ported = pod.ported.lock().unwrap_or_else(PoisonError::into_inner);
            ported
                .get_or_insert_with(|| Arc::new(PortsPlan::new(render)))
                .clone()
        };
        match &*plan {
            PortsPlan::RenderEach => render(inbound_ports),
            PortsPlan::Fill(sample) => {
                let sidecar = fill_ports(sample, inbound_ports);
                // Debug builds (the test suites) check the shortcut against a full rendering.
                if cfg!(debug_assertions) && sidecar != render(inbound_ports)? {
                    return Err(InjectError::FilledSidecarDiffers {
                        workload: Box::new(at.clone()),
                    });
                }
                Ok(sidecar)
            }
        }
    }

    /// The sidecar containers of `pod` with `inbound_ports`, rendered by the chart's partials.
    fn render_sidecar(
        &self,
        pod: &ResolvedPod,
        inbound_ports: &str,
        at: &WorkloadRef,
    ) -> Result<Sidecar, InjectError> {
        let values = &with_inbound_ports(pod.values.clone(), inbound_ports);
        let render = |part: Part| {
            self.sidecars
                .render(part, values)
                .map_err(|source| InjectError::Render {
                    workload: Box::new(at.clone()),
                    container: part.container_name(),
                    source: Box::new(source),
                })
        };
        let additions =
            self.sidecars
                .additions(values)
                .map_err(|source| InjectError::Additions {
                    workload: Box::new(at.clone()),
                    source: Box::new(source),
                })?;
        let sidecar = Sidecar {
            additions,
            proxy: render(Part::Proxy)?,
            // With the CNI plugin the chart's network validator (if it has one) stands in for
            // linkerd-init, in its place.
            init: if !truthy(values, &["cniEnabled"]) {
                Some(render(Part::Init)?)
            } else if self.sidecars.provides(Part::NetworkValidator) {
                Some(render(Part::NetworkValidator)?)
            } else {
                None
            },
            debug: if pod.debug {
                Some(render(Part::Debug)?)
            } else {
                None
            },
        };
        Ok(sidecar)
    }
}

impl Transform for Injector<'_> {
    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError> {
        let Some(kind) = workload_kind(&at.kind) else {
            return Ok(Outcome::Skipped(SkipReason::Unsupported));
        };
        check_shape(doc, kind, at)?;
        let workload_annotations = match kind.template_path {
            [] => None,
            _ => doc
                .as_map()
                .and_then(|m| meta_map(m, "annotations"))
                .cloned(),
        };
        let selector = selector_labels(doc, kind);
        let Some(template) = pod_template_mut(doc, kind) else {
            return Ok(Outcome::Skipped(SkipReason::NoPodTemplate));
        };
        if let Some((name, image)) = foreign_container_with_owned_name(template) {
            return Ok(Outcome::Skipped(SkipReason::NameTaken { name, image }));
        }
        let already = uninject_template(template, &selector);
        let pod_annotations = meta_map(template, "annotations").cloned();
        let namespace = self.namespaces.lookup(&at.namespace);
        let layers = Layers {
            namespace: namespace.as_ref().map(|(n, a)| (n.as_str(), a)),
            workload: workload_annotations.as_ref(),
            pod: pod_annotations.as_ref(),
        };
        let skip = |reason| Ok(Outcome::Skipped(reason));
        if inject_mode(&layers, at)? == InjectMode::Disabled {
            return skip(SkipReason::InjectionDisabled);
        }
        let spec = template.get("spec").and_then(Value::as_map);
        if workload::is_true(spec, "hostNetwork") {
            return skip(SkipReason::HostNetwork);
        }
        if let Some(name) = foreign_sidecar(template) {
            return skip(SkipReason::Sidecar(name));
        }
        if spec_list(template, "containers").is_empty() {
            return skip(SkipReason::NoContainers);
        }
        let facts = PodFacts::new(named_ports(template));
        let extras = pod_extras(template);
        let pod = self.resolved(&layers, &facts, &extras, kind, at)?;
        let values = &pod.values;
        let identity = !truthy(values, &["proxy", "disableIdentity"]);
        // The proxy proves its identity with the pod's default token unless the chart gives it
        // a projected one of its own (`identity.serviceAccountTokenProjection`, the release
        // lines' default), which does not need the automount.
        let reads_default_token = !truthy(values, &["identity", "serviceAccountTokenProjection"]);
        if identity
            && reads_default_token
            && workload::is_false(spec, "automountServiceAccountToken")
        {
            return skip(SkipReason::AutomountDisabled);
        }
        if identity
            && text_at(values, &["identityTrustAnchorsPEM"])
                .trim()
                .is_empty()
        {
            return Err(InjectError::NoTrustAnchors {
                workload: Box::new(at.clone()),
            });
        }
        let sidecar = self.sidecar(&pod, &extras.inbound_ports, at)?;
        let mut warnings = pod.warnings.clone();
        if uses_udp(template) {
            warnings.push(Warning::Udp);
        }
        if truthy(values, &["proxy", "nativeSidecar"])
            && truthy(values, &["proxy", "waitBeforeExitSeconds"])
        {
            warnings.push(Warning::WaitBeforeExitIgnored);
        }
        // A Job completes when all of its pod's containers have exited; a proxy that is a
        // regular container runs on after the app (a native sidecar is stopped by Kubernetes).
        if matches!(kind.kind, "Job" | "CronJob") && !truthy(values, &["proxy", "nativeSidecar"]) {
            warnings.push(Warning::JobProxyShutdown {
                kind: kind.kind,
                how: crate::proxy_support::job_shutdown(values),
            });
        }
        let hook =
            truthy(values, &["proxy", "await"]) && !truthy(values, &["proxy", "nativeSidecar"]);
        warnings.extend(
            crate::proxy_support::unsupported_features(values, hook)
                .into_iter()
                .map(Warning::ProxyLacks),
        );
        let issue = crate::proxy_support::NOT_READY_PEERS;
        if crate::proxy_support::is_open(values, &issue) {
            let labels = template
                .get("metadata")
                .and_then(|m| m.get_path(&["labels"]))
                .and_then(Value::as_map);
            if let Some(service) = self.namespaces.not_ready_service(&at.namespace, labels) {
                warnings.push(Warning::KnownIssue {
                    issue,
                    release: text_at(values, &["linkerdVersion"]).to_owned(),
                    service: service.name.clone(),
                });
            }
        }
        let owner = Owner {
            kind,
            name: &at.name,
            namespace: &at.namespace,
        };
        inject_template(template, owner, values, sidecar);
        Ok(Outcome::Injected {
            already,
            changed: true,
            warnings,
        })
    }
}

pub(super) struct Uninjector;

impl Transform for Uninjector {
    fn outcome_tells_change(&self) -> bool {
        true
    }

    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError> {
        let Some(kind) = workload_kind(&at.kind) else {
            return Ok(Outcome::Skipped(SkipReason::Unsupported));
        };
        check_shape(doc, kind, at)?;
        let selector = selector_labels(doc, kind);
        let Some(template) = pod_template_mut(doc, kind) else {
            return Ok(Outcome::Skipped(SkipReason::NoPodTemplate));
        };
        if let Some((name, image)) = foreign_container_with_owned_name(template) {
            return Ok(Outcome::Skipped(SkipReason::NameTaken { name, image }));
        }
        Ok(if uninject_template(template, &selector) {
            Outcome::Uninjected
        } else {
            Outcome::Skipped(SkipReason::NotInjected)
        })
    }
}

/// Refuses a workload whose fields have shapes inject would overwrite (see
/// [`workload::check_shapes`]).
fn check_shape(doc: &Value, kind: &WorkloadKind, at: &WorkloadRef) -> Result<(), InjectError> {
    workload::check_shapes(doc, kind).map_err(|p| InjectError::Shape {
        workload: Box::new(at.clone()),
        field: p.field,
        expected: p.expected,
        found: p.found,
    })
}
