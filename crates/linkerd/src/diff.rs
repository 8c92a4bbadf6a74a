//! `meshchart diff`: two renders compared resource by resource.
//!
//! Each side is a multi-document stream (a file, or a render of a chart with its own value
//! flags). Documents are matched by kind, namespace and name; a changed resource prints a
//! unified diff, and added and removed resources are listed by name. Documents without a kind
//! (comment-only ones) are matched by their `# Source:` line.

use crate::chart::Chart;
use crate::chart_source::ChartSource;
use crate::error::Error;
use crate::manifest::split_documents;
use crate::redact::short_digest;
use crate::render::{choose_chart, render, Clock, RenderRequest};
use crate::values::KnownKeys;
use crate::values::{Value, ValueOverrides};
use camino::Utf8PathBuf;
use std::fmt::{self, Write as _};
use std::io::Read;

/// What identifies a resource across two renders.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceKey {
    /// `kind` (empty for a document without one).
    pub kind: String,
    /// `metadata.namespace` (empty when unset).
    pub namespace: String,
    /// `metadata.name`, or the `# Source:` of a document without a kind.
    pub name: String,
    /// 1 for the first resource with this kind/namespace/name, 2 for a repeat, ...
    pub occurrence: usize,
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kind.is_empty() {
            "(no kind)"
        } else {
            &self.kind
        };
        match self.namespace.as_str() {
            "" => write!(f, "{kind} {}", self.name)?,
            ns => write!(f, "{kind} {ns}/{}", self.name)?,
        }
        if self.occurrence > 1 {
            write!(f, " (#{})", self.occurrence)?;
        }
        Ok(())
    }
}

/// One document of a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// Its identity.
    pub key: ResourceKey,
    /// Its text (trimmed, framing comments included).
    pub text: String,
    /// Its data: two resources that read as the same data are the same, however written.
    pub data: Value,
}

fn field<'a>(map: &'a crate::values::Map, path: &[&str]) -> &'a str {
    let mut current = map;
    for (i, key) in path.iter().enumerate() {
        match current.get(*key) {
            Some(Value::Map(m)) if i + 1 < path.len() => current = m,
            Some(Value::String(s)) if i + 1 == path.len() => return s,
            _ => return "",
        }
    }
    ""
}

/// Splits a stream into resources; `label` names it in errors.
pub fn resources(stream: &str, label: &str) -> Result<Vec<Resource>, Error> {
    let mut out: Vec<Resource> = Vec::new();
    for (index, doc) in split_documents(stream).into_iter().enumerate() {
        let parsed = crate::yaml::parse_document(doc.text).map_err(|e| {
            Error::Usage(format!(
                "{label}: document {} (line {}) is not valid YAML: {e}",
                index + 1,
                crate::manifest::line_of(stream, doc.offset)
            ))
        })?;
        let (kind, namespace, mut name) = match &parsed {
            Value::Map(m) => (
                field(m, &["kind"]).to_owned(),
                field(m, &["metadata", "namespace"]).to_owned(),
                field(m, &["metadata", "name"]).to_owned(),
            ),
            _ => Default::default(),
        };
        if kind.is_empty() && name.is_empty() {
            name = doc
                .text
                .lines()
                .find_map(|l| l.strip_prefix("# Source: "))
                .map(str::to_owned)
                .unwrap_or_else(|| format!("document {}", index + 1));
        }
        let occurrence = 1 + out
            .iter()
            .filter(|r| r.key.kind == kind && r.key.namespace == namespace && r.key.name == name)
            .count();
        out.push(Resource {
            key: ResourceKey {
                kind,
                namespace,
                name,
                occurrence,
            },
            text: doc.text.to_owned(),
            data: parsed,
        });
    }
    Ok(out)
}

/// How secret material is shown in a diff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Secrets {
    /// Masked: a Secret's `data` and `stringData` values and every private key's PEM body
    /// become `<masked sha256:...>` (the first 12 hex digits of the value's digest), so a
    /// review shows that a secret changed without showing it.
    #[default]
    Masked,
    /// As written (`--show-secrets`).
    Shown,
}

/// `text` with its secret material masked (see [`Secrets::Masked`]): in a Secret
/// (`is_secret`), each entry of the top-level `data:` and `stringData:` maps, multi-line values
/// whole; anywhere, the lines of every `PRIVATE KEY` PEM block.
pub fn mask_secrets(text: &str, is_secret: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // Inside a Secret's data map: the indentation of its entries once seen, and the entry
    // being collected (its line up to the colon, and its value's lines).
    let mut in_secret_map = false;
    let mut entry_indent: Option<usize> = None;
    let mut entry: Option<(String, String)> = None;
    let mut pem: Option<(String, String)> = None;
    let flush = |out: &mut String, entry: &mut Option<(String, String)>| {
        if let Some((head, value)) = entry.take() {
            let _ = writeln!(
                out,
                "{head}: <masked sha256:{}>",
                short_digest(value.as_bytes())
            );
        }
    };
    for line in text.lines() {
        let content = line.trim_start();
        let indent = line.len() - content.len();
        if in_secret_map {
            let deeper = indent > 0 || content.is_empty();
            if deeper {
                let at_entry = entry_indent.is_none_or(|i| i == indent) && content.contains(':');
                if at_entry && !content.is_empty() {
                    flush(&mut out, &mut entry);
                    entry_indent = Some(indent);
                    let (key, value) = content.split_once(':').unwrap_or((content, ""));
                    entry = Some((format!("{}{key}", &line[..indent]), value.trim().to_owned()));
                } else if let Some((_, value)) = &mut entry {
                    value.push('\n');
                    value.push_str(content);
                }
                continue;
            }
            flush(&mut out, &mut entry);
            in_secret_map = false;
            entry_indent = None;
        }
        if let Some((prefix, body)) = &mut pem {
            body.push_str(content);
            body.push('\n');
            if content.starts_with("-----END ") {
                let digest = short_digest(body.as_bytes());
                let _ = writeln!(out, "{prefix}<masked private key sha256:{digest}>");
                pem = None;
            }
            continue;
        }
        if content.starts_with("-----BEGIN ") && content.contains("PRIVATE KEY-----") {
            pem = Some((line[..indent].to_owned(), format!("{content}\n")));
            continue;
        }
        if is_secret && indent == 0 && (content == "data:" || content == "stringData:") {
            in_secret_map = true;
        }
        if let Some((head, value)) = base64_private_key(line) {
            let _ = writeln!(
                out,
                "{head}<masked private key sha256:{}>",
                short_digest(value.as_bytes())
            );
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    flush(&mut out, &mut entry);
    if let Some((prefix, body)) = pem {
        // An unterminated block is still masked whole.
        let _ = writeln!(
            out,
            "{prefix}<masked private key sha256:{}>",
            short_digest(body.as_bytes())
        );
    }
    out
}

/// A `key: value` line whose value is a base64-encoded PEM private key (as a Secret's data
/// holds one, or any field that carries one): the line up to the value, and the value.
fn base64_private_key(line: &str) -> Option<(&str, &str)> {
    let (start, end) = crate::redact::base64_private_key_in(line)?;
    Some((
        line[..start].trim_end_matches(['"', '\'']),
        &line[start..end],
    ))
}

/// `stream` (a multi-document YAML stream) with the secret material of each document masked
/// as [`mask_secrets`] does, the text between documents kept as it is: what a review of expected
/// against actual output may show.
pub fn mask_stream(stream: &str) -> String {
    let mut out = String::with_capacity(stream.len());
    let mut copied = 0;
    for doc in split_documents(stream) {
        out.push_str(&stream[copied..doc.offset]);
        let is_secret = doc
            .text
            .lines()
            .any(|line| line.trim_end() == "kind: Secret");
        let masked = mask_secrets(doc.text, is_secret);
        // mask_secrets ends every line; keep the document's own ending.
        out.push_str(if doc.text.ends_with('\n') {
            &masked
        } else {
            masked.strip_suffix('\n').unwrap_or(&masked)
        });
        copied = doc.offset + doc.text.len();
    }
    out.push_str(&stream[copied..]);
    out
}

/// How two streams differ.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffReport {
    /// Resources in both with different text, and their unified diff.
    pub changed: Vec<(ResourceKey, String)>,
    /// Resources only in B.
    pub added: Vec<ResourceKey>,
    /// Resources only in A.
    pub removed: Vec<ResourceKey>,
    /// Values keys the user sets that A's chart reads and B's does not (an upgrade across
    /// release lines would silently ignore them): key, A's chart, B's chart.
    pub unread_keys: Vec<(String, String, String)>,
}

impl DiffReport {
    /// Whether the two sides are the same.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.unread_keys.is_empty()
    }

    /// The diffs, then the added and removed resources, then a count; empty when equal.
    pub fn to_text(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        for (_, diff) in &self.changed {
            out.push_str(diff);
        }
        for key in &self.added {
            let _ = writeln!(out, "added: {key}");
        }
        for key in &self.removed {
            let _ = writeln!(out, "removed: {key}");
        }
        for (key, a, b) in &self.unread_keys {
            let _ = writeln!(
                out,
                "values key {key}: read by A ({a}), not by B ({b}): B would ignore it"
            );
        }
        let _ = writeln!(
            out,
            "{} changed, {} added, {} removed",
            self.changed.len(),
            self.added.len(),
            self.removed.len()
        );
        out
    }
}

/// Compares two streams resource by resource.
pub fn diff_streams(
    a: &str,
    a_label: &str,
    b: &str,
    b_label: &str,
    secrets: Secrets,
) -> Result<DiffReport, Error> {
    let a = resources(a, a_label)?;
    let b = resources(b, b_label)?;
    let mut report = DiffReport::default();
    let shown = |resource: &Resource| match secrets {
        Secrets::Shown => format!("{}\n", resource.text),
        Secrets::Masked => mask_secrets(&resource.text, resource.key.kind == "Secret"),
    };
    for old in &a {
        match b.iter().find(|r| r.key == old.key) {
            None => report.removed.push(old.key.clone()),
            Some(new) if new.data != old.data => {
                let (old_text, new_text) = (shown(old), shown(new));
                let diff = similar::TextDiff::from_lines(&old_text, &new_text)
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a: {}", old.key), &format!("b: {}", new.key))
                    .to_string();
                report.changed.push((old.key.clone(), diff));
            }
            Some(_) => {}
        }
    }
    for new in &b {
        if !a.iter().any(|r| r.key == new.key) {
            report.added.push(new.key.clone());
        }
    }
    Ok(report)
}

/// One side of a diff that renders a chart.
#[derive(Clone, Debug)]
pub struct RenderSide {
    /// The chart.
    pub chart: ChartSource,
    /// Its request: the shared one plus this side's own values.
    pub request: RenderRequest,
}

/// One side rendered: its stream, the chart that rendered it and the user's own values.
pub struct RenderedSide {
    /// The multi-document stream.
    pub stream: String,
    /// The chart it came from.
    pub chart: Chart,
    /// The user's value sources it rendered with (`-f`/`--set`, without the chart's defaults),
    /// their files already read.
    pub values: ValueOverrides,
}

impl RenderSide {
    /// Renders this side; an embedded chart comes from the line its values choose (see
    /// [`choose_chart`]).
    pub fn render(&self, clock: Clock) -> Result<RenderedSide, Error> {
        let chosen = choose_chart(&self.chart, self.request.overrides(), &mut std::io::empty())?;
        let request = chosen.request(&self.request)?;
        let stream = render(&chosen.chart, &request, &mut std::io::empty(), clock)?
            .rendered
            .to_stream();
        Ok(RenderedSide {
            stream,
            chart: chosen.chart,
            values: request.values,
        })
    }
}

/// The keys of the user's values (`user_values`, the upgrade's side B) that chart A reads and
/// chart B does not: after the upgrade they would be silently ignored. Each is the shortest
/// path B does not know, once.
pub fn keys_no_longer_read(
    a: &Chart,
    b: &Chart,
    user_values: &Value,
) -> Result<Vec<String>, Error> {
    let (a_defaults, b_defaults) = (a.default_values()?, b.default_values()?);
    let schema = |chart: &Chart| {
        chart
            .file(crate::chart::SCHEMA_FILE)
            .and_then(|f| serde_json::from_str::<serde_json::Value>(&f.text).ok())
    };
    let (a_schema, b_schema) = (schema(a), schema(b));
    let known_a = KnownKeys::new(&a_defaults, a_schema.as_ref());
    let known_b = KnownKeys::new(&b_defaults, b_schema.as_ref());
    let mut dropped: Vec<String> = Vec::new();
    for path in leaf_paths(user_values) {
        if known_a.unknown_prefix(&path).is_some() {
            continue;
        }
        if let Some(prefix) = known_b.unknown_prefix(&path) {
            let key = prefix.join(".");
            if !dropped.contains(&key) {
                dropped.push(key);
            }
        }
    }
    Ok(dropped)
}

/// Every leaf's path in `value` (an empty map is a leaf too: it was set).
fn leaf_paths(value: &Value) -> Vec<Vec<String>> {
    fn walk(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match value {
            Value::Map(map) if !map.is_empty() => {
                for (key, child) in map {
                    path.push(key.clone());
                    walk(child, path, out);
                    path.pop();
                }
            }
            _ if !path.is_empty() => out.push(path.clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

/// What one side of `diff --values-a/--set-a/--chart-a` adds to the shared flags.
#[derive(Clone, Debug, Default)]
pub struct SideRequest {
    /// `--chart-a`/`--linkerd-a` (or `-b`), else the shared chart.
    pub chart: Option<ChartSource>,
    /// Extra values files.
    pub values: Vec<String>,
    /// Extra `--set` expressions.
    pub set: Vec<String>,
}

/// Renders the chart once per side at one instant and with one set of generated certificates,
/// so only what the side's flags change shows in the diff.
pub fn render_pair(
    chart: &ChartSource,
    shared: &RenderRequest,
    a: &SideRequest,
    b: &SideRequest,
    clock: Clock,
) -> Result<(RenderedSide, RenderedSide), Error> {
    let clock = Clock::Fixed(clock.now()?);
    let scratch = match shared.certs_dir {
        Some(_) => None,
        None => {
            let dir =
                std::env::temp_dir().join(format!("meshchart-diff-certs-{}", std::process::id()));
            Some(Utf8PathBuf::from_path_buf(dir).map_err(|p| {
                Error::Usage(format!("temporary folder {} is not UTF-8", p.display()))
            })?)
        }
    };
    let side = |own: &SideRequest| {
        let mut request = shared.clone();
        request.values.files.extend(own.values.iter().cloned());
        request.values.set.extend(own.set.iter().cloned());
        if let Some(dir) = &scratch {
            request.certs_dir = Some(dir.clone());
        }
        RenderSide {
            chart: own.chart.clone().unwrap_or_else(|| chart.clone()),
            request,
        }
    };
    let result = side(a)
        .render(clock)
        .and_then(|left| Ok((left, side(b).render(clock)?)));
    if let Some(dir) = &scratch {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// What `meshchart diff` is asked to compare.
#[derive(Clone, Debug)]
pub struct DiffRequest {
    /// Two rendered streams (`-` is standard input); with none, two renders of `chart`.
    pub files: Vec<String>,
    /// The chart both sides render unless a side names its own.
    pub chart: ChartSource,
    /// The render request both sides share.
    pub shared: RenderRequest,
    /// What side A adds.
    pub a: SideRequest,
    /// What side B adds.
    pub b: SideRequest,
    /// Whether secret material is masked (the default) or shown.
    pub secrets: Secrets,
}

/// What `meshchart diff` compares: the two files (`-` reads `stdin`), or with none, two renders
/// of the chart (see [`render_pair`]).
pub fn compare(
    request: &DiffRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<DiffReport, Error> {
    let DiffRequest {
        files,
        chart,
        shared,
        a,
        b,
        secrets,
    } = request;
    let secrets = *secrets;
    let mut kept_stdin = None;
    let (a, a_label, b, b_label) = match files.as_slice() {
        [a, b] => (
            read_input(a, stdin, &mut kept_stdin)?,
            a.clone(),
            read_input(b, stdin, &mut kept_stdin)?,
            b.clone(),
        ),
        [] => {
            let (a, b) = render_pair(chart, shared, a, b, clock)?;
            let unread = if a.chart.origin == b.chart.origin {
                Vec::new()
            } else {
                let b_values = crate::values::user_values(&b.values, &mut std::io::empty())?;
                keys_no_longer_read(&a.chart, &b.chart, &b_values)?
            };
            let mut report = diff_streams(&a.stream, "A", &b.stream, "B", secrets)?;
            report.unread_keys = unread
                .into_iter()
                .map(|key| (key, a.chart.origin.clone(), b.chart.origin.clone()))
                .collect();
            return Ok(report);
        }
        _ => {
            return Err(Error::Usage(
                "diff takes two files, or none (then it renders the chart twice)".into(),
            ))
        }
    };
    diff_streams(&a, &a_label, &b, &b_label, secrets)
}

/// A file's text, or `stdin`'s for `-`, through the input door. Standard input is read once:
/// `diff - -` compares it with itself.
fn read_input(
    path: &str,
    stdin: &mut dyn Read,
    kept_stdin: &mut Option<String>,
) -> Result<String, Error> {
    if path == "-" {
        if let Some(text) = kept_stdin {
            return Ok(text.clone());
        }
    }
    let text = crate::input::read_arg(path, stdin)?.text;
    if path == "-" {
        *kept_stdin = Some(text.clone());
    }
    Ok(text)
}

#[cfg(test)]
mod tests;
