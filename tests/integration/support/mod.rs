//! Shared by the integration tests: the edge-21.4.4 line's chart (most tests were written for
//! it), the values the reference renders were made with (the library's own value flags over the
//! chart's defaults), and rendering helpers; [`tree_diff`] and [`deviations`] serve the
//! reference comparisons, [`cli`] the tests that run the binary.

#![allow(dead_code)] // not every helper is used by the tests of every build

pub mod cli;
pub mod deviations;
pub mod inject_setup;
pub mod release_line;
pub mod tree_diff;
pub mod yaml_round_trip;

use camino::Utf8PathBuf;
use meshchart::chart::{Chart, ChartFile};
use meshchart::engine::{Engine, RenderError, RenderOptions};
use meshchart::manifest::{DocumentReader, Rendered};
use meshchart::values::ValueOverrides;
use meshchart::values::{effective_values, Map, Value};
use std::path::{Path, PathBuf};

// Fixed webhook material: the reference renders have random certificates there, which the
// comparison checks by shape only.
/// `proxyInjector.crtPEM` of the reference values.
pub const PROXY_INJECTOR_CRT: &str = "proxy injector crt";
/// `proxyInjector.keyPEM` of the reference values.
pub const PROXY_INJECTOR_KEY: &str = "proxy injector key";
/// `proxyInjector.caBundle` of the reference values.
pub const PROXY_INJECTOR_CA: &str = "proxy injector ca bundle";
/// `profileValidator.crtPEM` of the reference values.
pub const PROFILE_VALIDATOR_CRT: &str = "profile validator crt";
/// `profileValidator.keyPEM` of the reference values.
pub const PROFILE_VALIDATOR_KEY: &str = "profile validator key";
/// `profileValidator.caBundle` of the reference values.
pub const PROFILE_VALIDATOR_CA: &str = "profile validator ca bundle";
/// Fixed heartbeat schedule (the reference's is clock-based).
pub const HEARTBEAT_SCHEDULE: &str = "1 2 3 4 5";
/// The issuer expiry the reference renders were made with.
pub const ISSUER_EXPIRY: &str = "2030-01-01T00:00:00Z";

/// The repository root, which is also the chart's root.
pub fn repo_root() -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/reference`: the upstream renders and the certificates they used (copied from the
/// project's shared reference data; see `tests/reference/README.md`).
pub fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

/// A file of the reference folder, as text.
pub fn reference_file(name: &str) -> String {
    let path = reference_dir().join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read reference file {}: {e}", path.display()))
}

/// The default release line's control-plane chart, as the binary embeds it.
pub fn chart() -> Chart {
    meshchart::releases::embedded_line("edge-21.4.4", "linkerd-control-plane")
        .unwrap_or_else(|e| panic!("cannot read the chart: {e}"))
}

/// Sets `value` at a dotted path (`identity.issuer.crtExpiry`), creating maps on the way, as
/// `--set` does.
pub fn set(values: &mut Value, path: &str, value: impl Into<Value>) {
    let value = value.into();
    let mut current = values;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let map = match current {
            Value::Map(map) => map,
            other => {
                *other = Value::Map(Map::new());
                other.as_map_mut().expect("just made a map")
            }
        };
        if keys.peek().is_none() {
            map.insert(key.to_owned(), value);
            return;
        }
        current = map
            .entry(key.to_owned())
            .or_insert_with(|| Value::Map(Map::new()));
    }
}

/// The value flags of the reference renders: the `valid-*.pem` identity material
/// (`--set-file`), the issuer expiry, fixed webhook certificates and heartbeat schedule, and
/// upstream's `linkerdVersionValue` placeholder (its release tooling replaced it; our default is a
/// real release, edge-21.4.4).
pub fn reference_flags() -> ValueOverrides {
    let file = |key: &str, name: &str| format!("{key}={}", reference_dir().join(name).display());
    let text = |key: &str, value: &str| format!("{key}={value}");
    ValueOverrides {
        set_file: vec![
            file("identityTrustAnchorsPEM", "valid-trust-anchors.pem"),
            file("identity.issuer.tls.crtPEM", "valid-crt.pem"),
            file("identity.issuer.tls.keyPEM", "valid-key.pem"),
        ],
        set_string: vec![
            text("identity.issuer.crtExpiry", ISSUER_EXPIRY),
            text("proxyInjector.crtPEM", PROXY_INJECTOR_CRT),
            text("proxyInjector.keyPEM", PROXY_INJECTOR_KEY),
            text("proxyInjector.caBundle", PROXY_INJECTOR_CA),
            text("profileValidator.crtPEM", PROFILE_VALIDATOR_CRT),
            text("profileValidator.keyPEM", PROFILE_VALIDATOR_KEY),
            text("profileValidator.caBundle", PROFILE_VALIDATOR_CA),
            text("heartbeatSchedule", HEARTBEAT_SCHEDULE),
            text("linkerdVersion", "linkerdVersionValue"),
        ],
        ..ValueOverrides::default()
    }
}

/// The chart's defaults with `flags` applied, as `meshchart values` prints them.
pub fn values_with(flags: &ValueOverrides) -> Value {
    let defaults = chart()
        .default_values()
        .unwrap_or_else(|e| panic!("the chart's default values: {e}"));
    effective_values(&defaults, flags, &mut std::io::empty())
        .unwrap_or_else(|e| panic!("the values do not apply: {e}"))
        .0
}

/// The values of the reference renders: chart defaults and [`reference_flags`].
pub fn reference_values() -> Value {
    values_with(&reference_flags())
}

/// [`reference_values`] with `-f values/edge-21.4.4/linkerd-control-plane/values-ha.yaml`.
pub fn reference_values_ha() -> Value {
    let mut flags = reference_flags();
    flags.files.push(
        repo_root()
            .join("values/edge-21.4.4/linkerd-control-plane/values-ha.yaml")
            .to_string(),
    );
    values_with(&flags)
}

/// The Kubernetes version the edge-21.4.4 line's renders are for: the newest it runs on.
pub const LEGACY_KUBE_VERSION: &str = "1.24.0";

/// Release options at their defaults, for Kubernetes [`LEGACY_KUBE_VERSION`].
pub fn legacy_options() -> RenderOptions {
    RenderOptions {
        kube_version: meshchart::engine::KubeVersion::parse(LEGACY_KUBE_VERSION)
            .expect("a version"),
        ..RenderOptions::default()
    }
}

/// An engine's render as the chart's documents: each template's output read by a fresh
/// [`DocumentReader`] and the documents assembled in Helm's order, as `meshchart render` does.
pub trait RenderDocuments {
    /// Renders every template with `values`.
    fn render_documents(
        &self,
        values: &Value,
        opts: &RenderOptions,
    ) -> Result<Rendered, RenderError>;
}

impl RenderDocuments for Engine<'_> {
    fn render_documents(
        &self,
        values: &Value,
        opts: &RenderOptions,
    ) -> Result<Rendered, RenderError> {
        meshchart::manifest::render(self, values, opts, &DocumentReader::new())
    }
}

/// Renders `chart` with `values` (release options at their defaults, for Kubernetes
/// [`LEGACY_KUBE_VERSION`]: the chart takes its namespace from `Values.namespace`).
pub fn render_chart(chart: &Chart, values: &Value) -> Rendered {
    let engine = Engine::new(chart).unwrap_or_else(|e| panic!("the chart does not compile: {e}"));
    engine
        .render_documents(values, &legacy_options())
        .unwrap_or_else(|e| panic!("the chart does not render: {e}"))
}

/// Renders the repository's chart with `values`.
pub fn render(values: &Value) -> Rendered {
    render_chart(&chart(), values)
}

/// The rendered documents, parsed, with their kind, namespace and name.
pub fn parsed(rendered: &Rendered) -> Vec<(String, Value)> {
    rendered
        .documents
        .iter()
        .map(|doc| {
            let value = meshchart::yaml::parse_document(&doc.text)
                .unwrap_or_else(|e| panic!("{}: rendered YAML does not parse: {e}", doc.template));
            (format!("{}/{}", doc.kind, doc.name), value)
        })
        .collect()
}

/// The one rendered document `kind`/`name`, parsed.
pub fn find(rendered: &Rendered, kind: &str, name: &str) -> Value {
    let doc = rendered
        .documents
        .iter()
        .find(|d| d.kind == kind && d.name == name)
        .unwrap_or_else(|| panic!("no {kind}/{name} in the render"));
    meshchart::yaml::parse_document(&doc.text)
        .unwrap_or_else(|e| panic!("{kind}/{name}: rendered YAML does not parse: {e}"))
}

/// Path helper for assertions: `get(&doc, "spec.template.spec")`.
pub fn get<'a>(value: &'a Value, path: &str) -> &'a Value {
    let keys: Vec<&str> = path.split('.').collect();
    value
        .get_path(&keys)
        .unwrap_or_else(|| panic!("no {path} in {value:?}"))
}

/// A chart named `name` (version 0.1.0) made of `files`, each a path and its text.
pub fn chart_of(name: &str, files: &[(&str, &str)]) -> Chart {
    let mut all = vec![ChartFile {
        path: "Chart.yaml".into(),
        text: format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n").into(),
    }];
    all.extend(files.iter().map(|(path, text)| ChartFile {
        path: (*path).into(),
        text: (*text).into(),
    }));
    Chart::from_files("test", all).expect("chart")
}
