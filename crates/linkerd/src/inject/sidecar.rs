//! The injected containers, rendered by the chart's own partials.
//!
//! The `linkerd-proxy`, `linkerd-init` and `linkerd-debug` containers of an injected workload
//! come from the very partials that render the control plane's proxies (`_proxy.tpl`,
//! `_proxy-init.tpl`, `_debug.tpl`), each rendered on its own with the pod's values.
//!
//! What else inject writes to the pod (annotations, the control-plane label, volumes) differs
//! between Linkerd releases, so a chart declares it in its [`INJECT_PARTIAL`], rendered with the
//! same pod values ([`PodAdditions`]). A chart without one (the 2021 line, or a chart folder
//! written for it) gets the additions of that era, built here: the proxy-version and
//! identity-mode annotations and the xtables and identity volumes.

use super::error::SidecarError;
use crate::chart::{declared_in, Chart};
use crate::engine::{Engine, KubeVersion, RenderError, RenderOptions};
use crate::values::{Map, Value};

/// One of the containers inject adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `linkerd-proxy`.
    Proxy,
    /// `linkerd-init`.
    Init,
    /// `linkerd-debug`.
    Debug,
    /// `linkerd-network-validator`: with the CNI plugin doing linkerd-init's job, the init
    /// container that checks the pod's traffic is redirected (from charts that have it).
    NetworkValidator,
}

impl Part {
    /// The chart partial (path under `templates/`) that renders it.
    pub fn template(self) -> &'static str {
        match self {
            Part::Proxy => "_proxy.tpl",
            Part::Init => "_proxy-init.tpl",
            Part::Debug => "_debug.tpl",
            Part::NetworkValidator => "_network-validator.tpl",
        }
    }

    /// The container's name.
    pub fn container_name(self) -> &'static str {
        match self {
            Part::Proxy => PROXY_CONTAINER,
            Part::Init => INIT_CONTAINER,
            Part::Debug => DEBUG_CONTAINER,
            Part::NetworkValidator => NETWORK_VALIDATOR_CONTAINER,
        }
    }
}

/// The proxy container's name.
pub(crate) const PROXY_CONTAINER: &str = "linkerd-proxy";
/// The init container's name.
pub(crate) const INIT_CONTAINER: &str = "linkerd-init";
/// The debug container's name.
pub(crate) const DEBUG_CONTAINER: &str = "linkerd-debug";
/// The CNI network validator's name.
pub(crate) const NETWORK_VALIDATOR_CONTAINER: &str = "linkerd-network-validator";
/// The proxy's identity volume.
pub(crate) const IDENTITY_VOLUME: &str = "linkerd-identity-end-entity";
/// The init container's xtables lock volume (its name comes from `proxyInit.xtMountPath.name`).
pub(crate) const XTABLES_VOLUME: &str = "linkerd-proxy-init-xtables-lock";

/// The partial (path under `templates/`) in which a chart declares what inject adds to a pod
/// besides the containers: a YAML map with `annotations` and `labels` (string maps, written
/// onto the pod template) and `volumes` (the volumes, in the order they follow the pod's own).
/// It renders with the pod's values and `Release.Namespace` set to the control plane's
/// namespace.
pub(crate) const INJECT_PARTIAL: &str = "_inject.tpl";

/// The namespace of the control plane injected proxies talk to when the values name none
/// (upstream's `linkerd inject` default, `--linkerd-namespace linkerd`).
pub(crate) const DEFAULT_CONTROL_PLANE_NAMESPACE: &str = "linkerd";

/// What inject writes to a pod besides the containers, as the chart's [`INJECT_PARTIAL`]
/// declares it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PodAdditions {
    /// Pod template annotations.
    pub annotations: Map,
    /// Pod template labels (the workload's own `linkerd.io/proxy-<kind>` and
    /// `linkerd.io/workload-ns` labels are inject's, not the chart's).
    pub labels: Map,
    /// Volumes, appended to the pod's in this order.
    pub volumes: Vec<Value>,
}

/// Renders the sidecar containers; the chart does it for real, tests may substitute. Workloads
/// are injected in parallel, so a source is shared between threads.
pub trait SidecarSource: Sync {
    /// The container `part` as a map, rendered with `values`.
    fn render(&self, part: Part, values: &Value) -> Result<Value, SidecarError>;

    /// Whether the source can render `part` at all: every source renders the proxy, linkerd-init
    /// and linkerd-debug; the network validator only comes from charts that have it.
    fn provides(&self, part: Part) -> bool {
        part != Part::NetworkValidator
    }

    /// Whether the chart declares the values key `path` (dotted) in its default values or its
    /// values schema (see [`declared_in`]), which names settings its partials read only when
    /// given; `None` when the source has no schema to tell.
    fn declares_value(&self, _path: &str) -> Option<bool> {
        None
    }

    /// What the chart adds to a pod besides the containers, rendered with `values`; `None` when
    /// the chart declares nothing (then inject adds what the 2021 chart's era did).
    fn additions(&self, _values: &Value) -> Result<Option<PodAdditions>, SidecarError> {
        Ok(None)
    }
}

/// The chart's partials, compiled once (borrowing the chart's texts).
pub struct ChartSidecars<'chart> {
    engine: Engine<'chart>,
    options: RenderOptions,
    /// Whether the chart has an [`INJECT_PARTIAL`].
    declares_additions: bool,
    /// Whether the chart has the network validator's partial.
    has_network_validator: bool,
    /// The chart's default values, for [`SidecarSource::declares_value`].
    defaults: Option<&'chart Value>,
    /// The chart's `values.schema.json`, parsed (none without one, or when it is not JSON,
    /// which lint reports: it only widens what inject accepts).
    schema: Option<serde_json::Value>,
}

impl<'chart> ChartSidecars<'chart> {
    /// Compiles `chart`'s templates, to render for the default Kubernetes version (render's),
    /// with `Release.Namespace` the [`DEFAULT_CONTROL_PLANE_NAMESPACE`].
    pub fn new(chart: &'chart Chart) -> Result<ChartSidecars<'chart>, RenderError> {
        let has = |name: &str| chart.templates.iter().any(|t| t.path == name);
        let declares_additions = has(INJECT_PARTIAL);
        let has_network_validator = has(Part::NetworkValidator.template());
        Ok(ChartSidecars {
            engine: Engine::new(chart)?,
            options: RenderOptions {
                namespace: DEFAULT_CONTROL_PLANE_NAMESPACE.into(),
                ..RenderOptions::default()
            },
            declares_additions,
            has_network_validator,
            defaults: chart.default_values_read().ok(),
            schema: chart
                .other_files
                .iter()
                .find(|f| f.path == "values.schema.json")
                .and_then(|f| serde_json::from_str(&f.text).ok()),
        })
    }

    /// The partials render with `namespace` as `Release.Namespace`: the control plane's
    /// namespace, which the release lines' partials take from there (the 2021 chart's read
    /// `Values.namespace` instead).
    pub fn in_namespace(mut self, namespace: &str) -> Self {
        self.options.namespace = namespace.to_owned();
        self
    }

    /// The partials render for `version` (`Capabilities.KubeVersion`: the proxy partial refuses
    /// native sidecars below 1.29).
    pub fn for_kube_version(mut self, version: KubeVersion) -> Self {
        self.options.kube_version = version;
        self
    }
}

impl SidecarSource for ChartSidecars<'_> {
    fn render(&self, part: Part, values: &Value) -> Result<Value, SidecarError> {
        let text = self
            .engine
            .render_template(part.template(), values, &self.options)?;
        container_from_text(part, &text)
    }

    fn provides(&self, part: Part) -> bool {
        part != Part::NetworkValidator || self.has_network_validator
    }

    fn declares_value(&self, path: &str) -> Option<bool> {
        let path: Vec<&str> = path.split('.').collect();
        let schema = self.schema.as_ref()?;
        Some(declared_in(self.defaults, Some(schema), &path))
    }

    fn additions(&self, values: &Value) -> Result<Option<PodAdditions>, SidecarError> {
        if !self.declares_additions {
            return Ok(None);
        }
        let text = self
            .engine
            .render_template(INJECT_PARTIAL, values, &self.options)?;
        additions_from_text(&text).map(Some)
    }
}

/// Parses an [`INJECT_PARTIAL`]'s output.
pub(crate) fn additions_from_text(text: &str) -> Result<PodAdditions, SidecarError> {
    let invalid = |message: String| SidecarError::BadAdditions {
        template: INJECT_PARTIAL.into(),
        message,
    };
    let value = crate::yaml::parse_document(text).map_err(|e| invalid(e.to_string()))?;
    let Value::Map(mut map) = value else {
        return Err(invalid(format!("got a {}", value.type_name())));
    };
    let mut string_map = |key: &str| -> Result<Map, SidecarError> {
        match map.remove(key) {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Map(m)) => match m.iter().find(|(_, v)| !matches!(v, Value::String(_))) {
                Some((k, v)) => Err(invalid(format!(
                    "{key}.{k} must be a string, not a {}",
                    v.type_name()
                ))),
                None => Ok(m),
            },
            Some(other) => Err(invalid(format!(
                "{key} must be a map, not a {}",
                other.type_name()
            ))),
        }
    };
    let annotations = string_map("annotations")?;
    let labels = string_map("labels")?;
    let volumes = match map.remove("volumes") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Seq(items)) => items,
        Some(other) => {
            return Err(invalid(format!(
                "volumes must be a list, not a {}",
                other.type_name()
            )))
        }
    };
    if let Some(key) = map.keys().next() {
        return Err(invalid(format!(
            "unknown key {key} (annotations, labels and volumes are read)"
        )));
    }
    Ok(PodAdditions {
        annotations,
        labels,
        volumes,
    })
}

/// Parses a partial's output into a container map, dropping null fields (a bare `resources:`
/// means "none", which Kubernetes and upstream's typed output both leave out).
pub(crate) fn container_from_text(part: Part, text: &str) -> Result<Value, SidecarError> {
    let not_a_container = |message: String| SidecarError::NotAContainer {
        template: part.template().into(),
        message,
    };
    let mut value =
        crate::yaml::parse_document(text).map_err(|e| not_a_container(e.to_string()))?;
    if value.as_map().is_none() {
        return Err(not_a_container(format!("got a {}", value.type_name())));
    }
    drop_nulls(&mut value);
    drop_zero_probe_fields(&mut value);
    drop_empty_env_values(&mut value);
    Ok(value)
}

/// An env var's empty `value` (also `omitempty` in Kubernetes' types, and the same to the
/// container as no value): upstream's typed output writes the bare name, as for a pod without
/// ports' `LINKERD2_PROXY_INBOUND_PORTS`.
fn drop_empty_env_values(container: &mut Value) {
    let Some(Value::Seq(env)) = container.as_map_mut().and_then(|c| c.get_mut("env")) else {
        return;
    };
    for var in env.iter_mut().filter_map(Value::as_map_mut) {
        if matches!(var.get("value"), Some(Value::String(v)) if v.is_empty()) {
            var.remove("value");
        }
    }
}

/// The probes' integer fields Kubernetes leaves out when zero (they are `omitempty` in its
/// API types), as upstream's typed inject output does: a partial may print a 0 the control
/// plane's render keeps, such as a startupProbe's `initialDelaySeconds`.
const PROBE_INT_FIELDS: &[&str] = &[
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
];

fn drop_zero_probe_fields(container: &mut Value) {
    let Some(map) = container.as_map_mut() else {
        return;
    };
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(Value::Map(fields)) = map.get_mut(probe) {
            fields.retain(|k, v| !(PROBE_INT_FIELDS.contains(&k.as_str()) && *v == Value::Int(0)));
        }
    }
}

fn drop_nulls(value: &mut Value) {
    match value {
        Value::Map(map) => {
            map.retain(|_, v| !matches!(v, Value::Null));
            map.values_mut().for_each(drop_nulls);
        }
        Value::Seq(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// The identity volume: an in-memory `emptyDir` for the proxy's certificate and key.
pub(crate) fn identity_volume() -> Value {
    let mut empty_dir = Map::new();
    empty_dir.insert("medium".into(), Value::from("Memory"));
    volume(IDENTITY_VOLUME, empty_dir)
}

/// The xtables lock volume the init container mounts.
pub(crate) fn xtables_volume(name: &str) -> Value {
    volume(name, Map::new())
}

fn volume(name: &str, empty_dir: Map) -> Value {
    let mut map = Map::new();
    map.insert("emptyDir".into(), Value::Map(empty_dir));
    map.insert("name".into(), Value::from(name));
    Value::Map(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additions_parse_annotations_labels_and_volumes_in_order() {
        let text =
            "annotations:\n  a: \"1\"\nlabels:\n  l: x\nvolumes:\n- name: one\n- name: two\n";
        let additions = additions_from_text(text).unwrap();
        assert_eq!(additions.annotations.get("a"), Some(&Value::from("1")));
        assert_eq!(additions.labels.get("l"), Some(&Value::from("x")));
        let names: Vec<_> = additions
            .volumes
            .iter()
            .map(|v| v.get_path(&["name"]).and_then(Value::as_str))
            .collect();
        assert_eq!(names, [Some("one"), Some("two")]);
        let empty = additions_from_text("").unwrap_err().to_string();
        assert!(empty.contains("got a"), "{empty}");
    }

    #[test]
    fn additions_refuse_unknown_keys_and_non_string_annotations() {
        let unknown = additions_from_text("containers: []\n")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("unknown key containers"), "{unknown}");
        let number = additions_from_text("annotations:\n  a: 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            number.contains("annotations.a must be a string"),
            "{number}"
        );
    }

    #[test]
    fn containers_lose_zero_probe_fields_and_empty_env_values_as_kubernetes_types_do() {
        let text = "name: linkerd-proxy\nenv:\n- name: A\n  value: \"\"\n- name: B\n  value: b\n\
                    startupProbe:\n  initialDelaySeconds: 0\n  periodSeconds: 1\n";
        let container = container_from_text(Part::Proxy, text).unwrap();
        assert_eq!(
            container.get_path(&["env"]),
            crate::yaml::parse_document("- name: A\n- name: B\n  value: b\n")
                .ok()
                .as_ref()
        );
        assert_eq!(
            container.get_path(&["startupProbe"]),
            crate::yaml::parse_document("periodSeconds: 1\n")
                .ok()
                .as_ref()
        );
    }
}
