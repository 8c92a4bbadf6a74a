//! Rendered manifests: splitting a template's output into documents and checking each one
//! ([`DocumentReader`], which the engine hands each template's output), Helm's install order,
//! `--show-only` ([`assemble`]), and the framing `helm template` prints.

mod checked;
mod reader;
mod repeated_metadata;

pub use reader::{assemble, render, render_with_a_helper, DocumentReader};
pub use repeated_metadata::later_labels_and_annotations_win;

use std::fmt;

/// Helm 3.17.1's install order, as observed (kinds not listed sort after these, alphabetically).
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
];

/// Hook names Helm accepts in `helm.sh/hook`.
pub const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// A document's place in Helm's order: listed kinds by index, then unknown kinds by name.
pub fn kind_rank(kind: &str) -> (usize, &str) {
    match INSTALL_ORDER.iter().position(|k| *k == kind) {
        Some(i) => (i, ""),
        None => (INSTALL_ORDER.len(), kind),
    }
}

/// Go's `\s`: ASCII space, tab, newline, form feed, carriage return (not vertical tab).
fn is_go_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')
}

/// The byte ranges Helm's separator `(?:^|\s*\n)---\s*` (Go's regexp, leftmost first) matches
/// in `text`, in order: `---` at the very start or right after a newline, with the whitespace
/// run before that newline and all whitespace after the dashes. A hand scan rather than a regex:
/// compiling one was a twentieth of a whole render.
fn separators(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let finder = memchr::memmem::Finder::new(b"\n---");
    let mut from = 0;
    std::iter::from_fn(move || {
        let (start, dashes) = if from == 0 && bytes.starts_with(b"---") {
            (0, 0)
        } else {
            let newline = from + finder.find(&bytes[from..])?;
            let mut start = newline;
            while start > from && is_go_space(bytes[start - 1]) {
                start -= 1;
            }
            (start, newline + 1)
        };
        let mut end = dashes + 3;
        while end < bytes.len() && is_go_space(bytes[end]) {
            end += 1;
        }
        from = end;
        Some((start, end))
    })
}

/// One document of a template's output, with where it starts in that output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentSlice<'a> {
    /// The trimmed document text.
    pub text: &'a str,
    /// Byte offset of `text` in the template's whole output.
    pub offset: usize,
}

/// Splits a template's output into trimmed, non-empty documents, as Helm does, except that a
/// document opening with a literal `---` line (two separators touching) loses it.
pub fn split_documents(output: &str) -> Vec<DocumentSlice<'_>> {
    split_at_separators(output, true)
}

/// Splits a template's output exactly as Helm does: where two separators touch, the second
/// stays at the start of the next document (`---\n---\na: 1` gives the document
/// `---\na: 1`), for Go charts, whose output matches Helm's byte for byte.
pub fn split_documents_as_helm(output: &str) -> Vec<DocumentSlice<'_>> {
    split_at_separators(output, false)
}

fn split_at_separators(output: &str, drop_touching: bool) -> Vec<DocumentSlice<'_>> {
    let trimmed = output.trim();
    let base = output.len() - output.trim_start().len();
    let mut documents = Vec::new();
    let mut start = 0;
    let mut push = |from: usize, to: usize| {
        let mut piece = &trimmed[from..to];
        // Helm keeps a literal `---` line when two separators touch; we drop it (engine.md 3.2).
        while let Some(rest) = piece.trim_start().strip_prefix("---") {
            if !drop_touching {
                break;
            }
            piece = rest;
        }
        let from = to - piece.len();
        let piece = &trimmed[from..to];
        let text = piece.trim();
        if !text.is_empty() {
            let lead = piece.len() - piece.trim_start().len();
            documents.push(DocumentSlice {
                text,
                offset: base + from + lead,
            });
        }
    };
    for (from, to) in separators(trimmed) {
        push(start, from);
        start = to;
    }
    push(start, trimmed.len());
    documents
}

pub use crate::yaml::line_of;

/// One emitted document.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedDocument {
    /// The template it came from, relative to the chart root (`templates/identity.yaml`).
    pub template: String,
    /// The document text, trimmed.
    pub text: String,
    /// Its `kind` (empty when it has none).
    pub kind: String,
    /// Its `metadata.name` (empty when it has none).
    pub name: String,
    /// Its `metadata.namespace` (empty when it has none).
    pub namespace: String,
    /// Its `helm.sh/hook` events when it is a Helm hook (hooks print after everything else).
    pub hook: Option<String>,
}

/// The result of rendering a chart: documents in Helm's order, and notes for stderr.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The chart's name (first part of `# Source:` lines).
    pub chart_name: String,
    /// Documents in output order.
    pub documents: Vec<RenderedDocument>,
    /// Informational messages (dropped hooks and the like).
    pub notes: Vec<String>,
}

impl fmt::Display for RenderedDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({})", self.kind, self.name, self.template)
    }
}

impl Rendered {
    /// The multi-document stream `helm template` prints.
    pub fn to_stream(&self) -> String {
        // Sized exactly: a buffer that doubles copies the whole stream, and its fresh pages
        // fault again.
        let mut out = String::with_capacity(
            self.documents
                .iter()
                .flat_map(|doc| framed(&self.chart_name, doc))
                .map(str::len)
                .sum::<usize>()
                .max(EMPTY_STREAM.len()),
        );
        for doc in &self.documents {
            out.extend(framed(&self.chart_name, doc));
        }
        if self.documents.is_empty() {
            out.push_str(EMPTY_STREAM);
        }
        out
    }

    /// Writes [`Rendered::to_stream`]'s text to `out` a document at a time, without building
    /// it: a CRD chart's stream is a quarter of a megabyte, a block of fresh memory to fault in.
    pub fn write_stream(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for doc in &self.documents {
            for piece in framed(&self.chart_name, doc) {
                out.write_all(piece.as_bytes())?;
            }
        }
        if self.documents.is_empty() {
            out.write_all(EMPTY_STREAM.as_bytes())?;
        }
        Ok(())
    }

    /// One file per template, as `--output-dir` writes them: (path under the dir, contents).
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = Vec::new();
        for doc in &self.documents {
            let path = format!("{}/{}", self.chart_name, doc.template);
            let index = match files.iter().position(|(p, _)| *p == path) {
                Some(i) => i,
                None => {
                    files.push((path, String::new()));
                    files.len() - 1
                }
            };
            files[index].1.extend(framed(&self.chart_name, doc));
        }
        files
    }
}

/// What `helm template` prints for a render without documents.
const EMPTY_STREAM: &str = "\n";

/// Document `doc` of chart `chart_name` as `helm template` frames it, in pieces: the
/// separator, the `# Source:` line, the text and its newline.
fn framed<'d>(chart_name: &'d str, doc: &'d RenderedDocument) -> [&'d str; 7] {
    [
        "---\n# Source: ",
        chart_name,
        "/",
        &doc.template,
        "\n",
        &doc.text,
        "\n",
    ]
}

/// A render's documents (in template order) as `helm template` prints them: the others in
/// install order, then the hooks in install order; a hook none of whose events Helm knows is
/// dropped, with a note saying so.
pub fn in_helm_order(documents: Vec<RenderedDocument>) -> (Vec<RenderedDocument>, Vec<String>) {
    let mut regular = Vec::new();
    let mut hooks = Vec::new();
    let mut notes = Vec::new();
    for doc in documents {
        match &doc.hook {
            Some(events) if !is_known_hook(events) => notes.push(format!(
                "info: skipping unknown hook: {events:?} ({} {})",
                doc.kind, doc.name
            )),
            Some(_) => hooks.push(doc),
            None => regular.push(doc),
        }
    }
    let mut ordered = in_install_order(regular);
    ordered.extend(in_install_order(hooks));
    (ordered, notes)
}

/// Whether any of a hook's comma-separated events is one Helm knows (it drops the others).
fn is_known_hook(events: &str) -> bool {
    events
        .split(',')
        .map(str::trim)
        .any(|e| HOOK_EVENTS.contains(&e))
}

/// Documents in Helm's install order: listed kinds by their place, then unknown kinds by name;
/// documents of one kind keep their order (the templates' order, then their own).
pub fn in_install_order(mut documents: Vec<RenderedDocument>) -> Vec<RenderedDocument> {
    // Each document's rank found once (a rank is a search of Helm's kind list); unknown kinds
    // keep their name, to sort by it after the known ones.
    documents.sort_by_cached_key(|doc| {
        let (place, unknown) = kind_rank(&doc.kind);
        (place, unknown.to_owned())
    });
    documents
}

/// The documents of the templates `patterns` name (`--show-only`; all of them when there is
/// none). A pattern that matches no document is the error.
pub fn show_only(
    documents: Vec<RenderedDocument>,
    patterns: &[String],
) -> Result<Vec<RenderedDocument>, String> {
    if patterns.is_empty() {
        return Ok(documents);
    }
    if let Some(unmatched) = patterns
        .iter()
        .find(|pattern| !documents.iter().any(|d| glob_match(pattern, &d.template)))
    {
        return Err(unmatched.clone());
    }
    Ok(documents
        .into_iter()
        .filter(|d| patterns.iter().any(|p| glob_match(p, &d.template)))
        .collect())
}

/// Whether `text` (a template's path) matches `pattern` as Go's `filepath.Match` has it, which
/// Helm's `--show-only` uses: `*` any run of characters within one path segment, `?` one
/// character but `/`, `[sd]`, `[a-z]` and `[^x]` one character of a class (`/` too; only `^`
/// negates: a `!` is itself), `\` takes the next character as it is (`\*` is a star); anything else
/// itself. A pattern Go refuses (an unclosed `[`, an empty class, a range missing an end, a
/// trailing `\`) matches nothing, as in Helm.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    match glob_tokens(pattern) {
        Some(tokens) => {
            let text: Vec<char> = text.chars().collect();
            tokens_match(&tokens, &text)
        }
        None => false,
    }
}

/// One element of a `--show-only` pattern.
#[derive(Debug, PartialEq)]
enum GlobToken {
    /// `*`.
    Star,
    /// `?`.
    AnyOne,
    /// A character, itself.
    Literal(char),
    /// `[...]`: inclusive ranges (a single character is a range of one), maybe negated.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// The pattern's tokens, or `None` when Go's `filepath.Match` would call it malformed.
fn glob_tokens(pattern: &str) -> Option<Vec<GlobToken>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    // A class member: a character other than `-` and `]`, or one escaped by `\`; the class
    // must go on after it (it is closed later).
    let member = |i: &mut usize| -> Option<char> {
        let mut c = *chars.get(*i)?;
        if c == '-' || c == ']' {
            return None;
        }
        if c == '\\' {
            *i += 1;
            c = *chars.get(*i)?;
        }
        *i += 1;
        (*i < chars.len()).then_some(c)
    };
    while i < chars.len() {
        match chars[i] {
            '*' => tokens.push(GlobToken::Star),
            '?' => tokens.push(GlobToken::AnyOne),
            '\\' => {
                i += 1;
                tokens.push(GlobToken::Literal(*chars.get(i)?));
            }
            '[' => {
                i += 1;
                let negated = chars.get(i) == Some(&'^');
                if negated {
                    i += 1;
                }
                let mut ranges = Vec::new();
                loop {
                    if chars.get(i) == Some(&']') && !ranges.is_empty() {
                        break;
                    }
                    let low = member(&mut i)?;
                    let high = match chars.get(i) {
                        Some('-') => {
                            i += 1;
                            member(&mut i)?
                        }
                        _ => low,
                    };
                    ranges.push((low, high));
                }
                tokens.push(GlobToken::Class { negated, ranges });
            }
            c => tokens.push(GlobToken::Literal(c)),
        }
        i += 1;
    }
    Some(tokens)
}

fn tokens_match(tokens: &[GlobToken], text: &[char]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    let one = |accepts: bool| accepts && tokens_match(rest, &text[1..]);
    match (first, text.first()) {
        (GlobToken::Star, _) => (0..=text.len())
            .take_while(|&i| i == 0 || text[i - 1] != '/')
            .any(|i| tokens_match(rest, &text[i..])),
        (_, None) => false,
        (GlobToken::AnyOne, Some(&c)) => one(c != '/'),
        (GlobToken::Literal(l), Some(&c)) => one(*l == c),
        (GlobToken::Class { negated, ranges }, Some(&c)) => {
            let inside = ranges.iter().any(|&(low, high)| low <= c && c <= high);
            // Unlike `?` and `*`, Go's class can match the separator.
            one(inside != *negated)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        split_documents(s).into_iter().map(|d| d.text).collect()
    }

    fn document(template: &str, text: &str) -> RenderedDocument {
        RenderedDocument {
            template: template.to_owned(),
            text: text.to_owned(),
            kind: String::new(),
            name: String::new(),
            namespace: String::new(),
            hook: None,
        }
    }

    #[test]
    fn the_stream_is_written_into_one_buffer_of_exactly_its_length() {
        let rendered = Rendered {
            chart_name: "linkerd-crds".to_owned(),
            documents: vec![
                document(
                    "templates/a-rather-long-template-name/for-the-source-line.yaml",
                    "a: 1",
                ),
                document("templates/b.yaml", "b: 2"),
            ],
            notes: Vec::new(),
        };
        let stream = rendered.to_stream();
        assert_eq!(stream.capacity(), stream.len());
        assert!(stream.ends_with("# Source: linkerd-crds/templates/b.yaml\nb: 2\n"));
    }

    #[test]
    fn the_stream_written_a_document_at_a_time_is_the_stream_built_whole() {
        let mut rendered = Rendered {
            chart_name: "c".to_owned(),
            documents: vec![
                document("templates/a.yaml", "a: 1"),
                document("templates/b.yaml", "b: {}\n# c"),
            ],
            notes: Vec::new(),
        };
        for _ in 0..2 {
            let mut written = Vec::new();
            rendered.write_stream(&mut written).expect("written");
            assert_eq!(
                String::from_utf8(written).expect("text"),
                rendered.to_stream()
            );
            rendered.documents.clear();
        }
    }

    #[test]
    fn show_only_character_classes_match_one_character_of_the_class() {
        assert!(glob_match("templates/[sd]*.yaml", "templates/service.yaml"));
        assert!(glob_match(
            "templates/[sd]*.yaml",
            "templates/deployment.yaml"
        ));
        assert!(!glob_match(
            "templates/[sd]*.yaml",
            "templates/configmap.yaml"
        ));
        assert!(glob_match(
            "templates/[a-c]*.yaml",
            "templates/configmap.yaml"
        ));
        assert!(glob_match("templates/[^c]*.yaml", "templates/service.yaml"));
        assert!(!glob_match(
            "templates/[^c]*.yaml",
            "templates/configmap.yaml"
        ));
    }

    #[test]
    fn show_only_reads_a_bang_in_a_class_as_itself_as_go_does() {
        assert!(glob_match("templates/[!s]*.yaml", "templates/service.yaml"));
        assert!(glob_match("templates/[!s]x", "templates/!x"));
        assert!(!glob_match("templates/[!s]*.yaml", "templates/deploy.yaml"));
    }

    #[test]
    fn show_only_takes_a_backslash_escape_as_go_does() {
        assert!(glob_match(
            "templates/\\secret.yaml",
            "templates/secret.yaml"
        ));
        assert!(glob_match("templates/a\\*b", "templates/a*b"));
        assert!(!glob_match("templates/a\\*b", "templates/axb"));
        assert!(glob_match("templates/[\\]]x", "templates/]x"));
    }

    #[test]
    fn a_pattern_go_refuses_matches_nothing_as_in_helm() {
        for pattern in [
            "templates/[x.yaml",
            "templates/[]]x",
            "templates/[s-]ervice.yaml",
            "templates/[-s]ervice.yaml",
            "templates/se[a-z-]ret.yaml",
            "templates/x\\",
            "templates/[",
        ] {
            for text in [
                "templates/[x.yaml",
                "templates/service.yaml",
                "templates/secret.yaml",
            ] {
                assert!(!glob_match(pattern, text), "{pattern} matched {text}");
            }
        }
    }

    #[test]
    fn show_only_star_and_question_mark_stay_within_a_segment_and_a_class_need_not() {
        assert!(!glob_match("*", "templates/a.yaml"));
        assert!(glob_match("*/a.yaml", "templates/a.yaml"));
        assert!(!glob_match("templates?a.yaml", "templates/a.yaml"));
        // A class is no wildcard: Go lets it match the separator.
        assert!(glob_match("templates[/]a.yaml", "templates/a.yaml"));
        assert!(glob_match("templates[^x]a.yaml", "templates/a.yaml"));
    }

    #[test]
    fn documents_split_on_dashes_at_line_start() {
        assert_eq!(texts("a: 1\n---\nb: 2\n"), ["a: 1", "b: 2"]);
    }

    #[test]
    fn dashes_need_no_newline_after_them() {
        assert_eq!(texts("a: 3\n---b: 4"), ["a: 3", "b: 4"]);
    }

    #[test]
    fn dashes_inside_a_value_do_not_split() {
        assert_eq!(texts("x: \"---\"\n"), ["x: \"---\""]);
    }

    #[test]
    fn a_comment_after_the_separator_starts_the_document() {
        assert_eq!(texts("--- # comment\na: 2"), ["# comment\na: 2"]);
    }

    #[test]
    fn empty_documents_are_dropped() {
        assert_eq!(texts("---\n\n---\n  \n"), Vec::<&str>::new());
        assert_eq!(texts("a: 1\n---\n---\nb: 2"), ["a: 1", "b: 2"]);
    }

    #[test]
    fn offsets_point_at_each_document() {
        let out = "\n\nfirst: 1\n---\nsecond: 2\n";
        for d in split_documents(out) {
            assert_eq!(&out[d.offset..d.offset + d.text.len()], d.text);
        }
    }

    #[test]
    fn only_go_whitespace_belongs_to_a_separator() {
        // Go's `\s` has no vertical tab and nothing beyond ASCII; the pieces are trimmed later.
        let text = "a: 1\x0b \n---\u{a0}b: 2";
        assert_eq!(separators(text).collect::<Vec<_>>(), [(5, 10)]);
    }

    proptest::proptest! {
        #[test]
        fn the_separator_scan_matches_helms_regex(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["-", "---", "\n", " ", "\t", "\r", "\x0b", "\x0c", "a", "\u{a0}"]),
                0..40,
            )
        ) {
            let text: String = pieces.concat();
            // Go's regexp is leftmost-first like Rust's; `(?-u:\s)` would add \x0b, so spell it.
            let go = regex::Regex::new(r"(?:^|[\t\n\x0c\r ]*\n)---[\t\n\x0c\r ]*").expect("regex");
            let expected: Vec<(usize, usize)> =
                go.find_iter(&text).map(|m| (m.start(), m.end())).collect();
            proptest::prop_assert_eq!(separators(&text).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn unknown_kinds_sort_after_known_ones_by_name() {
        assert!(kind_rank("APIService") < kind_rank(""));
        assert!(kind_rank("") < kind_rank("MutatingWebhookConfiguration"));
        assert!(kind_rank("Namespace") < kind_rank("ServiceAccount"));
    }
}
