//! From annotations to values: the configuration of one pod.
//!
//! Later wins: chart defaults, the user's `-f`/`--set` values (together the *base* values), the
//! namespace's inheritable `config.linkerd.io/*` annotations, the workload's metadata annotations,
//! then the pod template's annotations. Each annotation in [`SETTINGS`] maps to a values key; the
//! chart's partials turn values into container fields. A value we do not accept is an error,
//! never silently ignored (upstream warns and ignores).

mod setters;
mod settings;
mod unknown;

use setters::{one_of, set, INJECT_VALUES};
use unknown::{all_settings, setting_values_key, unknown_annotations, CONFIG_PREFIXES};

use super::error::{InjectError, Origin, WorkloadRef};
use super::parse::parse_port_range;
use super::report::Warning;
use super::workload::truthy;
use crate::values::{Map, Value};

/// The annotation that turns injection on, off, or on in ingress mode.
pub(crate) const INJECT_ANNOTATION: &str = "linkerd.io/inject";

/// Whether resolving a pod's configuration reads annotation `key`: `linkerd.io/inject` and the
/// configuration prefixes' (every setting's key is one; the rest are warned about). Any other
/// annotation (a checksum, a scrape port) has no effect on the configuration.
pub(crate) fn reads_annotation(key: &str) -> bool {
    key == INJECT_ANNOTATION || CONFIG_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// How a pod asks to be injected (`linkerd.io/inject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InjectMode {
    /// Inject (the default for `meshchart inject`, or `enabled`).
    #[default]
    Enabled,
    /// `ingress`: inject, with the proxy in ingress mode.
    Ingress,
    /// `disabled`: leave the pod alone.
    Disabled,
}

/// The annotations of each layer that configures a pod.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Layers<'a> {
    /// The namespace's name and annotations, when known.
    pub namespace: Option<(&'a str, &'a Map)>,
    /// The workload's own `metadata.annotations` (none for a bare Pod).
    pub workload: Option<&'a Map>,
    /// The pod template's `metadata.annotations`.
    pub pod: Option<&'a Map>,
}

/// A winning annotation: the key it was written under, its value, and where it came from.
struct Found {
    key: &'static str,
    text: String,
    origin: Origin,
}

impl<'a> Layers<'a> {
    /// The winning value among `keys` (one setting's spellings, the preferred first) and where
    /// it came from: the closest layer wins (pod template, workload, then namespace, which
    /// counts only for inheritable settings), and within a layer the earliest key.
    fn lookup(&self, keys: &[&'static str], inheritable: bool) -> Option<Found> {
        let get = |m: Option<&'a Map>| {
            let m = m?;
            keys.iter()
                .find_map(|k| m.get(*k).map(|v| (*k, annotation_text(v))))
        };
        if let Some((key, text)) = get(self.pod) {
            return Some(Found {
                key,
                text,
                origin: Origin::PodTemplate,
            });
        }
        if let Some((key, text)) = get(self.workload) {
            return Some(Found {
                key,
                text,
                origin: Origin::Workload,
            });
        }
        if inheritable {
            if let Some((name, annotations)) = self.namespace {
                if let Some((key, text)) = get(Some(annotations)) {
                    return Some(Found {
                        key,
                        text,
                        origin: Origin::Namespace(name.to_owned()),
                    });
                }
            }
        }
        None
    }
}

/// An annotation's value as text. Kubernetes only accepts strings; an unquoted `9998` or `true`
/// is read as what it obviously means rather than rejected.
fn annotation_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Float(f) => crate::values::format_go_float(*f),
        _ => String::new(),
    }
}

/// Facts about the pod that some annotations need. It remembers whether they were read, so a
/// configuration resolved without them can be shared by pods whose facts differ.
#[derive(Clone, Debug, Default)]
pub(crate) struct PodFacts {
    /// Named container ports of the app containers: name and number.
    named_ports: Vec<(String, i64)>,
    read: std::cell::Cell<bool>,
}

impl PodFacts {
    /// The facts of a pod whose app containers have `named_ports` (name and number).
    pub(crate) fn new(named_ports: Vec<(String, i64)>) -> PodFacts {
        PodFacts {
            named_ports,
            read: std::cell::Cell::new(false),
        }
    }

    /// The named container ports (a port list annotation's names resolve to them).
    pub(crate) fn named_ports(&self) -> &[(String, i64)] {
        self.read.set(true);
        &self.named_ports
    }

    /// The number of the app containers' port named `name`, if one is. Looking up a port
    /// number or range (a port list's `5432`) finds nothing but a port named like a number,
    /// which [`PodFacts::numeric_named_ports`] tells: only a lookup that finds a port, or one of a
    /// real name, counts as reading the named ports.
    pub(crate) fn port_named(&self, name: &str) -> Option<i64> {
        let found = self
            .named_ports
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, port)| *port);
        if found.is_some() || parse_port_range(name).is_none() {
            self.read.set(true);
        }
        found
    }

    /// The named ports without recording a read (for a cache key).
    pub(crate) fn named_ports_unread(&self) -> &[(String, i64)] {
        &self.named_ports
    }

    /// The named ports whose names read as a port number or range (Kubernetes allows no such
    /// name, but a manifest may have one): the one thing besides the annotations that decides
    /// the configuration when it does not read the named ports.
    pub(crate) fn numeric_named_ports(&self) -> Vec<(String, i64)> {
        self.named_ports
            .iter()
            .filter(|(name, _)| parse_port_range(name).is_some())
            .cloned()
            .collect()
    }

    /// Whether anything read [`PodFacts::named_ports`]: if not, the pod's configuration does
    /// not depend on them.
    pub(crate) fn were_read(&self) -> bool {
        self.read.get()
    }
}

/// One pod's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PodConfig {
    /// The values the sidecar partials render with.
    pub values: Value,
    /// `linkerd.io/inject`.
    pub mode: InjectMode,
    /// Whether to add the `linkerd-debug` container.
    pub debug: bool,
    /// What the report should say about the annotations (a port name no container has).
    pub warnings: Vec<Warning>,
}

/// What applying an annotation's value may do.
struct Apply<'a> {
    values: &'a mut Value,
    debug: &'a mut bool,
    facts: &'a PodFacts,
    warnings: &'a mut Vec<Warning>,
}

type Setter = fn(&str, &mut Apply<'_>) -> Result<(), String>;

/// An annotation we honour: its key, whether a namespace's value is inherited, and its effect.
pub(crate) struct Setting {
    /// The annotation key.
    pub key: &'static str,
    /// Older spellings of the key, read when the key itself is absent from a layer (the
    /// `config.alpha.linkerd.io/` and `config.beta.linkerd.io/` prefixes of a setting that has
    /// since become `config.linkerd.io/`).
    pub aliases: &'static [&'static str],
    /// Whether the namespace's annotation applies to the pods in it (upstream's list, plus
    /// `default-inbound-policy`).
    pub inheritable: bool,
    /// The values key it sets (documentation; the setter does the work).
    pub values_key: &'static str,
    setter: Setter,
}

/// Reads `linkerd.io/inject` from the workload and the pod template (the pod wins). Namespaces
/// are not consulted: running `inject` on a file is the request to inject it.
pub(crate) fn inject_mode(
    layers: &Layers<'_>,
    workload: &WorkloadRef,
) -> Result<InjectMode, InjectError> {
    let Some(Found { text, origin, .. }) = layers.lookup(&[INJECT_ANNOTATION], false) else {
        return Ok(InjectMode::Enabled);
    };
    match text.as_str() {
        "enabled" => Ok(InjectMode::Enabled),
        "ingress" => Ok(InjectMode::Ingress),
        "disabled" => Ok(InjectMode::Disabled),
        _ => Err(InjectError::InvalidAnnotation {
            workload: Box::new(workload.clone()),
            annotation: INJECT_ANNOTATION.into(),
            value: text,
            origin,
            allowed: one_of(INJECT_VALUES),
        }),
    }
}

/// The configuration of one pod: `base` values with every annotation of `layers` applied.
#[cfg(test)]
pub(crate) fn resolve(
    base: &Value,
    layers: &Layers<'_>,
    facts: &PodFacts,
    workload: &WorkloadRef,
) -> Result<PodConfig, InjectError> {
    resolve_for_chart(base, layers, facts, workload, &|_| None)
}

/// [`resolve`] for a chart that may say which values keys it has: `chart_declares(path)` is
/// whether its values schema names `path` (dotted), `None` without a schema. An annotation
/// whose values key neither the base values nor the schema have is not applied and the report
/// warns (it would have no effect with this chart, as the 2021 line's `disable-identity` with
/// a later release's chart); a [`CHART_KEYED_SETTINGS`] annotation needs its key declared even
/// without a schema.
pub(crate) fn resolve_for_chart(
    base: &Value,
    layers: &Layers<'_>,
    facts: &PodFacts,
    workload: &WorkloadRef,
    chart_declares: &dyn Fn(&str) -> Option<bool>,
) -> Result<PodConfig, InjectError> {
    let mode = inject_mode(layers, workload)?;
    let mut values = base.clone();
    // `debugContainer.enabled` (upstream's --enable-debug-sidecar); the annotation overrides it.
    let mut debug = truthy(base, &["debugContainer", "enabled"]);
    let mut warnings = Vec::new();
    // Whether a setting has an effect with this chart: not when the values key it sets is one
    // the chart does not have (a setting of another release's chart).
    let applies = |setting: &Setting, keyed: bool| {
        !setting_values_key(setting).is_some_and(|key| {
            let path: Vec<&str> = key.split('.').collect();
            let schema = chart_declares(key);
            base.get_path(&path).is_none()
                && schema != Some(true)
                && (keyed || schema == Some(false))
        })
    };
    warnings.extend(unknown_annotations(layers, &|s, keyed| applies(s, keyed)));
    for (setting, keyed) in all_settings() {
        let keys: Vec<&'static str> = std::iter::once(setting.key)
            .chain(setting.aliases.iter().copied())
            .collect();
        let Some(Found { key, text, origin }) = layers.lookup(&keys, setting.inheritable) else {
            continue;
        };
        let values_key = setting_values_key(setting);
        if !applies(setting, keyed) {
            warnings.push(Warning::NotInChart {
                annotation: setting.key,
                values_key: values_key.unwrap_or(setting.values_key),
            });
            continue;
        }
        let mut apply = Apply {
            values: &mut values,
            debug: &mut debug,
            facts,
            warnings: &mut warnings,
        };
        (setting.setter)(&text, &mut apply).map_err(|allowed| InjectError::InvalidAnnotation {
            workload: Box::new(workload.clone()),
            annotation: key.into(),
            value: text.clone(),
            origin,
            allowed,
        })?;
    }
    if mode == InjectMode::Ingress {
        set(&mut values, "proxy.isIngress", Value::Bool(true));
    }
    if truthy(&values, &["proxy", "disableIdentity"])
        && truthy(&values, &["proxy", "requireIdentityOnInboundPorts"])
    {
        return Err(InjectError::Conflict {
            workload: Box::new(workload.clone()),
            message: "config.linkerd.io/proxy-require-identity-inbound-ports \
                      (proxy.requireIdentityOnInboundPorts) cannot be set when identity is \
                      disabled"
                .into(),
        });
    }
    Ok(PodConfig {
        values,
        mode,
        debug,
        warnings,
    })
}

#[cfg(test)]
mod tests;
