//! The namespaces workloads live in: their annotations (from `--namespace-annotations` and from the
//! input's `Namespace` documents) and the input's Services that matter to a release. Separate
//! because it is read before the transformation, in a first pass over each input.

use super::error::InjectError;
use super::input::ChunkPart;
use super::input::{parse_yaml_chunk, split_json};
use super::input::{Source, Stream};
use super::list_assembly::list_items;
use super::workload::{meta_map, str_at};
use crate::proxy_support::NotReadyService;
use crate::values::{Map, Value};
use std::collections::BTreeMap;

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
    pub(super) fn not_ready_service(
        &self,
        namespace: &str,
        labels: Option<&Map>,
    ) -> Option<&NotReadyService> {
        self.not_ready_services
            .iter()
            .find(|service| service.selects(namespace, labels))
    }

    /// The namespace a workload in `namespace` lives in, with its annotations. A workload that
    /// names no namespace gets the `--namespace-annotations` one, when that file holds exactly
    /// one: the user said where these workloads go.
    pub(super) fn lookup(&self, namespace: &str) -> Option<(String, Map)> {
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
pub(super) fn documents_mentioning(
    input: &Stream,
    words: &[&str],
) -> Result<Vec<Value>, InjectError> {
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
