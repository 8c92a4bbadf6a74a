//! The injected containers, rendered by the chart's own partials.
//!
//! The `linkerd-proxy`, `linkerd-init` and `linkerd-debug` containers of an injected workload
//! come from the very partials that render the control plane's proxies (`_proxy.tpl`,
//! `_proxy-init.tpl`, `_debug.tpl`), each rendered on its own with the pod's values. The volumes
//! are plain constants here: they carry no configuration beyond the xtables mount's name.

use super::error::SidecarError;
use crate::chart::Chart;
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
}

impl Part {
    /// The chart partial (path under `templates/`) that renders it.
    pub fn template(self) -> &'static str {
        match self {
            Part::Proxy => "_proxy.tpl",
            Part::Init => "_proxy-init.tpl",
            Part::Debug => "_debug.tpl",
        }
    }

    /// The container's name.
    pub fn container_name(self) -> &'static str {
        match self {
            Part::Proxy => PROXY_CONTAINER,
            Part::Init => INIT_CONTAINER,
            Part::Debug => DEBUG_CONTAINER,
        }
    }
}

/// The proxy container's name.
pub const PROXY_CONTAINER: &str = "linkerd-proxy";
/// The init container's name.
pub const INIT_CONTAINER: &str = "linkerd-init";
/// The debug container's name.
pub const DEBUG_CONTAINER: &str = "linkerd-debug";
/// The proxy's identity volume.
pub const IDENTITY_VOLUME: &str = "linkerd-identity-end-entity";
/// The init container's xtables lock volume (its name comes from `proxyInit.xtMountPath.name`).
pub const XTABLES_VOLUME: &str = "linkerd-proxy-init-xtables-lock";

/// Renders the sidecar containers; the chart does it for real, tests may substitute. Workloads
/// are injected in parallel, so a source is shared between threads.
pub trait SidecarSource: Sync {
    /// The container `part` as a map, rendered with `values`.
    fn render(&self, part: Part, values: &Value) -> Result<Value, SidecarError>;
}

/// The chart's partials, compiled once (borrowing the chart's texts).
pub struct ChartSidecars<'chart> {
    engine: Engine<'chart>,
    options: RenderOptions,
}

impl<'chart> ChartSidecars<'chart> {
    /// Compiles `chart`'s templates, to render for the default Kubernetes version (render's).
    pub fn new(chart: &'chart Chart) -> Result<ChartSidecars<'chart>, RenderError> {
        Ok(ChartSidecars {
            engine: Engine::new(chart)?,
            options: RenderOptions::default(),
        })
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
}

/// Parses a partial's output into a container map, dropping null fields (a bare `resources:`
/// means "none", which Kubernetes and upstream's typed output both leave out).
pub fn container_from_text(part: Part, text: &str) -> Result<Value, SidecarError> {
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
    Ok(value)
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
pub fn identity_volume() -> Value {
    let mut empty_dir = Map::new();
    empty_dir.insert("medium".into(), Value::from("Memory"));
    volume(IDENTITY_VOLUME, empty_dir)
}

/// The xtables lock volume the init container mounts.
pub fn xtables_volume(name: &str) -> Value {
    volume(name, Map::new())
}

fn volume(name: &str, empty_dir: Map) -> Value {
    let mut map = Map::new();
    map.insert("emptyDir".into(), Value::Map(empty_dir));
    map.insert("name".into(), Value::from(name));
    Value::Map(map)
}
