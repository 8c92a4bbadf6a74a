//! `inject --chart`: the sidecars of a release meshchart does not embed, rendered from upstream's
//! own `linkerd-control-plane` chart of that release (`helm pull linkerd/linkerd-control-plane
//! --version X`, a folder or the archive), as upstream's CLI renders them from the chart it was
//! built with.
//!
//! Upstream's `linkerd inject` turns the control plane's values and the workload's
//! `config.linkerd.io/*` annotations into one values tree per pod, and renders a JSON patch
//! (its `patch` chart, which `linkerd-control-plane` does not ship) whose containers and
//! service-account-token volume come from the `partials` library chart every
//! `linkerd-control-plane` chart carries. meshchart reads the workload, resolves its values and
//! writes the output exactly as for an embedded line (see [`super`]); only the sidecars come
//! from here:
//!
//! - the containers: the partials [`PROXY`], [`PROXY_INIT`], [`NETWORK_VALIDATOR`] (with the
//!   CNI plugin) and [`DEBUG`], each rendered through the Go-template front end with the pod's
//!   values as `.Values` and the control plane's namespace as `.Release.Namespace`;
//! - the volumes, in the patch's order: the iptables lock ([`XTABLES_VOLUME`], without CNI),
//!   the proxy's identity ([`IDENTITY_VOLUME`]), the pod-info volume a tracing proxy reads
//!   (built here as the patch writes it: labels only, where the chart's own podinfo partial
//!   also has annotations for its control-plane pods), and the projected identity token
//!   ([`TOKEN_VOLUME`], with `identity.serviceAccountTokenProjection`);
//! - the annotations upstream's Go code writes (`linkerd.io/proxy-version`: `proxy.image.version`
//!   else `linkerdVersion`; `linkerd.io/trust-root-sha256`: the trust anchors' SHA-256) and the
//!   creator stamp of the chart's [`CREATED_BY`] partial, as the embedded lines write theirs;
//!   the label `linkerd.io/control-plane-ns`.
//!
//! A Go-template chart without the proxy or proxy-init partial is refused, naming the partial
//! and the file upstream's chart defines it in.

use super::error::{InjectError, SidecarError};
use super::sidecar::{container_from_text, Part, PodAdditions, SidecarSource};
use super::workload::{text_at, truthy};
use crate::chart::{declared_in, Chart};
use crate::engine::{KubeVersion, RenderOptions};
use crate::values::{Map, Value};
use meshchart_helm::gotpl::NamedTemplates;

/// A partial of upstream's chart: its `define` name and the file (in the chart) it lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partial {
    /// The name templates `include`.
    pub name: &'static str,
    /// Where upstream's `linkerd-control-plane` chart defines it.
    pub file: &'static str,
}

const fn partial(name: &'static str, file: &'static str) -> Partial {
    Partial { name, file }
}

/// The `linkerd-proxy` container.
pub const PROXY: Partial = partial("partials.proxy", "charts/partials/templates/_proxy.tpl");
/// The `linkerd-init` container.
pub const PROXY_INIT: Partial = partial(
    "partials.proxy-init",
    "charts/partials/templates/_proxy-init.tpl",
);
/// The `linkerd-network-validator` container (with the CNI plugin).
pub const NETWORK_VALIDATOR: Partial = partial(
    "partials.network-validator",
    "charts/partials/templates/_network-validator.tpl",
);
/// The `linkerd-debug` container.
pub const DEBUG: Partial = partial("partials.debug", "charts/partials/templates/_debug.tpl");
/// The `linkerd.io/created-by` annotation.
pub const CREATED_BY: Partial = partial(
    "partials.annotations.created-by",
    "charts/partials/templates/_metadata.tpl",
);
/// The iptables lock volume linkerd-init mounts.
pub const XTABLES_VOLUME: Partial = partial(
    "partials.proxyInit.volumes.xtables",
    "charts/partials/templates/_volumes.tpl",
);
/// The proxy's identity volume.
pub const IDENTITY_VOLUME: Partial = partial(
    "partials.proxy.volumes.identity",
    "charts/partials/templates/_volumes.tpl",
);
/// The pod-info volume a tracing proxy reads: only its presence is read (see
/// [`tracing_switch`]), as upstream's patch writes the volume itself.
pub const PODINFO_VOLUME: Partial = partial(
    "partials.proxy.volumes.podinfo",
    "charts/partials/templates/_volumes.tpl",
);
/// The projected token the proxy presents to identity.
pub const TOKEN_VOLUME: Partial = partial(
    "partials.proxy.volumes.service-account-token",
    "charts/partials/templates/_volumes.tpl",
);

/// What a chart must define to be taken for Linkerd's control-plane chart: every injected pod
/// needs these (upstream's charts have had them since stable-2.11). The others are asked for
/// when a pod needs them: the token volume came at stable-2.12, the network validator at
/// stable-2.13, tracing's pod-info volume at edge-25.7.1.
const REQUIRED: [Partial; 4] = [PROXY, PROXY_INIT, XTABLES_VOLUME, IDENTITY_VOLUME];

impl Part {
    /// The partial of upstream's chart that renders this container.
    pub fn upstream_partial(self) -> Partial {
        match self {
            Part::Proxy => PROXY,
            Part::Init => PROXY_INIT,
            Part::Debug => DEBUG,
            Part::NetworkValidator => NETWORK_VALIDATOR,
        }
    }
}

/// The sidecars of upstream's `linkerd-control-plane` chart, its templates read once.
pub struct UpstreamChartSidecars {
    templates: NamedTemplates,
    /// The control plane's namespace (`linkerd.io/control-plane-ns`).
    namespace: String,
    /// The values key that adds the pod-info volume ([`tracing_switch`]).
    tracing_switch: Option<[&'static str; 3]>,
}

impl UpstreamChartSidecars {
    /// Reads `chart` (a Go-template chart with its `partials` subchart) to render for
    /// Kubernetes `kube_version`, the control plane in `namespace`. A chart lacking the proxy,
    /// proxy-init, iptables-lock volume or identity volume partial is
    /// [`InjectError::NotAControlPlaneChart`].
    pub fn new(
        chart: &Chart,
        namespace: &str,
        kube_version: KubeVersion,
    ) -> Result<UpstreamChartSidecars, InjectError> {
        let options = RenderOptions {
            namespace: namespace.to_owned(),
            kube_version,
            ..RenderOptions::default()
        };
        let templates = NamedTemplates::new(chart, options)?;
        if let Some(missing) = REQUIRED.iter().find(|p| !templates.defines(p.name)) {
            return Err(InjectError::NotAControlPlaneChart {
                chart: chart.origin.clone(),
                partial: missing.name,
                file: missing.file,
            });
        }
        Ok(UpstreamChartSidecars {
            tracing_switch: tracing_switch(chart, templates.defines(PODINFO_VOLUME.name)),
            templates,
            namespace: namespace.to_owned(),
        })
    }

    /// `partial` rendered with `values`, parsed as a YAML mapping.
    fn mapping(&self, partial: Partial, values: &Value) -> Result<Map, SidecarError> {
        let invalid = |message: String| SidecarError::BadAdditions {
            template: partial.name.to_owned(),
            message,
        };
        if !self.templates.defines(partial.name) {
            return Err(invalid(format!(
                "the chart defines no such template (upstream's keeps it in {})",
                partial.file
            )));
        }
        let text = self.templates.render(partial.name, values)?;
        match crate::yaml::parse_document(&text).map_err(|e| invalid(e.to_string()))? {
            Value::Map(map) => Ok(map),
            other => Err(invalid(format!("got a {}", other.type_name()))),
        }
    }
}

impl SidecarSource for UpstreamChartSidecars {
    fn render(&self, part: Part, values: &Value) -> Result<Value, SidecarError> {
        let partial = part.upstream_partial();
        if !self.templates.defines(partial.name) {
            return Err(SidecarError::NotAContainer {
                template: partial.name.to_owned(),
                message: format!(
                    "the chart defines no such template (upstream's keeps it in {})",
                    partial.file
                ),
            });
        }
        let text = self.templates.render(partial.name, values)?;
        container_from_text(part, &text).map_err(|error| match error {
            SidecarError::NotAContainer { message, .. } => SidecarError::NotAContainer {
                template: partial.name.to_owned(),
                message,
            },
            other => other,
        })
    }

    fn provides(&self, part: Part) -> bool {
        part != Part::NetworkValidator || self.templates.defines(NETWORK_VALIDATOR.name)
    }

    /// Upstream's chart has no values schema, and its values.yaml leaves some settings out
    /// (commented); a key counts as the chart's when its defaults have it or a template of
    /// the chart reads it by that path (`.Values.proxy.gid`).
    fn declares_value(&self, path: &str) -> Option<bool> {
        let keys: Vec<&str> = path.split('.').collect();
        let defaults = self.templates.chart().default_values_read().ok();
        Some(declared_in(defaults, None, &keys) || self.templates.any_template_mentions(path))
    }

    fn additions(&self, values: &Value) -> Result<Option<PodAdditions>, SidecarError> {
        let mut annotations = Map::new();
        if self.templates.defines(CREATED_BY.name) {
            for (key, value) in self.mapping(CREATED_BY, values)? {
                // Upstream's patch writes every annotation as a quoted string.
                let text = match value {
                    Value::String(text) => text,
                    Value::Int(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(SidecarError::BadAdditions {
                            template: CREATED_BY.name.to_owned(),
                            message: format!("{key} must be a string, not a {}", other.type_name()),
                        })
                    }
                };
                annotations.insert(key, text.into());
            }
        }
        let proxy_version = match text_at(values, &["proxy", "image", "version"]) {
            version if version.is_empty() => text_at(values, &["linkerdVersion"]),
            version => version,
        };
        annotations.insert("linkerd.io/proxy-version".into(), proxy_version.into());
        let anchors = text_at(values, &["identityTrustAnchorsPEM"]);
        annotations.insert(
            "linkerd.io/trust-root-sha256".into(),
            hex(&crate::digest::sha256(anchors.as_bytes())).into(),
        );
        let mut labels = Map::new();
        labels.insert(
            "linkerd.io/control-plane-ns".into(),
            self.namespace.as_str().into(),
        );
        let mut volumes = Vec::new();
        if !truthy(values, &["cniEnabled"]) {
            volumes.push(Value::Map(self.mapping(XTABLES_VOLUME, values)?));
        }
        volumes.push(Value::Map(self.mapping(IDENTITY_VOLUME, values)?));
        if self.tracing_switch.is_some_and(|key| truthy(values, &key)) {
            volumes.push(pod_labels_volume());
        }
        if truthy(values, &["identity", "serviceAccountTokenProjection"]) {
            volumes.push(Value::Map(self.mapping(TOKEN_VOLUME, values)?));
        }
        Ok(Some(PodAdditions {
            annotations,
            labels,
            volumes,
        }))
    }
}

/// The values key upstream's patch of `chart`'s release reads to add the pod-info volume: none
/// before proxy tracing came (edge-25.7.1, with the chart's podinfo partial, `has_podinfo`);
/// `proxy.tracing.enable` until chart 2025.11.1, `proxy.tracing.enabled` from there (the values
/// renamed it at edge-25.10.1, but the patch read the old name until edge-25.11.1).
fn tracing_switch(chart: &Chart, has_podinfo: bool) -> Option<[&'static str; 3]> {
    if !has_podinfo {
        return None;
    }
    let version = &chart.metadata.version;
    let version = [version.major, version.minor, version.patch];
    Some(if version >= [2025, 11, 1] {
        ["proxy", "tracing", "enabled"]
    } else {
        ["proxy", "tracing", "enable"]
    })
}

/// The pod's labels as a file, which a tracing proxy attaches to its spans (upstream's patch
/// writes this volume itself, with the labels only).
fn pod_labels_volume() -> Value {
    let item: Map = [
        (
            "fieldRef".to_owned(),
            Value::Map([("fieldPath".to_owned(), Value::from("metadata.labels"))].into()),
        ),
        ("path".to_owned(), Value::from("labels")),
    ]
    .into();
    let downward: Map = [("items".to_owned(), Value::Seq(vec![Value::Map(item)]))].into();
    Value::Map(
        [
            ("downwardAPI".to_owned(), Value::Map(downward)),
            ("name".to_owned(), Value::from("linkerd-podinfo")),
        ]
        .into(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
