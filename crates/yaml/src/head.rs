//! Checking rendered manifests: valid YAML, and the head (kind, name, namespace, hook) that
//! ordering and hooks need, on every render, so it has to be quick.
//!
//! Three tiers, each answering only when sure: a line-based check of the plain block YAML that
//! templates usually emit ([`fast`]), an event pass over yaml-rust2 that builds nothing, and the
//! full reader for aliases and merge keys. Tests hold the first two to the full reader's verdict.

pub(crate) mod fast;
mod flow_indent;
mod manifest_head;

pub use manifest_head::ManifestHead;

use super::load::{
    err, is_str_tag, parse_document, resolve_key, resolve_plain, resolve_scalar, YamlError,
    MAX_DEPTH,
};
use crate::value::Value;
use yaml_rust2::parser::Event;
use yaml_rust2::scanner::TScalarStyle;

/// Checks that a one-document `text` is valid YAML, as [`parse_document`] judges it, with no
/// map key given twice (kubectl refuses that, and which value counts is anyone's guess), and
/// reads its head, without building the document: rendered output is checked on every render.
pub fn scan_manifest_head(text: &str) -> Result<ManifestHead, YamlError> {
    flow_indent::scan_as_go_yaml(text, scan_manifest_head_strictly)
}

/// [`scan_manifest_head`] as yaml-rust2 judges `text` (see [`flow_indent`] for the difference).
fn scan_manifest_head_strictly(text: &str) -> Result<ManifestHead, YamlError> {
    if let Some(head) = fast::block_head(text) {
        return Ok(head);
    }
    match checked_head_events(text)? {
        Some(head) => Ok(head),
        // Aliases and merge keys need the full reader's expansion rules.
        None => head_by_full_reader(text),
    }
}

pub use fast::LineShape;

/// [`scan_manifest_head`], also noting each line's [`LineShape`] in `shapes` when the quick
/// line check decides (else `shapes` is left empty): a document checked like this is a
/// reference that similar documents are checked against with [`same_shape`].
pub fn scan_manifest_head_and_shapes(
    text: &str,
    shapes: &mut Vec<LineShape>,
) -> Result<ManifestHead, YamlError> {
    let written = text.len();
    flow_indent::scan_as_go_yaml(text, |read| {
        let head = scan_manifest_head_and_shapes_strictly(read, shapes);
        // Shapes of a copy with lines moved describe no text a later document is compared to.
        if read.len() != written {
            shapes.clear();
        }
        head
    })
}

/// [`scan_manifest_head_and_shapes`] as yaml-rust2 judges `text`.
fn scan_manifest_head_and_shapes_strictly(
    text: &str,
    shapes: &mut Vec<LineShape>,
) -> Result<ManifestHead, YamlError> {
    if let Some(head) = fast::block_head_and_shapes(text, shapes) {
        return Ok(head);
    }
    shapes.clear();
    match checked_head_events(text)? {
        Some(head) => Ok(head),
        None => head_by_full_reader(text),
    }
}

/// The error for the first map key `text` gives twice, if any: what [`checked_head_events`]
/// finds on its pass, checked on a pass of its own (the tests' oracle).
#[cfg(test)]
fn check_keys_given_once(text: &str) -> Result<(), YamlError> {
    match super::load::first_duplicate_key(text, 1) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether `text` is valid YAML with the same head as `reference`, because it differs from it
/// only where the `shapes` [`scan_manifest_head_and_shapes`] noted for `reference` allow
/// (scalar values on their own lines, block text at the same indentation). `false` says only
/// that this quick comparison cannot tell.
pub fn same_shape(reference: &str, shapes: &[LineShape], text: &str) -> bool {
    !shapes.is_empty() && fast::same_shape(reference, shapes, text)
}

/// The head as the full reader sees it: the slow path, and the tests' oracle.
fn head_by_full_reader(text: &str) -> Result<ManifestHead, YamlError> {
    let value = parse_document(text)?;
    let text_of = |path: &[&str]| {
        value
            .get_path(path)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(ManifestHead {
        kind: text_of(&["kind"]),
        name: text_of(&["metadata", "name"]),
        namespace: text_of(&["metadata", "namespace"]),
        hook: value
            .get_path(&["metadata", "annotations", "helm.sh/hook"])
            .map(|v| v.as_str().unwrap_or_default().to_owned()),
    })
}

/// The event pass behind [`scan_manifest_head`]; `None` asks for the full reader.
fn scan_head_events(text: &str) -> Result<Option<ManifestHead>, YamlError> {
    let mut scan = HeadScan::default();
    let mut events = crate::events::Events::new(text);
    loop {
        let (event, at) = events.next_event().map_err(|e| YamlError {
            position: e.position,
            message: e.message,
        })?;
        match scan.feed(&event, at)? {
            Fed::More => {}
            Fed::FullReaderNeeded => return Ok(None),
            Fed::End => return Ok(Some(scan.into_head())),
        }
    }
}

/// [`check_keys_given_once`] then [`scan_head_events`], in one pass over the events: for
/// the documents the quick line check leaves to the full reader (CRDs with multi-line
/// descriptions, most of all), parsing them twice was most of a render.
///
/// The outcome is the two passes' in every case: a repeated key wins over any other finding;
/// else the head scan's own error, or its need of the full reader, as it met them; and where
/// the key check stopped early on something else (a syntax error, an alias it cannot follow),
/// before the head scan had decided, the head scan runs again on its own, as before.
fn checked_head_events(text: &str) -> Result<Option<ManifestHead>, YamlError> {
    let mut scan = HeadScan::default();
    let mut decided: Option<Result<Fed, YamlError>> = None;
    let repeated = super::load::first_duplicate_key_observed(text, 1, &mut |event, at| {
        if decided.is_none() {
            match scan.feed(event, at) {
                Ok(Fed::More) => {}
                outcome => decided = Some(outcome),
            }
        }
    });
    if let Some(e) = repeated {
        return Err(e);
    }
    match decided {
        Some(Err(e)) => Err(e),
        Some(Ok(Fed::FullReaderNeeded)) => Ok(None),
        Some(Ok(Fed::End)) => Ok(Some(scan.into_head())),
        Some(Ok(Fed::More)) | None => scan_head_events(text),
    }
}

/// What [`HeadScan::feed`] made of an event.
enum Fed {
    /// Undecided: more events, please.
    More,
    /// An alias or a merge key: only the full reader's expansion rules can tell the head.
    FullReaderNeeded,
    /// The stream ended: [`HeadScan::into_head`] is the head.
    End,
}

/// The head of a document, worked out event by event.
#[derive(Default)]
struct HeadScan {
    /// One entry per open collection: the map's current key (None for a list, or between keys).
    path: Vec<Option<String>>,
    expecting_key: Vec<bool>,
    head: HeadSlots,
    documents: usize,
}

impl HeadScan {
    fn feed(&mut self, event: &Event, at: crate::events::Position) -> Result<Fed, YamlError> {
        let in_key_position = self.expecting_key.last() == Some(&true);
        match event {
            Event::StreamEnd => return Ok(Fed::End),
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            // Only the first document's head counts, as in parse_document; the rest must parse.
            Event::DocumentStart => self.documents += 1,
            Event::Alias(_) => return Ok(Fed::FullReaderNeeded),
            Event::Scalar(value, style, _, tag) => {
                let style = *style;
                if in_key_position {
                    if style == TScalarStyle::Plain && value == "<<" {
                        return Ok(Fed::FullReaderNeeded);
                    }
                    let key = resolve_key(value, style, tag.as_ref(), at)?;
                    if self.documents <= 1 {
                        forget_replaced(&mut self.head, &self.path, &key);
                    }
                    if let Some(slot) = self.path.last_mut() {
                        *slot = Some(key);
                    }
                    if let Some(flag) = self.expecting_key.last_mut() {
                        *flag = false;
                    }
                    return Ok(Fed::More);
                }
                if style == TScalarStyle::Plain
                    && !is_str_tag(tag.as_ref())
                    && could_be_special_float(value)
                {
                    resolve_plain(value).map_err(|m| err(at, m))?;
                }
                if self.documents <= 1 {
                    if let Some(slot) = head_slot(&mut self.head, &self.path) {
                        // Record the scalar as the reader resolves it: `name: n` is a boolean.
                        *slot = Some(match resolve_scalar(value, style, tag.as_ref(), at)? {
                            Value::String(text) => text,
                            _ => String::new(),
                        });
                    }
                }
                finish_value(&mut self.path, &mut self.expecting_key);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if in_key_position {
                    return Err(err(
                        at,
                        "a map key must be a plain value, not a list or a map",
                    ));
                }
                if self.path.len() >= MAX_DEPTH {
                    return Err(err(at, format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                let is_map = matches!(event, Event::MappingStart(..));
                self.path.push(None);
                self.expecting_key.push(is_map);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.path.pop();
                self.expecting_key.pop();
                finish_value(&mut self.path, &mut self.expecting_key);
            }
        }
        Ok(Fed::More)
    }

    fn into_head(self) -> ManifestHead {
        let head = self.head;
        ManifestHead {
            kind: head.kind.unwrap_or_default(),
            name: head.name.unwrap_or_default(),
            namespace: head.namespace.unwrap_or_default(),
            hook: head.hook,
        }
    }
}

/// A repeated key replaces its whole value (the last one wins), so what its first value gave
/// the head is forgotten.
fn forget_replaced(head: &mut HeadSlots, path: &[Option<String>], key: &str) {
    let parent = |i: usize| path.get(i).and_then(|k| k.as_deref());
    match (path.len(), parent(0), parent(1), key) {
        (1, _, _, "kind") => head.kind = None,
        (1, _, _, "metadata") => {
            head.name = None;
            head.namespace = None;
            head.hook = None;
        }
        (2, Some("metadata"), _, "name") => head.name = None,
        (2, Some("metadata"), _, "namespace") => head.namespace = None,
        (2, Some("metadata"), _, "annotations") => head.hook = None,
        (3, Some("metadata"), Some("annotations"), "helm.sh/hook") => head.hook = None,
        _ => {}
    }
}

/// The head fields as the scan finds them.
#[derive(Default)]
struct HeadSlots {
    kind: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    hook: Option<String>,
}

/// After a value in a map, the next scalar is a key again.
fn finish_value(path: &mut [Option<String>], expecting_key: &mut [bool]) {
    if let (Some(flag), Some(slot)) = (expecting_key.last_mut(), path.last_mut()) {
        if slot.is_some() {
            *flag = true;
            *slot = None;
        }
    }
}

/// Where a scalar at `path` goes in the head, if it is one of the fields we keep.
fn head_slot<'h>(
    head: &'h mut HeadSlots,
    path: &[Option<String>],
) -> Option<&'h mut Option<String>> {
    let key = |i: usize| path.get(i).and_then(|k| k.as_deref());
    match (path.len(), key(0), key(1), key(2)) {
        (1, Some("kind"), _, _) => Some(&mut head.kind),
        (2, Some("metadata"), Some("name"), _) => Some(&mut head.name),
        (2, Some("metadata"), Some("namespace"), _) => Some(&mut head.namespace),
        (3, Some("metadata"), Some("annotations"), Some("helm.sh/hook")) => Some(&mut head.hook),
        _ => None,
    }
}

/// Plain scalars the reader rejects (infinities and NaN) all start like this.
fn could_be_special_float(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    body.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD_SAMPLES: &[&str] = &[
        "kind: Service\nmetadata:\n  name: web\n  namespace: prod\n",
        "apiVersion: v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install\nspec: {}\n",
        "{kind: Flow, metadata: {name: n, labels: {a: b}}}",
        "metadata:\n  labels:\n    name: not-the-name\n  name: the-name\nkind: ConfigMap\n",
        "spec:\n  kind: nested\nkind: Top\n",
        "items:\n- kind: InList\n  metadata: {name: x}\n",
        "base: &b {x: 1}\nkind: Aliased\nother: *b\n",
        "base: &b {name: m}\nmetadata:\n  <<: *b\nkind: Merged\n",
        "kind: Inf\nvalue: .inf\n",
        "kind: NullKey\n~: 1\n",
        "kind: ComplexKey\n? [a, b]\n: 1\n",
        "kind: Bad\n  indent: : x\n",
        "kind: 'quoted'\nmetadata: {name: \"q\"}\n",
        "# only a comment\n",
        "kind: First\n---\nkind: Second\n",
        "kind: First\n---\nbad: [\n",
        "y: 1\nkind: YAML11Key\n",
        "kind: [not, a, string]\n",
    ];

    /// The documents of a rendered stream, whose separators are `---` lines (the golden files
    /// are our own output, framed one way).
    fn documents_of(stream: &str) -> impl Iterator<Item = &str> {
        stream
            .split("\n---\n")
            .map(|doc| doc.trim_start_matches("---\n").trim())
            .filter(|doc| !doc.is_empty())
    }

    /// Forms the golden outputs lack but charts and generated CRDs write: plain and quoted
    /// scalars wrapped over lines (go-yaml wraps long ones at 80 columns), quoted keys, values
    /// on the line below their key, `- |` items and comments after quoted values.
    const WRAPPED_AND_QUOTED: &[&str] = &[
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         annotations:\n    \"helm.sh/resource-policy\": keep\n    'x.io/quoted': \"yes\"\n  \
         name: apps.example.io\nspec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        \
         description: Operation contains information about a requested or running\n          \
         operation\n        properties:\n          refresh:\n            description: 'Refresh \
         says: the latest revision should\n              be fetched, ''now'' if set'\n            \
         type: string\n          retry:\n            description: \"Backoff is the \\\"base\\\" \
         duration, in\n              seconds \\\n              \\ or a \\u00e9 (e.g.\n\n              \
         \\\"2m\\\")\"\n          duration:\n            description: unit is seconds, or a duration \
         (e.g.\n              \"2m\", \"1h\") - [or] {more}\n\n              after a blank line\n            \
         type: string\n    name: v1\n",
        "kind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - args:\n    - -ec\n    - |\n      \
         echo one\n      echo two\n    - 'single\n      wrapped'\n    - plain\n      wrapped\n    \
         env:\n    - name: A\n      value: \"x\" # why\n    - name: B\n      value: 'y'  # why\n    \
         resources:\n      {}\n    securityContext:\n      null\n  strategy:\n    type:\n      \
         RollingUpdate\n      more\n",
    ];

    /// Every document of the golden outputs (control plane and inject), and the forms above.
    fn golden_documents() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
        let mut docs = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.file_name().is_some_and(|n| n == "expected.yaml") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    docs.extend(documents_of(&text).map(str::to_owned));
                }
            }
        }
        // Several copies, so the random edits below reach them as often as a golden output.
        for _ in 0..20 {
            docs.extend(WRAPPED_AND_QUOTED.iter().map(|d| (*d).to_owned()));
        }
        docs
    }

    #[test]
    fn wrapped_and_quoted_scalars_and_quoted_keys_get_the_readers_head() {
        // The fast path may leave these to the full reader; where it answers, it agrees.
        for doc in WRAPPED_AND_QUOTED {
            assert_fast_path_is_sound(doc);
        }
    }

    #[test]
    fn an_empty_map_or_list_below_its_key_is_taken_by_the_fast_path() {
        for doc in [
            "kind: A\nmetadata:\n  name: a\n  annotations:\n    {}\n  labels:\n    x: y\n",
            "kind: A\nspec:\n  items:\n  -\n    []\n  - resources:\n      {}  \n    name: b\n",
            "kind: A\nspec:\n  selector:\n    # nothing chosen\n    {}\n",
        ] {
            assert!(fast::block_head(doc).is_some(), "{doc}");
            assert_fast_path_is_sound(doc);
        }
        for doc in [
            // More after the flow value, a head field so written, a comment after it.
            "kind: A\nspec:\n  {}\n  more: 1\n",
            "kind: A\nspec:\n  {}\n    more: 1\n",
            "kind:\n  {}\n",
            "kind: A\nmetadata:\n  name:\n    []\n",
            "kind: A\nspec:\n  {} # c\n",
        ] {
            assert_fast_path_is_sound(doc);
        }
    }

    #[test]
    fn the_fast_path_leaves_unsure_continuations_to_the_reader() {
        for doc in [
            // A comment ends a plain scalar: a deeper line after it is no continuation.
            "kind: A\nx: one # c\n  two\n",
            // A continuation line with `: ` would be a key.
            "kind: A\nx: one\n  two: three\n",
            // A quoted scalar's next line must be deeper than its map.
            "kind: A\nx: 'one\ntwo'\n",
            // Never closed.
            "kind: A\nx: \"one\n  two\n",
            // A head field wrapped or below its key is the full reader's to decode.
            "kind: A\nmetadata:\n  name: long\n    name\n",
            "kind:\n  A\n",
            // The same key, once quoted.
            "kind: A\nx: 1\n\"x\": 2\n",
        ] {
            assert!(fast::block_head(doc).is_none(), "{doc}");
        }
    }

    /// A repeatable xorshift source: each call gives a number below its bound.
    fn random_below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound.max(1) as u64) as usize
        }
    }

    /// What the random edits insert: YAML's indicators, spaces, breaks and words.
    const NOISE: &[&str] = &[
        ":", ": ", " ", "  ", "-", "- ", "#", " #", "'", "\"", "\n", "{", "}", "[", "]", "|", ">",
        "&a", "*a", "!", "%", "@", "`", ",", "\\", "\t", "?", "~", "---", "\n  x", "\n- ", "y",
        ".inf", "true", "0x1F", "é", "\u{2028}",
    ];

    /// The fast path's promise: when it answers, the text is valid and the head is the reader's.
    fn assert_fast_path_is_sound(text: &str) {
        if let Some(fast) = fast::block_head(text) {
            match head_by_full_reader(text) {
                Ok(full) => assert_eq!(fast, full, "{text:?}"),
                Err(e) => panic!("fast path accepted text the reader rejects ({e}):\n{text}"),
            }
        }
    }

    #[test]
    fn the_fast_path_agrees_with_the_reader_on_every_golden_document() {
        let docs = golden_documents();
        let fast = docs
            .iter()
            .filter(|d| fast::block_head(d).is_some())
            .count();
        for doc in &docs {
            assert_fast_path_is_sound(doc);
        }
        // It exists to be taken: nearly all rendered documents are plain block YAML.
        assert!(
            fast * 10 >= docs.len() * 9,
            "fast path took only {fast} of {} documents",
            docs.len()
        );
    }

    #[test]
    fn the_fast_path_never_accepts_what_the_reader_rejects_under_random_edits() {
        let docs = golden_documents();
        let mut next = random_below(0x9e37_79b9_7f4a_7c15);
        let mut accepted = 0;
        for round in 0..8000 {
            let mut text = docs[next(docs.len())].clone();
            for _ in 0..1 + next(3) {
                let mut at = next(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                match next(4) {
                    0 => text.insert_str(at, NOISE[next(NOISE.len())]),
                    1 if at < text.len() => {
                        let end = (at + 1..=text.len())
                            .find(|&e| text.is_char_boundary(e))
                            .unwrap();
                        text.replace_range(at..end, "");
                    }
                    2 => {
                        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                        text.insert_str(start, if next(2) == 0 { " " } else { "  " });
                    }
                    _ => {
                        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                        if text[start..].starts_with(' ') {
                            text.remove(start);
                        }
                    }
                }
            }
            let _ = round;
            if fast::block_head(&text).is_some() {
                accepted += 1;
            }
            assert_fast_path_is_sound(&text);
        }
        // The edits must leave plenty the fast path still accepts, or this proves nothing.
        assert!(
            accepted > 1000,
            "only {accepted} edited documents reached the fast path"
        );
    }

    /// A document with one value changed: `value` in place of the first `from`.
    fn with_value(text: &str, from: &str, value: &str) -> String {
        assert!(text.contains(from), "{from:?} is not in the document");
        text.replacen(from, value, 1)
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  \
        namespace: prod\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      \
        - args:\n        - -cluster-domain=cluster.local\n        env:\n        - name: ADDR\n          \
        value: dst.svc.cluster.local:8086\n        image: web:1.0\n      volumes:\n      - name: \
        config\n        configMap:\n          data: |\n            domain: cluster.local\n";

    #[test]
    fn a_document_differing_in_values_on_their_own_lines_has_the_reference_shape() {
        let mut shapes = Vec::new();
        let head = scan_manifest_head_and_shapes(DEPLOYMENT, &mut shapes).expect("valid");
        let other = DEPLOYMENT.replace("cluster.local", "c7.example.org");
        let other = with_value(&other, "replicas: 1", "replicas: 3");
        assert!(same_shape(DEPLOYMENT, &shapes, &other));
        assert_eq!(scan_manifest_head(&other).expect("valid"), head);
    }

    #[test]
    fn changed_lines_anywhere_are_found_however_far_apart() {
        let mut shapes = Vec::new();
        scan_manifest_head_and_shapes(DEPLOYMENT, &mut shapes).expect("valid");
        // The first changed line, the last one, and both with unchanged hundreds of bytes between.
        let first = with_value(DEPLOYMENT, "apps/v1", "apps/v2");
        let last = with_value(
            DEPLOYMENT,
            "domain: cluster.local",
            "domain: c9.example.org",
        );
        let both = with_value(&first, "domain: cluster.local", "domain: c9.example.org");
        for other in [&first, &last, &both] {
            assert!(same_shape(DEPLOYMENT, &shapes, other), "{other}");
        }
        // The last line changed and the final line break gone: one line fewer.
        assert!(!same_shape(
            DEPLOYMENT,
            &shapes,
            last.trim_end_matches('\n')
        ));
        // A changed line that is no longer plain text.
        let tabbed = with_value(DEPLOYMENT, "replicas: 1", "replicas: 1\t");
        assert!(!same_shape(DEPLOYMENT, &shapes, &tabbed));
    }

    #[test]
    fn structure_and_head_fields_must_match_the_reference() {
        let mut shapes = Vec::new();
        scan_manifest_head_and_shapes(DEPLOYMENT, &mut shapes).expect("valid");
        for (from, to) in [
            ("name: web", "name: api"),
            ("kind: Deployment", "kind: StatefulSet"),
            ("replicas: 1", "replicas:"),
            ("replicas: 1", "replicas: |"),
            ("replicas: 1", "replicas: a: b"),
            ("replicas: 1", "replicas: [a"),
            ("replicas: 1", "replicas: .nan"),
            ("image: web:1.0", "imag: web:1.0"),
            ("- -cluster-domain", "- key: -cluster-domain"),
            ("- -cluster-domain", "-  -cluster-domain"),
            ("            domain", "           domain"),
            ("\n      volumes", "\n\n      volumes"),
        ] {
            let other = with_value(DEPLOYMENT, from, to);
            assert!(
                !same_shape(DEPLOYMENT, &shapes, &other),
                "{from:?} -> {to:?}"
            );
        }
        assert!(!same_shape(
            DEPLOYMENT,
            &shapes,
            &format!("{DEPLOYMENT}x: 1\n")
        ));
        assert!(!same_shape(DEPLOYMENT, &shapes, DEPLOYMENT.trim_end()));
        assert!(!same_shape(
            DEPLOYMENT,
            &shapes,
            &DEPLOYMENT.replace("1.0", "1.0\t")
        ));
    }

    #[test]
    fn a_document_of_the_reference_shape_passes_the_whole_check_with_its_head() {
        let docs = golden_documents();
        let mut next = random_below(0x2545_f491_4f6c_dd1d);
        let mut same = 0;
        for _ in 0..8_000 {
            let reference = &docs[next(docs.len())];
            let mut shapes = Vec::new();
            let Ok(head) = scan_manifest_head_and_shapes(reference, &mut shapes) else {
                continue;
            };
            let mut text = reference.clone();
            for _ in 0..1 + next(2) {
                let mut at = next(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if next(3) == 0 && at < text.len() {
                    let end = (at + 1..=text.len())
                        .find(|&e| text.is_char_boundary(e))
                        .unwrap();
                    text.replace_range(at..end, "");
                } else {
                    text.insert_str(at, NOISE[next(NOISE.len())]);
                }
            }
            if text != *reference && same_shape(reference, &shapes, &text) {
                same += 1;
                assert_eq!(fast::block_head(&text), Some(head.clone()), "{text}");
                assert_fast_path_is_sound(&text);
            }
        }
        // Edits inside values must often keep the shape, or this proves nothing.
        assert!(same > 800, "only {same} edited documents kept their shape");
    }

    #[test]
    fn the_head_scanner_agrees_with_the_full_reader() {
        for text in HEAD_SAMPLES {
            match (scan_manifest_head(text), head_by_full_reader(text)) {
                (Ok(fast), Ok(full)) => assert_eq!(fast, full, "{text:?}"),
                (Err(_), Err(_)) => {}
                (fast, full) => panic!("{text:?}: scanner {fast:?}, reader {full:?}"),
            }
        }
    }

    #[test]
    fn the_head_scanner_agrees_on_every_golden_control_plane_document() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/golden/control-plane-edge-21.4.4");
        let mut checked = 0;
        for case in std::fs::read_dir(dir).unwrap() {
            let Ok(text) = std::fs::read_to_string(case.unwrap().path().join("expected.yaml"))
            else {
                continue;
            };
            for doc in documents_of(&text) {
                assert_eq!(
                    scan_manifest_head(doc).unwrap(),
                    head_by_full_reader(doc).unwrap()
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} documents checked");
    }

    /// The two passes [`checked_head_events`] stands for, one after the other.
    fn in_two_passes(text: &str) -> Result<Option<ManifestHead>, YamlError> {
        check_keys_given_once(text)?;
        scan_head_events(text)
    }

    /// Blocks of top-level entries that, strung together, make documents the quick line
    /// check leaves to the event passes: keys repeated before and after other findings (a
    /// top-level key used by two blocks repeats too), aliases, merge keys, keys that are
    /// lists, multi-line quoted text, broken syntax, a second document.
    fn block() -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(vec![
            "kind: Pod",
            "kind: Service",
            "metadata:\n  name: a\n  namespace: n",
            "metadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install",
            "metadata:\n  name: a\n  name: b",
            "spec:\n  d: \"one\n    two\"",
            "spec:\n  ? [k]\n  : v",
            "status:\n  ? {k: 1}\n  : v",
            "a: &x {p: 1}\nb: *x",
            "c: *unknown",
            "e:\n  <<: {m: 1}",
            "f: \"bad \\q escape\"",
            "g: [1, 2",
            "h: 'single\n  quoted'",
            "list:\n- a\n- b: 1\n  b: 2",
            "i: .NaN",
            "---\nname: top",
            "z: 1",
        ])
    }

    #[test]
    fn a_key_check_stopped_early_leaves_the_head_to_a_pass_of_its_own() {
        // Each stops the key check before the end (an alias to no anchor, an unclosed list, a
        // bad escape): the outcome is still the two passes'.
        for text in [
            "c: *unknown\n",
            "kind: Pod\ng: [1, 2\n",
            "f: \"bad \\q escape\"\n",
        ] {
            assert_eq!(
                format!("{:?}", checked_head_events(text)),
                format!("{:?}", in_two_passes(text)),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn one_pass_finds_what_the_key_check_and_the_head_scan_found_one_after_the_other(
            blocks in proptest::collection::vec(block(), 1..8)
        ) {
            let text = blocks.join("\n") + "\n";
            proptest::prop_assert_eq!(
                format!("{:?}", checked_head_events(&text)),
                format!("{:?}", in_two_passes(&text)),
                "{}", text
            );
        }
    }
}
