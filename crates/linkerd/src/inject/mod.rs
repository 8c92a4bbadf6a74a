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
//! 4. [`sidecar`] renders the containers with the chart's partials (and, from a chart that
//!    declares them, the pod's other additions: annotations, labels, volumes) and [`mutate`]
//!    puts them in;
//! 5. a document that ends up equal to its input is written back byte for byte; a changed one is
//!    written in go-yaml's style (or as JSON when every input is JSON).
//!
//! Memory does not grow with the stream: inputs are read one document at a time (each input
//! twice: first for its `Namespace` documents, which lend their annotations to workloads before
//! and after them, then to transform it; stdin is copied to a temporary file for that), each
//! document is written out as soon as it is finished (documents are transformed in batches of
//! [`DOCUMENTS_PER_BATCH`] on all cores, written in input order), and workloads with the same effective
//! configuration share one resolved configuration and one rendering of the sidecar containers.
//! The command holds the output back (in a temporary file) until every document went through,
//! so a failure never leaves half a stream on stdout. The [`report`] has one entry per resource,
//! which the command also keeps in a temporary file ([`SpooledReport`]). The input cap applies
//! to each document, not to the stream; a `List` past [`input::STREAMED_LIST_BYTES`] is read and
//! transformed item by item (`kubectl get -A -o yaml` prints everything as one `List`).

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
pub use input::{open_inputs, read_sources, Source, Stream};
pub use report::{
    Entry, Outcome, Report, ReportFormat, ReportSink, SkipReason, SpooledReport, Summary, Warning,
};
pub use sidecar::{ChartSidecars, Part, SidecarSource};

use config::{inject_mode, resolve_for_chart, Layers, PodFacts};
use input::{leading_comments, parse_yaml_chunk, split_json};
use input::{Chunk, ChunkPart, OwnedChunk};
use mutate::{inject_template, Owner, Sidecar};
use owned::foreign_container_with_owned_name;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::{mpsc, Arc, Mutex, PoisonError};
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

/// The annotations of the namespaces workloads live in, and the Services of the input that
/// select them where that matters to a release (see [`NotReadyService`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Namespaces {
    /// From `--namespace-annotations`.
    file: BTreeMap<String, Map>,
    /// From `Namespace` documents in the input (they win over the file).
    input: BTreeMap<String, Map>,
    /// Headless Services of the input that publish unready addresses.
    not_ready_services: Vec<NotReadyService>,
}

pub use crate::proxy_support::NotReadyService;

impl Namespaces {
    /// Reads `--namespace-annotations`: one or more `Namespace` manifests (YAML or JSON).
    pub fn from_file(source: &Source) -> Result<Namespaces, InjectError> {
        let mut file = BTreeMap::new();
        let docs = documents_mentioning(&Stream::from(source.clone()), &["Namespace"])?;
        collect_namespaces(&docs, &mut file);
        if file.is_empty() {
            return Err(InjectError::NamespaceFile {
                path: source.name.clone(),
                message: "holds no Namespace (kind: Namespace, with metadata.name)".into(),
            });
        }
        Ok(Namespaces {
            file,
            ..Namespaces::default()
        })
    }

    /// Adds the `Namespace` documents found in the inputs (a first pass over each input, one
    /// document at a time; only documents that mention `Namespace` are parsed).
    pub fn scan_inputs(&mut self, inputs: &[Stream]) -> Result<(), InjectError> {
        for input in inputs {
            // One pass serves both: documents that mention either word are parsed once.
            let docs = documents_mentioning(input, &["Namespace", "publishNotReadyAddresses"])?;
            collect_namespaces(&docs, &mut self.input);
            collect_not_ready_services(&docs, &mut self.not_ready_services);
        }
        Ok(())
    }

    /// The headless Service that publishes unready addresses and selects the pods of a
    /// workload in `namespace` with template labels `labels`, if one does.
    fn not_ready_service(&self, namespace: &str, labels: Option<&Map>) -> Option<&NotReadyService> {
        self.not_ready_services
            .iter()
            .find(|service| service.selects(namespace, labels))
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

/// The documents of `input` that may concern one of `words`: every JSON value, and the YAML
/// documents whose text mentions one (the others are not parsed here; the main pass reads them).
/// YAML is read one document at a time, and not at all when its bytes mention none of `words`.
fn documents_mentioning(input: &Stream, words: &[&str]) -> Result<Vec<Value>, InjectError> {
    let mut docs = Vec::new();
    if input.is_json()? {
        let text = input.text()?;
        docs.extend(split_json(&input.name, &text)?.into_iter().map(|(_, v)| v));
        return Ok(docs);
    }
    if !input.mentions(words)?.contains(&true) {
        return Ok(docs);
    }
    for chunk in input.yaml_chunks()? {
        let chunk = chunk?;
        if !words.iter().any(|word| chunk.body.contains(word)) {
            continue;
        }
        match chunk.part {
            ChunkPart::Whole => docs.extend(parse_yaml_chunk(&input.name, &chunk.as_chunk())?),
            ChunkPart::ListItem => docs.extend(list_items(&input.name, &chunk)?),
            // A large list's own keys: its items come as chunks of their own.
            ChunkPart::ListHead | ChunkPart::ListTail => {}
        }
    }
    Ok(docs)
}

fn collect_namespaces(docs: &[Value], out: &mut BTreeMap<String, Map>) {
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
}

fn collect_not_ready_services(docs: &[Value], out: &mut Vec<NotReadyService>) {
    fn visit(doc: &Value, out: &mut Vec<NotReadyService>) {
        let Some(map) = doc.as_map() else { return };
        let kind = str_at(map, &["kind"]);
        if kind == "List" {
            if let Some(Value::Seq(items)) = map.get("items") {
                items.iter().for_each(|i| visit(i, out));
            }
            return;
        }
        out.extend(NotReadyService::from_document(map));
    }
    docs.iter().for_each(|d| visit(d, out));
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

/// Injects every workload of `sources` (text in memory) and returns the whole output.
pub fn inject(sources: &[Source], options: &InjectOptions<'_>) -> Result<Transformed, InjectError> {
    in_memory(sources, |inputs, out| inject_stream(inputs, options, out))
}

/// Removes the mesh from every workload of `sources` (text in memory).
pub fn uninject(sources: &[Source]) -> Result<Transformed, InjectError> {
    in_memory(sources, uninject_stream)
}

fn in_memory(
    sources: &[Source],
    run: impl FnOnce(&[Stream], &mut dyn Write) -> Result<Report, InjectError>,
) -> Result<Transformed, InjectError> {
    let inputs: Vec<Stream> = sources.iter().cloned().map(Stream::from).collect();
    let mut output = Vec::new();
    let report = run(&inputs, &mut output)?;
    Ok(Transformed {
        output: String::from_utf8(output).map_err(|e| InjectError::Write {
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?,
        report,
    })
}

/// Injects every workload of `inputs`, writing each document to `out` as soon as it is done.
/// On an error, `out` holds a partial stream: the caller holds it back (see
/// [`command::run_inject`]).
pub fn inject_stream(
    inputs: &[Stream],
    options: &InjectOptions<'_>,
    out: &mut dyn Write,
) -> Result<Report, InjectError> {
    let mut entries = Vec::new();
    inject_stream_reporting(inputs, options, OutputFormat::Auto, out, &mut entries)?;
    Ok(Report { entries })
}

/// How the injected stream is written (`inject -o`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// YAML, or JSON when every input is JSON; documents nothing changed are written back
    /// byte for byte.
    #[default]
    Auto,
    /// YAML, whatever the inputs (`-o yaml`).
    Yaml,
    /// One compact JSON document per line for each input document, whatever the inputs, as
    /// `linkerd inject -o json` writes them (`-o json`); comments and separators are dropped.
    Json,
}

/// As [`inject_stream`], written in `format`, each report entry handed to `report` as soon as
/// its document is written (a [`SpooledReport`] keeps memory flat however long the stream).
pub fn inject_stream_reporting(
    inputs: &[Stream],
    options: &InjectOptions<'_>,
    format: OutputFormat,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    let mut namespaces = options.namespaces.clone();
    namespaces.scan_inputs(inputs)?;
    let transform = Injector {
        values: &options.values,
        namespaces: &namespaces,
        sidecars: options.sidecars,
        configs: Mutex::new(HashMap::new()),
    };
    run(inputs, &transform, format, out, report)
}

/// Removes the mesh from every workload of `inputs`, writing each document to `out` as soon as
/// it is done.
pub fn uninject_stream(inputs: &[Stream], out: &mut dyn Write) -> Result<Report, InjectError> {
    let mut entries = Vec::new();
    run(inputs, &Uninjector, OutputFormat::Auto, out, &mut entries)?;
    Ok(Report { entries })
}

/// As [`uninject_stream`], each report entry handed to `report` as it is made.
pub fn uninject_stream_reporting(
    inputs: &[Stream],
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    run(inputs, &Uninjector, OutputFormat::Auto, out, report)
}

/// What happens to one resource (a map with a `kind`); documents are transformed in parallel.
trait Transform: Sync {
    fn resource(&self, doc: &mut Value, at: &WorkloadRef) -> Result<Outcome, InjectError>;

    /// Whether the outcome alone says if the document changed (uninject: it changes exactly
    /// when something was removed), so no copy is needed to compare.
    fn outcome_tells_change(&self) -> bool {
        false
    }
}

struct Injector<'a> {
    values: &'a Value,
    namespaces: &'a Namespaces,
    sidecars: &'a dyn SidecarSource,
    /// Resolved configurations by [`config_key`]: a repository's workloads share a handful.
    configs: Mutex<HashMap<String, Arc<ResolvedPod>>>,
}

/// Most distinct configurations kept at once (each holds a values tree); past it the cache
/// starts over, so memory stays bounded whatever the stream.
const MAX_CACHED_CONFIGS: usize = 64;

/// A pod configuration resolved once for every workload that has it: the values its sidecars
/// render with, and the sidecars, rendered on first use.
struct ResolvedPod {
    values: Value,
    debug: bool,
    /// What resolving the annotations had to say (the same for every workload with the key).
    warnings: Vec<Warning>,
    sidecar: Mutex<Option<Sidecar>>,
}

/// Everything the pod's values are made of besides the base values: the three layers'
/// annotations, the pod facts, the workload kind and what the first app container dictates.
/// Equal keys give equal configurations ([`resolve`] and [`pod_values`] read nothing else;
/// the workload's name only appears in their error messages).
fn config_key(layers: &Layers<'_>, facts: &PodFacts, extras: &PodExtras, kind: &str) -> String {
    let layer = |m: Option<&Map>| m.cloned().map_or(Value::Null, Value::Map);
    let ports = facts
        .named_ports
        .iter()
        .map(|(name, port)| Value::Seq(vec![name.as_str().into(), Value::Int(*port)]))
        .collect();
    let key: Map = [
        ("namespace", layer(layers.namespace.map(|(_, a)| a))),
        ("workload", layer(layers.workload)),
        ("pod", layer(layers.pod)),
        ("ports", Value::Seq(ports)),
        ("kind", kind.into()),
        ("capabilities", layer(extras.capabilities.as_ref())),
        ("saMount", layer(extras.sa_mount.as_ref())),
        ("inboundPorts", extras.inbound_ports.as_str().into()),
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
        let key = config_key(layers, facts, extras, kind.kind);
        // Held while resolving, so a configuration is resolved once even when two threads meet
        // it at the same time (a miss is rare; a hit holds the lock only to clone an Arc).
        let mut configs = self.configs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = configs.get(&key) {
            return Ok(found.clone());
        }
        let config = resolve_for_chart(self.values, layers, facts, at, &|path| {
            self.sidecars.declares_value(path)
        })?;
        let resolved = Arc::new(ResolvedPod {
            values: pod_values(config.values, extras, kind),
            debug: config.debug,
            warnings: config.warnings,
            sidecar: Mutex::new(None),
        });
        if configs.len() >= MAX_CACHED_CONFIGS {
            configs.clear();
        }
        configs.insert(key, resolved.clone());
        Ok(resolved)
    }

    /// The sidecar containers of `pod`, rendered the first time a workload needs them.
    fn sidecar(&self, pod: &ResolvedPod, at: &WorkloadRef) -> Result<Sidecar, InjectError> {
        let mut rendered = pod.sidecar.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sidecar) = &*rendered {
            return Ok(sidecar.clone());
        }
        let values = &pod.values;
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
        Ok(rendered.insert(sidecar).clone())
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
        let facts = PodFacts {
            named_ports: named_ports(template),
        };
        let pod = self.resolved(&layers, &facts, &pod_extras(template), kind, at)?;
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
        let sidecar = self.sidecar(&pod, at)?;
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

struct Uninjector;

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

/// What the pod's first app container dictates to the sidecars: its capabilities (`add` and
/// `drop`) and its service account token mount, which the sidecars copy.
#[derive(Clone, Debug, Default)]
struct PodExtras {
    capabilities: Option<Map>,
    sa_mount: Option<Map>,
    /// The ports the app containers listen on, for the proxy's `LINKERD2_PROXY_INBOUND_PORTS`.
    inbound_ports: String,
}

fn pod_extras(template: &Map) -> PodExtras {
    let inbound_ports = inbound_ports(template);
    let Some(first) = spec_list(template, "containers")
        .first()
        .and_then(Value::as_map)
    else {
        return PodExtras {
            inbound_ports,
            ..PodExtras::default()
        };
    };
    let capabilities = first
        .get("securityContext")
        .and_then(Value::as_map)
        .and_then(|s| s.get("capabilities"))
        .and_then(Value::as_map)
        .map(|caps| {
            ["add", "drop"]
                .into_iter()
                .filter_map(|key| caps.get(key).map(|list| (key.to_owned(), list.clone())))
                .collect()
        });
    let sa_mount = match first.get("volumeMounts") {
        Some(Value::Seq(mounts)) => mounts
            .iter()
            .filter_map(Value::as_map)
            .find(|m| str_at(m, &["mountPath"]) == SA_MOUNT_PATH)
            .map(|mount| {
                let mut sa = Map::new();
                sa.insert("mountPath".into(), SA_MOUNT_PATH.into());
                sa.insert("name".into(), str_at(mount, &["name"]).into());
                sa.insert(
                    "readOnly".into(),
                    Value::Bool(workload::is_true(Some(mount), "readOnly")),
                );
                sa
            }),
        _ => None,
    };
    PodExtras {
        capabilities,
        sa_mount,
        inbound_ports,
    }
}

/// The ports the pod's app containers declare, and those their liveness and readiness probes
/// reach by number (`httpGet`), comma-separated in text order ("10000" before "80"), as
/// upstream's injector lists them for `proxy.podInboundPorts`.
fn inbound_ports(template: &Map) -> String {
    let mut ports = std::collections::BTreeSet::new();
    for container in spec_list(template, "containers")
        .iter()
        .filter_map(Value::as_map)
    {
        if let Some(Value::Seq(declared)) = container.get("ports") {
            for port in declared.iter().filter_map(Value::as_map) {
                if let Some(Value::Int(number)) = port.get("containerPort") {
                    ports.insert(number.to_string());
                }
            }
        }
        for probe in ["readinessProbe", "livenessProbe"] {
            if let Some(Value::Int(number)) = container
                .get(probe)
                .and_then(|p| p.get_path(&["httpGet", "port"]))
            {
                ports.insert(number.to_string());
            }
        }
    }
    ports.into_iter().collect::<Vec<_>>().join(",")
}

/// The values the sidecar partials render with: the pod's configuration plus the pod's
/// [`PodExtras`] and the workload kind.
fn pod_values(mut values: Value, extras: &PodExtras, kind: &WorkloadKind) -> Value {
    set_path(
        &mut values,
        &["proxy", "workloadKind"],
        Value::from(kind.kind.to_lowercase()),
    );
    // Read by the release lines' proxy partials (the 2021 one has no such setting).
    set_path(
        &mut values,
        &["proxy", "podInboundPorts"],
        Value::from(extras.inbound_ports.as_str()),
    );
    // Both sidecars copy what the first app container dictates.
    for (key, map) in [
        ("capabilities", &extras.capabilities),
        ("saMountPath", &extras.sa_mount),
    ] {
        if let Some(map) = map {
            for sidecar in ["proxy", "proxyInit"] {
                set_path(&mut values, &[sidecar, key], Value::Map(map.clone()));
            }
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

/// Runs `transform` over every document of `inputs`, writing to `out` as it goes.
fn run(
    inputs: &[Stream],
    transform: &dyn Transform,
    format: OutputFormat,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    let json_inputs = inputs
        .iter()
        .map(Stream::is_json)
        .collect::<Result<Vec<bool>, _>>()?;
    let json_output = match format {
        OutputFormat::Auto => !inputs.is_empty() && json_inputs.iter().all(|json| *json),
        OutputFormat::Yaml => false,
        OutputFormat::Json => true,
    };
    let driver = Driver {
        transform,
        json_output,
        json_lines: format == OutputFormat::Json,
    };
    let mut output = Output {
        out: std::io::BufWriter::with_capacity(64 * 1024, out),
        json: json_output,
        wrote: false,
        ends_with_newline: false,
        source_started: false,
    };
    for (input, json) in inputs.iter().zip(json_inputs) {
        output.source_started = false;
        if json {
            driver.json_source(input, &mut output, report)?;
        } else {
            driver.transform_yaml(input, &mut output, report)?;
        }
    }
    output
        .out
        .flush()
        .map_err(|source| InjectError::Write { source })
}

/// The output stream, written piece by piece. Inputs are kept apart as if each input's output
/// were appended whole: a newline when the previous input's output did not end with one, and,
/// in YAML, a `---` line unless the input's output starts with one.
struct Output<W: Write> {
    out: W,
    json: bool,
    /// Anything written yet.
    wrote: bool,
    ends_with_newline: bool,
    /// Anything written yet for the current input.
    source_started: bool,
}

impl<W: Write> Output<W> {
    fn push(&mut self, text: &str) -> Result<(), InjectError> {
        if text.is_empty() {
            return Ok(());
        }
        let write = |out: &mut W, text: &str| {
            out.write_all(text.as_bytes())
                .map_err(|source| InjectError::Write { source })
        };
        if !self.source_started {
            self.source_started = true;
            if self.wrote && !self.ends_with_newline {
                write(&mut self.out, "\n")?;
            }
            let starts_with_separator = text
                .lines()
                .next()
                .is_some_and(|l| l.starts_with("---") && l[3..].trim().is_empty());
            if !self.json && self.wrote && !starts_with_separator {
                write(&mut self.out, "---\n")?;
            }
        }
        write(&mut self.out, text)?;
        self.wrote = true;
        self.ends_with_newline = text.ends_with('\n');
        Ok(())
    }
}

/// A batch of documents and what each became.
type TransformedBatch = (Vec<OwnedChunk>, Vec<Result<ChunkResult, InjectError>>);

/// Writes a transformed batch (if any) in input order, up to its first failure.
fn write_batch<W: Write>(
    source: &str,
    batch: Option<TransformedBatch>,
    out: &mut Output<W>,
    report: &mut dyn ReportSink,
    list: &mut Option<ListAssembly>,
) -> Result<(), InjectError> {
    let Some((chunks, results)) = batch else {
        return Ok(());
    };
    for (chunk, result) in chunks.iter().zip(results) {
        // JSON documents need no separator (a YAML input written as JSON lines).
        if !out.json {
            out.push(&chunk.separator)?;
        }
        let result = result?;
        for entry in result.entries {
            report.entry(entry)?;
        }
        match chunk.part {
            ChunkPart::Whole => out.push(&result.text)?,
            // A JSON line is one whole document; a List read item by item never is one.
            ChunkPart::ListHead if out.json => {
                return Err(InjectError::Usage(format!(
                    "{source}:{}: a List larger than {} MiB is read item by item and cannot be \
                     written as one JSON line (-o json): write YAML (-o yaml), or split the List",
                    chunk.line,
                    input::STREAMED_LIST_BYTES >> 20
                )))
            }
            ChunkPart::ListHead => *list = Some(ListAssembly::start(source, chunk)?),
            ChunkPart::ListItem => match list {
                Some(list) => list.item(&chunk.body, &result.text, result.changed)?,
                None => return Err(ListAssembly::lost(source, chunk)),
            },
            ChunkPart::ListTail => match list.take() {
                Some(list) => list.finish(&chunk.body, out)?,
                None => return Err(ListAssembly::lost(source, chunk)),
            },
        }
    }
    Ok(())
}

/// A `List` read item by item ([`ChunkPart`]), put back together on its way out: its text as
/// read and its items as written anew wait in temporary files (memory does not grow with the
/// list), and once its last part is in, the list is written as a whole `List` would be: its
/// text byte for byte when no item changed, else written anew.
struct ListAssembly {
    source: String,
    /// The list's text up to its `items:` line, and where it starts.
    head: String,
    line: usize,
    /// Whether the document started on its `---` line.
    started_on_separator: bool,
    /// The text as read, after the head.
    read: std::io::BufWriter<std::fs::File>,
    /// The items written anew (`- ` and the item, as the whole list's text holds them).
    written: std::io::BufWriter<std::fs::File>,
    changed: bool,
}

/// What stands for the items when the list's own keys are written: its line is cut out.
const ITEMS_PLACEHOLDER: &str = "meshchart-streamed-list-items";

impl ListAssembly {
    fn start(source: &str, head: &OwnedChunk) -> Result<ListAssembly, InjectError> {
        let spool = || {
            tempfile::tempfile()
                .map(|f| std::io::BufWriter::with_capacity(64 * 1024, f))
                .map_err(InjectError::temp_file(
                    "a long List while it is read item by item",
                ))
        };
        Ok(ListAssembly {
            source: source.to_owned(),
            head: head.body.clone(),
            line: head.line,
            started_on_separator: head.separator.is_empty() && head.body.starts_with("---"),
            read: spool()?,
            written: spool()?,
            changed: false,
        })
    }

    /// A list part without its head: a bug of the reader, said rather than written wrong.
    fn lost(source: &str, chunk: &OwnedChunk) -> InjectError {
        InjectError::Usage(format!(
            "{source}:{}: a part of a List read item by item came without its start",
            chunk.line
        ))
    }

    fn item(&mut self, read: &str, written: &str, changed: bool) -> Result<(), InjectError> {
        let write_error = |source| InjectError::Write { source };
        self.read.write_all(read.as_bytes()).map_err(write_error)?;
        self.written
            .write_all(written.as_bytes())
            .map_err(write_error)?;
        self.changed |= changed;
        Ok(())
    }

    /// Writes the whole list, `tail` being its text after the items.
    fn finish<W: Write>(self, tail: &str, out: &mut Output<W>) -> Result<(), InjectError> {
        if !self.changed {
            out.push(&self.head)?;
            copy_spool(self.read, out)?;
            return out.push(tail);
        }
        // The list's own keys, read from its head and tail, written with a stand-in for the
        // items; the items written anew go where the stand-in's line is.
        let keys = format!("{}{tail}", self.head);
        let chunk = Chunk {
            separator: "",
            body: &keys,
            line: self.line,
        };
        let mut docs = parse_yaml_chunk(&self.source, &chunk)?;
        let (Some(Value::Map(map)), true) = (docs.pop(), docs.is_empty()) else {
            return Err(InjectError::Usage(format!(
                "{}:{}: a List read item by item is not one mapping",
                self.source, self.line
            )));
        };
        let mut list = map;
        list.insert(
            "items".into(),
            Value::Seq(vec![Value::String(ITEMS_PLACEHOLDER.into())]),
        );
        let list = Value::Map(list);
        let text = emit_yaml(&list, &subject(&list, &self.source, self.line))?;
        let placeholder = format!("\n- {ITEMS_PLACEHOLDER}\n");
        let Some(at) = text.find(&placeholder) else {
            return Err(InjectError::Usage(format!(
                "{}:{}: a List read item by item could not be written back",
                self.source, self.line
            )));
        };
        if self.started_on_separator {
            out.push("---\n")?;
        }
        out.push(leading_comments(&self.head))?;
        out.push(&text[..=at])?;
        copy_spool(self.written, out)?;
        out.push(&text[at + placeholder.len()..])
    }
}

/// Copies a spool written by [`ListAssembly`] to the output, a line at a time.
fn copy_spool<W: Write>(
    spool: std::io::BufWriter<std::fs::File>,
    out: &mut Output<W>,
) -> Result<(), InjectError> {
    use std::io::{BufRead, Seek};
    let write_error = |source| InjectError::Write { source };
    let mut file = spool
        .into_inner()
        .map_err(|e| write_error(e.into_error()))?;
    file.rewind().map_err(write_error)?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(write_error)? == 0 {
            return Ok(());
        }
        out.push(&line)?;
    }
}

/// The items of a `List`'s item chunk (one, unless the chunk holds more than its reader cut).
fn list_items(source: &str, chunk: &OwnedChunk) -> Result<Vec<Value>, InjectError> {
    let mut items = Vec::new();
    for doc in parse_yaml_chunk(source, &chunk.as_chunk())? {
        match doc {
            Value::Seq(seq) => items.extend(seq),
            Value::Null => {}
            _ => {
                return Err(InjectError::Yaml {
                    path: source.to_owned(),
                    line: chunk.line,
                    column: 1,
                    message: "expected an item of the List's `items:`".into(),
                })
            }
        }
    }
    Ok(items)
}

struct Driver<'a> {
    transform: &'a dyn Transform,
    json_output: bool,
    /// Every document as one compact JSON line ([`OutputFormat::Json`]).
    json_lines: bool,
}

/// Documents transformed at once: they are independent (Namespaces were read beforehand), so a
/// batch runs on all cores and is written in input order; the batch bounds the memory in flight.
const DOCUMENTS_PER_BATCH: usize = 128;

/// What one YAML document becomes: the text that follows its separator, and its report entries.
/// For an item of a list read item by item, the text is the item written anew, changed or not
/// (the list is written anew when any item changed).
struct ChunkResult {
    text: String,
    entries: Vec<Entry>,
    changed: bool,
}

impl Driver<'_> {
    /// Transforms a YAML stream batch by batch. While the pool transforms one batch, this
    /// thread writes the one before and reads the one after, so reading and writing (a fifth of
    /// the work, perf record) no longer leave the cores idle.
    fn transform_yaml<W: Write>(
        &self,
        source: &Stream,
        out: &mut Output<W>,
        report: &mut dyn ReportSink,
    ) -> Result<(), InjectError> {
        let mut chunks = source.yaml_chunks()?;
        let mut read_batch = || {
            chunks
                .by_ref()
                .take(DOCUMENTS_PER_BATCH)
                .collect::<Result<Vec<_>, _>>()
        };
        let name = &source.name;
        let mut batch = read_batch()?;
        // A read error waits until the documents before it are written, as it did when reading
        // and writing took turns.
        let mut read_error = None;
        // One helper thread for the whole stream (a thread per batch started dozens of threads,
        // each with an empty allocator cache): it hands each batch to the pool.
        let (to_transform, batches) = mpsc::sync_channel::<Vec<OwnedChunk>>(1);
        let (transformed, results) = mpsc::sync_channel::<TransformedBatch>(1);
        let coordinate = move || {
            for batch in batches {
                let transform = || {
                    // One document per job (see fleet::render_clusters): the batch's
                    // last documents no longer wait on one thread while the other idles.
                    batch
                        .par_iter()
                        .with_max_len(1)
                        .map(|chunk| self.yaml_chunk(name, chunk))
                        .collect::<Vec<_>>()
                };
                let done = match crate::parallel::all_cores() {
                    Some(pool) => pool.install(transform),
                    None => transform(),
                };
                if transformed.send((batch, done)).is_err() {
                    return;
                }
            }
        };
        let read_and_write = || {
            let mut list = None;
            let mut finished: Option<TransformedBatch> = None;
            while !batch.is_empty() {
                if to_transform.send(std::mem::take(&mut batch)).is_err() {
                    // The coordinator panicked; leaving the scope raises its panic here.
                    break;
                }
                let written = write_batch(name, finished.take(), out, report, &mut list);
                let next = read_batch();
                let Ok(done) = results.recv() else {
                    break;
                };
                written?;
                finished = Some(done);
                batch = next.unwrap_or_else(|e| {
                    read_error = Some(e);
                    Vec::new()
                });
            }
            drop(to_transform);
            write_batch(name, finished, out, report, &mut list)
        };
        crate::parallel::beside(coordinate, read_and_write).map_err(InjectError::Usage)??;
        read_error.map_or(Ok(()), Err)
    }

    /// Transforms one chunk of a YAML stream: a whole document ([`Driver::yaml_document`]), or
    /// an item of a list read item by item.
    fn yaml_chunk(&self, source: &str, chunk: &OwnedChunk) -> Result<ChunkResult, InjectError> {
        match chunk.part {
            ChunkPart::Whole => self.yaml_document(source, &chunk.as_chunk()),
            ChunkPart::ListHead | ChunkPart::ListTail => Ok(ChunkResult {
                text: String::new(),
                entries: Vec::new(),
                changed: false,
            }),
            ChunkPart::ListItem => {
                let mut entries = Vec::new();
                let mut changed = false;
                let mut items = Vec::new();
                let pristine = is_pristine(&chunk.body);
                for item in list_items(source, chunk)? {
                    let (item, item_changed) =
                        self.document(item, source, chunk.line, pristine, &mut entries)?;
                    changed |= item_changed;
                    items.push(item);
                }
                let items = Value::Seq(items);
                let text = emit_yaml(&items, &subject(&Value::Null, source, chunk.line))?;
                Ok(ChunkResult {
                    text,
                    entries,
                    changed,
                })
            }
        }
    }

    /// Transforms one YAML document: its text back byte for byte when nothing changed, else its
    /// leading comments and the documents written anew.
    fn yaml_document(&self, source: &str, chunk: &Chunk<'_>) -> Result<ChunkResult, InjectError> {
        let mut entries = Vec::new();
        let unchanged = |entries| {
            Ok(ChunkResult {
                // A blank or comment-only document has nothing to write as JSON.
                text: match self.json_lines {
                    true => String::new(),
                    false => chunk.body.to_owned(),
                },
                entries,
                changed: false,
            })
        };
        if chunk.body.is_empty() {
            return unchanged(entries);
        }
        let docs = parse_yaml_chunk(source, chunk)?;
        if docs.is_empty() {
            // A blank document between separators, reported as upstream does.
            if !chunk.separator.is_empty() {
                entries.push(missing_kind(source, chunk.line));
            }
            return unchanged(entries);
        }
        let pristine = is_pristine(chunk.body);
        let mut changed = false;
        let mut results = Vec::with_capacity(docs.len());
        for doc in docs {
            let (doc, doc_changed) =
                self.document(doc, source, chunk.line, pristine, &mut entries)?;
            changed |= doc_changed;
            results.push(doc);
        }
        if self.json_lines {
            let mut text = String::new();
            for doc in &results {
                text.push_str(&emit_json_line(doc, &subject(doc, source, chunk.line))?);
            }
            // Every document is written anew as a JSON line.
            return Ok(ChunkResult {
                text,
                entries,
                changed: true,
            });
        }
        if !changed {
            return unchanged(entries);
        }
        let mut text = String::with_capacity(chunk.body.len() * 2);
        if chunk.separator.is_empty() && chunk.body.starts_with("---") {
            text.push_str("---\n"); // the body started the document on its `---` line
        }
        text.push_str(leading_comments(chunk.body));
        for (i, doc) in results.iter().enumerate() {
            if i > 0 {
                text.push_str("---\n");
            }
            text.push_str(&emit_yaml(doc, &subject(doc, source, chunk.line))?);
        }
        Ok(ChunkResult {
            text,
            entries,
            changed: true,
        })
    }

    /// A JSON input: read whole (a JSON stream is parsed as one text), written value by value.
    fn json_source<W: Write>(
        &self,
        source: &Stream,
        out: &mut Output<W>,
        report: &mut dyn ReportSink,
    ) -> Result<(), InjectError> {
        let text = source.text()?;
        for (chunk, value) in split_json(&source.name, &text)? {
            if chunk.body.is_empty() {
                if self.json_output && !self.json_lines {
                    out.push(chunk.separator)?;
                }
                continue;
            }
            let mut entries = Vec::new();
            let (doc, changed) = self.document(
                value,
                &source.name,
                chunk.line,
                is_pristine(chunk.body),
                &mut entries,
            )?;
            for entry in entries {
                report.entry(entry)?;
            }
            let subject = || subject(&doc, &source.name, chunk.line);
            if self.json_lines {
                out.push(&emit_json_line(&doc, &subject())?)?;
            } else if self.json_output {
                out.push(chunk.separator)?;
                if changed {
                    out.push(&emit_json(&doc, &subject())?)?;
                } else {
                    out.push(chunk.body)?;
                }
            } else {
                // Mixed inputs: the whole stream is YAML.
                if out.source_started {
                    out.push("---\n")?;
                }
                out.push(&emit_yaml(&doc, &subject())?)?;
            }
        }
        if self.json_output && out.source_started && !out.ends_with_newline {
            out.push("\n")?;
        }
        Ok(())
    }

    /// Transforms one document (a resource, a `List` of them, or anything else). `pristine`
    /// says its text holds nothing of a mesh (see [`is_pristine`]).
    fn document(
        &self,
        mut doc: Value,
        source: &str,
        line: usize,
        pristine: bool,
        entries: &mut Vec<Entry>,
    ) -> Result<(Value, bool), InjectError> {
        let at = subject(&doc, source, line);
        if at.kind.is_empty() {
            entries.push(missing_kind(source, line));
            return Ok((doc, false));
        }
        if at.kind == "List" {
            if let Some(Value::Seq(items)) = doc.as_map_mut().and_then(|m| m.get_mut("items")) {
                let mut changed = false;
                for item in items.iter_mut() {
                    let (new, item_changed) =
                        self.document(std::mem::take(item), source, line, pristine, entries)?;
                    *item = new;
                    changed |= item_changed;
                }
                return Ok((doc, changed));
            }
        }
        // Whether the document changed decides between writing its text back byte for byte and
        // writing it anew. A pristine document changes exactly when it is injected (nothing
        // else touches it), so only documents that may hold a mesh pay for a copy to compare.
        let before = (!pristine && !self.transform.outcome_tells_change()).then(|| doc.clone());
        let mut outcome = self.transform.resource(&mut doc, &at)?;
        let changed = match before {
            Some(before) => doc != before,
            None => matches!(outcome, Outcome::Injected { .. } | Outcome::Uninjected),
        };
        if let Outcome::Injected { changed: c, .. } = &mut outcome {
            *c = changed;
        }
        entries.push(Entry {
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

/// Who a document is, for the report and messages.
fn subject(doc: &Value, source: &str, line: usize) -> WorkloadRef {
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

/// The report entry of a document without a kind.
fn missing_kind(source: &str, line: usize) -> Entry {
    Entry {
        source: source.to_owned(),
        line,
        kind: String::new(),
        name: String::new(),
        namespace: String::new(),
        outcome: Outcome::Skipped(SkipReason::MissingKind),
    }
}

/// Whether a document's text shows no trace of a mesh: no `linkerd` or `meshchart` anywhere
/// (every name, annotation, label and container inject adds or uninject removes holds one), and
/// no backslash, so no escape in a quoted scalar can spell one either.
fn is_pristine(text: &str) -> bool {
    !text.contains("linkerd") && !text.contains("meshchart") && !text.contains('\\')
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

/// A document as one line of compact JSON, as `linkerd inject -o json` writes each.
fn emit_json_line(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_json(doc)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_ports_are_the_containers_ports_and_numeric_probe_ports_in_text_order() {
        let template = crate::yaml::parse_document(
            "spec:\n  containers:\n  - ports:\n    - containerPort: 80\n    - containerPort: 10000\n\
             \x20   readinessProbe: {httpGet: {port: 9090}}\n\
             \x20   livenessProbe: {httpGet: {port: http}}\n\
             \x20 - ports:\n    - containerPort: 80\n",
        )
        .unwrap();
        let template = template.as_map().unwrap();
        assert_eq!(inbound_ports(template), "10000,80,9090");
        assert_eq!(inbound_ports(&Map::new()), "");
    }
}
