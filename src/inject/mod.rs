//! `meshchart inject` and `uninject`: add the mesh's proxy to workloads, or take it out, the way
//! `linkerd inject --manual` / `linkerd uninject` do, but offline and with the chart's partials.
//!
//! The pipeline, one input stream after another and one document at a time:
//! 1. [`input`] reads files, folders and stdin and splits each stream into documents that keep
//!    their exact text;
//! 2. for each workload ([`workload`]: Pod, Deployment, ReplicaSet, ReplicationController,
//!    StatefulSet, DaemonSet, Job, CronJob; `List` items in place), the pod template is first
//!    uninjected ([`uninject`]), so re-injection starts from scratch;
//! 3. [`config`] resolves the pod's configuration from the base values and the namespace's,
//!    workload's and pod template's annotations, and decides whether to skip it;
//! 4. [`sidecar`] renders the containers with the chart's partials and [`mutate`] puts them in;
//! 5. a document that ends up equal to its input is written back byte for byte; a changed one is
//!    written in go-yaml's style (or as JSON when every input is JSON).
//!
//! Output is all or nothing: it is collected in memory and only returned when every document
//! went through, so a failure never leaves half a stream on stdout. The [`report`] has one entry
//! per resource.

pub mod command;
pub mod config;
pub mod control_plane;
pub mod error;
pub mod input;
pub mod mutate;
pub mod owned;
pub mod parse;
pub mod quantity;
pub mod report;
pub mod sidecar;
pub mod uninject;
pub mod workload;

pub use config::{InjectMode, PodConfig};
pub use error::{InjectError, Origin, WorkloadRef};
pub use input::{read_sources, Source};
pub use report::{Entry, Outcome, Report, ReportFormat, SkipReason, Warning};
pub use sidecar::{ChartSidecars, Part, SidecarSource};

use config::{inject_mode, resolve, Layers, PodFacts};
use input::{leading_comments, parse_yaml_chunk, split_json, split_yaml};
use mutate::{inject_template, Owner, Sidecar};
use std::collections::BTreeMap;
use uninject::uninject_template;
use workload::{
    meta_map, pod_template_mut, set_path, spec_list, str_at, text_at, truthy, workload_kind,
    WorkloadKind,
};

use crate::values::{Map, Value};

/// Mount path of the service account token, which the sidecars mount too when the app does.
const SA_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Container names and image prefixes of sidecars that rule injection out: another mesh's, or a
/// Linkerd proxy under a name we would not remove.
const FOREIGN_SIDECAR_NAMES: &[&str] = &["istio-proxy", "istio-init", "istio-validation"];
const FOREIGN_SIDECAR_IMAGES: &[&str] = &[
    "cr.l5d.io/linkerd/proxy:",
    "cr.l5d.io/linkerd/proxy-init:",
    "gcr.io/istio-release/proxyv2:",
    "gcr.io/istio-release/proxy_init:",
    "docker.io/istio/proxyv2:",
    "istio/proxyv2:",
];

/// The output stream and the report of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transformed {
    /// What goes to stdout: YAML, or JSON when every input was JSON.
    pub output: String,
    /// What goes to stderr.
    pub report: Report,
}

/// The annotations of the namespaces workloads live in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Namespaces {
    /// From `--namespace-annotations`.
    file: BTreeMap<String, Map>,
    /// From `Namespace` documents in the input (they win over the file).
    input: BTreeMap<String, Map>,
}

impl Namespaces {
    /// Reads `--namespace-annotations`: one or more `Namespace` manifests (YAML or JSON).
    pub fn from_file(source: &Source) -> Result<Namespaces, InjectError> {
        let mut file = BTreeMap::new();
        collect_namespaces(source, &mut file)?;
        if file.is_empty() {
            return Err(InjectError::NamespaceFile {
                path: source.name.clone(),
                message: "holds no Namespace (kind: Namespace, with metadata.name)".into(),
            });
        }
        Ok(Namespaces {
            file,
            input: BTreeMap::new(),
        })
    }

    /// Adds the `Namespace` documents found in the inputs.
    pub fn scan_inputs(&mut self, sources: &[Source]) -> Result<(), InjectError> {
        for source in sources {
            if source.text.contains("Namespace") {
                collect_namespaces(source, &mut self.input)?;
            }
        }
        Ok(())
    }

    /// The namespace a workload in `namespace` lives in, with its annotations. A workload that
    /// names no namespace gets the `--namespace-annotations` one, when that file holds exactly
    /// one: the user said where these workloads go.
    fn lookup(&self, namespace: &str) -> Option<(String, Map)> {
        let name = if namespace.is_empty() {
            match self.file.keys().collect::<Vec<_>>().as_slice() {
                [only] => (*only).clone(),
                _ => return None,
            }
        } else {
            namespace.to_owned()
        };
        let mut annotations = self.file.get(&name).cloned();
        if let Some(from_input) = self.input.get(&name) {
            annotations
                .get_or_insert_with(Map::new)
                .extend(from_input.clone());
        }
        annotations.map(|a| (name, a))
    }
}

/// The documents of `source` that may concern `word`: every JSON value, and the YAML documents
/// whose text mentions it (the others are not parsed here; the main pass reads them).
fn documents_mentioning(source: &Source, word: &str) -> Result<Vec<Value>, InjectError> {
    let mut docs = Vec::new();
    if source.is_json() {
        docs.extend(
            split_json(&source.name, &source.text)?
                .into_iter()
                .map(|(_, v)| v),
        );
    } else {
        for chunk in split_yaml(&source.text) {
            if chunk.body.contains(word) {
                docs.extend(parse_yaml_chunk(&source.name, &chunk)?);
            }
        }
    }
    Ok(docs)
}

fn collect_namespaces(source: &Source, out: &mut BTreeMap<String, Map>) -> Result<(), InjectError> {
    let docs = documents_mentioning(source, "Namespace")?;
    fn visit(doc: &Value, out: &mut BTreeMap<String, Map>) {
        let Some(map) = doc.as_map() else { return };
        let kind = str_at(map, &["kind"]);
        if kind == "List" {
            if let Some(Value::Seq(items)) = map.get("items") {
                items.iter().for_each(|i| visit(i, out));
            }
        } else if kind.eq_ignore_ascii_case("Namespace") {
            let name = str_at(map, &["metadata", "name"]);
            if !name.is_empty() {
                let annotations = meta_map(map, "annotations").cloned().unwrap_or_default();
                out.entry(name.to_owned()).or_default().extend(annotations);
            }
        }
    }
    docs.iter().for_each(|d| visit(d, out));
    Ok(())
}

/// What inject needs besides the inputs.
pub struct InjectOptions<'a> {
    /// Chart defaults merged with the user's `-f`/`--set` values.
    pub values: Value,
    /// Namespace annotations (from `--namespace-annotations`; input `Namespace`s are added).
    pub namespaces: Namespaces,
    /// Renders the sidecar containers.
    pub sidecars: &'a dyn SidecarSource,
}

/// Injects every workload of `sources`.
pub fn inject(sources: &[Source], options: &InjectOptions<'_>) -> Result<Transformed, InjectError> {
    let mut namespaces = options.namespaces.clone();
    namespaces.scan_inputs(sources)?;
    let transform = Injector {
        values: &options.values,
        namespaces: &namespaces,
        sidecars: options.sidecars,
    };
    run(sources, &transform)
}

/// Removes the mesh from every workload of `sources`.
pub fn uninject(sources: &[Source]) -> Result<Transformed, InjectError> {
    run(sources, &Uninjector)
}

/// What happens to one resource (a map with a `kind`).
trait Transform {
    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError>;
}

struct Injector<'a> {
    values: &'a Value,
    namespaces: &'a Namespaces,
    sidecars: &'a dyn SidecarSource,
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
        let facts = PodFacts {
            named_ports: named_ports(template),
        };
        let config = resolve(self.values, &layers, &facts, at)?;
        let identity = !truthy(&config.values, &["proxy", "disableIdentity"]);
        if identity && workload::is_false(spec, "automountServiceAccountToken") {
            return skip(SkipReason::AutomountDisabled);
        }
        if identity
            && text_at(&config.values, &["identityTrustAnchorsPEM"])
                .trim()
                .is_empty()
        {
            return Err(InjectError::NoTrustAnchors {
                workload: Box::new(at.clone()),
            });
        }
        let values = pod_values(config.values, template, kind);
        let render = |part: Part| {
            self.sidecars
                .render(part, &values)
                .map_err(|source| InjectError::Render {
                    workload: Box::new(at.clone()),
                    container: part.container_name(),
                    source: Box::new(source),
                })
        };
        let sidecar = Sidecar {
            proxy: render(Part::Proxy)?,
            init: if truthy(&values, &["cniEnabled"]) {
                None
            } else {
                Some(render(Part::Init)?)
            },
            debug: if config.debug {
                Some(render(Part::Debug)?)
            } else {
                None
            },
        };
        let mut warnings = config.warnings;
        if uses_udp(template) {
            warnings.push(Warning::Udp);
        }
        if truthy(&values, &["proxy", "nativeSidecar"])
            && truthy(&values, &["proxy", "waitBeforeExitSeconds"])
        {
            warnings.push(Warning::WaitBeforeExitIgnored);
        }
        let hook =
            truthy(&values, &["proxy", "await"]) && !truthy(&values, &["proxy", "nativeSidecar"]);
        warnings.extend(
            crate::proxy_support::unsupported_features(&values, hook)
                .into_iter()
                .map(Warning::ProxyLacks),
        );
        let owner = Owner {
            kind,
            name: &at.name,
            namespace: &at.namespace,
        };
        inject_template(template, owner, &values, sidecar);
        Ok(Outcome::Injected {
            already,
            changed: true,
            warnings,
        })
    }
}

struct Uninjector;

impl Transform for Uninjector {
    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError> {
        let Some(kind) = workload_kind(&at.kind) else {
            return Ok(Outcome::Skipped(SkipReason::Unsupported));
        };
        check_shape(doc, kind, at)?;
        let selector = selector_labels(doc, kind);
        let Some(template) = pod_template_mut(doc, kind) else {
            return Ok(Outcome::Skipped(SkipReason::NoPodTemplate));
        };
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

/// The values the sidecar partials render with: the pod's configuration plus what the pod's
/// first app container dictates (capabilities and the service account mount, which the sidecars
/// copy), and the workload kind.
fn pod_values(mut values: Value, template: &Map, kind: &WorkloadKind) -> Value {
    set_path(
        &mut values,
        &["proxy", "workloadKind"],
        Value::from(kind.kind.to_lowercase()),
    );
    let Some(first) = spec_list(template, "containers")
        .first()
        .and_then(Value::as_map)
    else {
        return values;
    };
    if let Some(caps) = first
        .get("securityContext")
        .and_then(Value::as_map)
        .and_then(|s| s.get("capabilities"))
        .and_then(Value::as_map)
    {
        let mut init_caps = Map::new();
        for key in ["add", "drop"] {
            if let Some(list) = caps.get(key) {
                init_caps.insert(key.into(), list.clone());
            }
        }
        set_path(
            &mut values,
            &["proxy", "capabilities"],
            Value::Map(init_caps.clone()),
        );
        set_path(
            &mut values,
            &["proxyInit", "capabilities"],
            Value::Map(init_caps),
        );
    }
    if let Some(Value::Seq(mounts)) = first.get("volumeMounts") {
        if let Some(mount) = mounts
            .iter()
            .filter_map(Value::as_map)
            .find(|m| str_at(m, &["mountPath"]) == SA_MOUNT_PATH)
        {
            let mut sa = Map::new();
            sa.insert("mountPath".into(), SA_MOUNT_PATH.into());
            sa.insert("name".into(), str_at(mount, &["name"]).into());
            sa.insert(
                "readOnly".into(),
                Value::Bool(workload::is_true(Some(mount), "readOnly")),
            );
            set_path(
                &mut values,
                &["proxy", "saMountPath"],
                Value::Map(sa.clone()),
            );
            set_path(&mut values, &["proxyInit", "saMountPath"], Value::Map(sa));
        }
    }
    values
}

/// The labels a workload's selector matches its pods on (`spec.selector.matchLabels`, or a
/// ReplicationController's `spec.selector`).
fn selector_labels(doc: &Value, kind: &WorkloadKind) -> Map {
    let path: &[&str] = match kind.kind {
        "Pod" | "CronJob" => return Map::new(),
        "ReplicationController" => &["spec", "selector"],
        _ => &["spec", "selector", "matchLabels"],
    };
    doc.get_path(path)
        .and_then(Value::as_map)
        .cloned()
        .unwrap_or_default()
}

/// A container that shows the pod is meshed by someone else already.
fn foreign_sidecar(template: &Map) -> Option<String> {
    spec_list(template, "containers")
        .iter()
        .chain(spec_list(template, "initContainers"))
        .filter_map(Value::as_map)
        .find(|c| {
            let name = str_at(c, &["name"]);
            let image = str_at(c, &["image"]);
            FOREIGN_SIDECAR_NAMES.contains(&name)
                || FOREIGN_SIDECAR_IMAGES.iter().any(|p| image.starts_with(p))
        })
        .map(|c| str_at(c, &["name"]).to_owned())
}

/// Named ports of the app containers (for `opaque-ports` names).
fn named_ports(template: &Map) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for container in spec_list(template, "containers") {
        let Some(Value::Seq(ports)) = container.as_map().and_then(|c| c.get("ports")) else {
            continue;
        };
        for port in ports.iter().filter_map(Value::as_map) {
            if let (Some(Value::String(name)), Some(Value::Int(number))) =
                (port.get("name"), port.get("containerPort"))
            {
                out.push((name.clone(), *number));
            }
        }
    }
    out
}

fn uses_udp(template: &Map) -> bool {
    spec_list(template, "containers").iter().any(|c| {
        matches!(c.as_map().and_then(|c| c.get("ports")), Some(Value::Seq(ports))
            if ports.iter().filter_map(Value::as_map).any(|p| str_at(p, &["protocol"]) == "UDP"))
    })
}

/// Runs `transform` over every document of `sources`.
fn run(sources: &[Source], transform: &dyn Transform) -> Result<Transformed, InjectError> {
    let json_output = !sources.is_empty() && sources.iter().all(Source::is_json);
    let mut driver = Driver {
        transform,
        entries: Vec::new(),
        json_output,
    };
    let mut output = String::new();
    for source in sources {
        let text = if source.is_json() {
            driver.json_source(source)?
        } else {
            driver.yaml_source(source)?
        };
        append_stream(&mut output, &text, json_output);
    }
    Ok(Transformed {
        output,
        report: Report {
            entries: driver.entries,
        },
    })
}

/// Appends one input's output, keeping documents of different inputs apart.
fn append_stream(out: &mut String, text: &str, json: bool) {
    if text.is_empty() {
        return;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    let starts_with_separator = text
        .lines()
        .next()
        .is_some_and(|l| l.starts_with("---") && l[3..].trim().is_empty());
    if !json && !out.is_empty() && !starts_with_separator {
        out.push_str("---\n");
    }
    out.push_str(text);
}

struct Driver<'a> {
    transform: &'a dyn Transform,
    entries: Vec<Entry>,
    json_output: bool,
}

impl Driver<'_> {
    fn yaml_source(&mut self, source: &Source) -> Result<String, InjectError> {
        let mut out = String::with_capacity(source.text.len() + 1024);
        for chunk in split_yaml(&source.text) {
            out.push_str(chunk.separator);
            if chunk.body.is_empty() {
                continue;
            }
            let docs = parse_yaml_chunk(&source.name, &chunk)?;
            if docs.is_empty() {
                // A blank document between separators, reported as upstream does.
                if !chunk.separator.is_empty() {
                    self.missing_kind(&source.name, chunk.line);
                }
                out.push_str(chunk.body);
                continue;
            }
            let mut changed = false;
            let mut results = Vec::with_capacity(docs.len());
            for doc in docs {
                let (doc, doc_changed) = self.document(doc, &source.name, chunk.line)?;
                changed |= doc_changed;
                results.push(doc);
            }
            if !changed {
                out.push_str(chunk.body);
                continue;
            }
            if chunk.separator.is_empty() && chunk.body.starts_with("---") {
                out.push_str("---\n"); // the body started the document on its `---` line
            }
            out.push_str(leading_comments(chunk.body));
            for (i, doc) in results.iter().enumerate() {
                if i > 0 {
                    out.push_str("---\n");
                }
                out.push_str(&emit_yaml(
                    doc,
                    &self.subject(doc, &source.name, chunk.line),
                )?);
            }
        }
        Ok(out)
    }

    fn json_source(&mut self, source: &Source) -> Result<String, InjectError> {
        let mut out = String::with_capacity(source.text.len() + 1024);
        for (chunk, value) in split_json(&source.name, &source.text)? {
            if chunk.body.is_empty() {
                if self.json_output {
                    out.push_str(chunk.separator);
                }
                continue;
            }
            let (doc, changed) = self.document(value, &source.name, chunk.line)?;
            let subject = || self.subject(&doc, &source.name, chunk.line);
            if self.json_output {
                out.push_str(chunk.separator);
                if changed {
                    out.push_str(&emit_json(&doc, &subject())?);
                } else {
                    out.push_str(chunk.body);
                }
            } else {
                // Mixed inputs: the whole stream is YAML.
                if !out.is_empty() {
                    out.push_str("---\n");
                }
                out.push_str(&emit_yaml(&doc, &subject())?);
            }
        }
        if self.json_output && !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        Ok(out)
    }

    fn subject(&self, doc: &Value, source: &str, line: usize) -> WorkloadRef {
        let map = doc.as_map();
        let field = |path: &[&str]| map.map(|m| str_at(m, path).to_owned()).unwrap_or_default();
        let mut name = field(&["metadata", "name"]);
        if name.is_empty() {
            name = field(&["metadata", "generateName"]);
        }
        WorkloadRef {
            source: source.to_owned(),
            line,
            kind: field(&["kind"]),
            name,
            namespace: field(&["metadata", "namespace"]),
        }
    }

    fn missing_kind(&mut self, source: &str, line: usize) {
        self.entries.push(Entry {
            source: source.to_owned(),
            line,
            kind: String::new(),
            name: String::new(),
            namespace: String::new(),
            outcome: Outcome::Skipped(SkipReason::MissingKind),
        });
    }

    /// Transforms one document (a resource, a `List` of them, or anything else).
    fn document(
        &mut self,
        mut doc: Value,
        source: &str,
        line: usize,
    ) -> Result<(Value, bool), InjectError> {
        let at = self.subject(&doc, source, line);
        if at.kind.is_empty() {
            self.missing_kind(source, line);
            return Ok((doc, false));
        }
        if at.kind == "List" {
            if let Some(Value::Seq(items)) = doc.as_map_mut().and_then(|m| m.get_mut("items")) {
                let mut changed = false;
                for item in items.iter_mut() {
                    let (new, item_changed) = self.document(std::mem::take(item), source, line)?;
                    *item = new;
                    changed |= item_changed;
                }
                return Ok((doc, changed));
            }
        }
        let before = doc.clone();
        let mut outcome = self.transform.resource(&mut doc, &at)?;
        let changed = doc != before;
        if let Outcome::Injected { changed: c, .. } = &mut outcome {
            *c = changed;
        }
        self.entries.push(Entry {
            source: at.source,
            line: at.line,
            kind: at.kind,
            name: at.name,
            namespace: at.namespace,
            outcome,
        });
        Ok((doc, changed))
    }
}

fn emit_yaml(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_yaml(doc)
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| InjectError::Emit {
            workload: Box::new(subject.clone()),
            message: e.to_string(),
        })
}

fn emit_json(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_pretty_json(doc).map_err(|e| InjectError::Emit {
        workload: Box::new(subject.clone()),
        message: e.to_string(),
    })
}
