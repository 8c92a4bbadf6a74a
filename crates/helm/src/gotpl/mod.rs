//! The second template front end: charts written as Helm users write them, in Go's
//! `text/template` with Sprig's and Helm's functions, rendered by `meshchart-gotemplate` with
//! Helm 3.17.1's semantics. Everything after the templates (values, documents, order,
//! framing, output) is shared with the Jinja front end.
//!
//! # Which front end a chart gets
//!
//! Decided from the chart's files ([`is_go_template_chart`]):
//!
//! 1. Chart.yaml's annotation `meshchart.io/template-language` (`go` or `jinja`) decides when
//!    present.
//! 2. Otherwise a chart is Go's when one of its templates holds an action only Go's syntax
//!    has: `{{` (or `{{-`) followed by `.`, `$`, `/*`, `define`, `template`, `include "`,
//!    `end`, `if `, `range `, `with ` or `else`. In Jinja each of those is a syntax error
//!    (Jinja refers to `Values.x` without the dot and closes blocks with `{% endif %}`), so no
//!    working Jinja chart has one.
//! 3. Otherwise the chart is ours, Jinja, as before: a chart of static files renders the same
//!    either way.
//!
//! # Why interpret rather than compile to minijinja
//!
//! See `meshchart_gotemplate`'s crate documentation: Go's scoping, truth, nil, error texts and
//! trimming would each need a runtime of our own under minijinja, so the tree is walked
//! directly. A Go template set holds `Rc` values and is not `Send`: each render parses its
//! chart on its own thread, which costs less than a millisecond for the charts measured.

mod certs;
mod clock;
mod crypto;
mod dependencies;
mod derive_password;
mod from_toml;
#[cfg(test)]
mod function_catalogue;
mod go_time;
mod go_time_parse;
mod helm_functions;
mod import_values;
mod mentions;
mod named;
mod objects;
mod random;
mod sprig;

pub use helm_functions::{helm_exec_error, helm_parse_error};
pub use mentions::{keys_templates_mention, subchart_sections};
pub use named::NamedTemplates;
pub use objects::{go_to_tree, values_to_go};

use crate::chart::Chart;
use crate::engine::files::{FileParts, Files};
use crate::engine::{RenderError, RenderOptions};
use crate::manifest::{DocumentReader, RenderedDocument};
use crate::values::Value as Tree;
use meshchart_gotemplate::{Map, MissingKey, Templates, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// The Chart.yaml annotation that names a chart's template language (`go` or `jinja`).
pub const TEMPLATE_LANGUAGE_ANNOTATION: &str = "meshchart.io/template-language";

/// Whether `chart` is written in Go templates (see the module documentation for the rule).
pub fn is_go_template_chart(chart: &Chart) -> bool {
    let declared = chart
        .metadata
        .fields
        .get("annotations")
        .and_then(|a| a.get_path(&[TEMPLATE_LANGUAGE_ANNOTATION]))
        .and_then(|v| v.as_str());
    match declared {
        Some("go") => return true,
        Some("jinja") => return false,
        _ => {}
    }
    *chart
        .go_templates
        .get_or_init(|| chart.templates.iter().any(|t| has_go_only_action(&t.text)))
}

/// `text` without Jinja's comments (`{# ... #}`), raw blocks (`{% raw %}...{% endraw %}`) and
/// statement tags (`{% ... %}`), which may quote Go's syntax (our charts explain, and rewrite,
/// the Go references upstream's values hold).
fn outside_jinja_comments(text: &str) -> String {
    // One pass: each byte is looked at once, so a template of many tags costs its length
    // (searching for the next `{#` and `{%` afresh after every tag was quadratic).
    let bytes = text.as_bytes();
    let mut kept = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        let end_marker = match bytes.get(start + 1) {
            Some(b'#') => "#}",
            Some(b'%') => {
                let opening = &text[start..];
                if opening.starts_with("{% raw %}") || opening.starts_with("{%- raw %}") {
                    "endraw %}"
                } else {
                    "%}"
                }
            }
            _ => {
                from = start + 1;
                continue;
            }
        };
        kept.push_str(&text[copied..start]);
        match text[start + 2..].find(end_marker) {
            Some(end) => {
                from = start + 2 + end + end_marker.len();
                copied = from;
            }
            // An unclosed comment or tag hides the rest of the file.
            None => return kept,
        }
    }
    kept.push_str(&text[copied..]);
    kept
}

/// Whether `text` holds an action only Go's template syntax has, outside Jinja's comments.
fn has_go_only_action(text: &str) -> bool {
    if !text.contains("{{") {
        return false;
    }
    let text = &outside_jinja_comments(text);
    const GO_ONLY: &[&str] = &[
        ".",
        "$",
        "/*",
        "define ",
        "template ",
        "include \"",
        "end",
        "if ",
        "range ",
        "with ",
        "else",
    ];
    text.match_indices("{{").any(|(at, _)| {
        let rest = &text[at + 2..];
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '\t', '\n', '\r']);
        GO_ONLY.iter().any(|start| rest.starts_with(start)) || is_go_call(rest)
    })
}

/// Whether an action starts as a Go function call with space-separated arguments
/// (`required "msg" .Values.x`, `toYaml $v`): a name, spaces, then a string, a variable or a
/// number. Jinja calls take parentheses; a name followed by such a token is a Jinja error.
fn is_go_call(action: &str) -> bool {
    let name_end = action
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(action.len());
    if name_end == 0 {
        return false;
    }
    let after = &action[name_end..];
    let arguments = after.trim_start_matches([' ', '\t']);
    arguments.len() < after.len()
        && arguments.starts_with(|c: char| matches!(c, '"' | '`' | '$') || c.is_ascii_digit())
}

/// Whether a template file is a partial, which Helm parses but does not render.
fn is_partial(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|base| base.starts_with('_'))
}

/// Helm's order for parsing and executing templates: deeper paths first, then names in
/// reverse order (of two `define`s of one name, the one in the file sorting first wins).
fn helm_order(names: &mut [String]) {
    names.sort_by(|a, b| {
        let (da, db) = (a.matches('/').count(), b.matches('/').count());
        db.cmp(&da).then_with(|| b.cmp(a))
    });
}

/// The error for a Go template error in chart `chart_name`'s template `file`, in Helm's words.
fn template_error(file: &str, error: &meshchart_gotemplate::Error, parse: bool) -> RenderError {
    let message = if parse {
        helm_parse_error(error)
    } else {
        helm_exec_error(error)
    };
    RenderError::Template {
        template: file.to_owned(),
        line: None,
        message,
        source_line: None,
        included_from: Vec::new(),
    }
}

/// Renders a Go-template chart with `values` (already coalesced with its defaults) and its
/// enabled subcharts, each template's output read by `reader`; the results in the order of
/// the templates' full names (`chart/charts/sub/templates/...` before `chart/templates/...`),
/// partials left out, each document's template named from the root.
pub fn render(
    chart: &Chart,
    values: &Tree,
    opts: &RenderOptions,
    reader: &DocumentReader,
) -> Result<Vec<Vec<RenderedDocument>>, RenderError> {
    let mut nodes = dependencies::chart_tree(chart, values).map_err(|e| RenderError::Template {
        template: chart.metadata.name.clone(),
        line: None,
        message: e.to_string(),
        source_line: None,
        included_from: Vec::new(),
    })?;
    // A subchart's files are moved into its `.Files`, read only if a template asks; the
    // root's are the caller's, so the few a template may read are copied.
    let files: Vec<objects::FilesObject> = nodes
        .iter_mut()
        .map(|node| match &mut node.chart {
            Cow::Owned(chart) => objects::FilesObject::lazy(FileParts::take_from(chart)),
            Cow::Borrowed(chart) => objects::FilesObject::new(Files::of(chart)),
        })
        .collect();
    let mut set = template_set(chart, opts);
    // Every template of every chart, by full name: (node, path under templates/).
    let mut owner: HashMap<String, (usize, std::sync::Arc<String>)> = HashMap::new();
    for (index, node) in nodes.iter().enumerate() {
        for template in &node.chart.templates {
            let name = format!("{}/templates/{}", node.path, template.path);
            owner.insert(name, (index, template.text.shared()));
        }
    }
    let mut names: Vec<String> = owner.keys().cloned().collect();
    helm_order(&mut names);
    for name in &names {
        set.parse_shared(name, &owner[name].1)
            .map_err(|e| template_error(name, &e, true))?;
    }
    let data: Vec<Value> = nodes
        .iter()
        .zip(files)
        .map(|(node, files)| top_level(&node.chart, &node.values, opts, files))
        .collect();
    // `.Subcharts`: each subchart's own data, under its name, in its parent's.
    for (index, node) in nodes.iter().enumerate() {
        let Some((parent_path, name)) = node.path.rsplit_once("/charts/") else {
            continue;
        };
        let Some(parent) = nodes.iter().position(|n| n.path == parent_path) else {
            continue;
        };
        let subcharts = data[parent].as_map().and_then(|m| {
            m.borrow()
                .get("Subcharts")
                .and_then(|s| s.as_map().cloned())
        });
        if let Some(subcharts) = subcharts {
            subcharts
                .borrow_mut()
                .insert(name.to_owned(), data[index].clone());
        }
    }
    let mut outputs: HashMap<String, String> = HashMap::new();
    for name in names.iter().filter(|n| !is_partial(n)) {
        let (index, _) = owner[name];
        let node_data = &data[index];
        let mut template = Map::new();
        template.insert("Name".into(), Value::from(name.as_str()));
        template.insert(
            "BasePath".into(),
            Value::from(format!("{}/templates", nodes[index].path)),
        );
        if let Some(map) = node_data.as_map() {
            map.borrow_mut()
                .insert("Template".into(), objects::chartutil_values(template));
        }
        let output = set
            .execute(name, node_data)
            .map_err(|e| template_error(name, &e, false))?;
        // Most outputs hold no `<no value>`: those are kept as they are, not copied.
        let output = match output.contains("<no value>") {
            true => output.replace("<no value>", ""),
            false => output,
        };
        outputs.insert(name.clone(), output);
    }
    let mut in_order: Vec<(String, String)> = outputs.into_iter().collect();
    in_order.sort();
    let mut read = Vec::new();
    for (name, output) in in_order {
        let node = &nodes[owner[&name].0];
        let base = format!("{}/templates/", node.path);
        let template = name.strip_prefix(&base).unwrap_or(&name);
        // `chart/charts/sub` frames as `charts/sub/templates/...` under the root's name.
        let prefix = match node.path.split_once('/') {
            Some((_, below_root)) => format!("{below_root}/"),
            None => String::new(),
        };
        let mut documents =
            reader
                .read_as_helm(template, &output)
                .map_err(|problem| RenderError::InvalidYaml {
                    template: name.clone(),
                    template_line: None,
                    template_source_line: None,
                    output_line: problem.line,
                    output_text: output
                        .lines()
                        .nth(problem.line.saturating_sub(1))
                        .map(|l| crate::redact::mask_private_keys(l).into_owned())
                        .unwrap_or_default(),
                    message: problem.message,
                })?;
        for document in &mut documents {
            document.template = format!("{prefix}{}", document.template);
        }
        read.push(documents);
    }
    // See crate::process: a one-shot process leaves the parsed templates to its exit.
    crate::process::release(set);
    crate::process::release(data);
    Ok(read)
}

/// An empty template set as Helm makes one for `chart`: missing keys give zero values, and
/// every function a Go chart can call is there: Helm's, Sprig's, the random ones drawn from a
/// stream seeded by [`random_seed`], and those that read the clock (`SOURCE_DATE_EPOCH`).
fn template_set(chart: &Chart, opts: &RenderOptions) -> Templates {
    let mut set = Templates::new("gotpl");
    set.set_missing_key(MissingKey::Zero);
    register_functions(&mut set, random_seed(chart, opts), epoch_seconds() as i64);
    set
}

/// Adds every function a Go chart can call to `set`: Helm's, Sprig's, the random ones drawn
/// from a stream seeded by `seed`, and those that read the clock, which reads `epoch` (seconds
/// since 1970).
fn register_functions(set: &mut Templates, seed: Vec<u8>, epoch: i64) {
    helm_functions::register(set);
    sprig::register(set);
    let stream = random::register(set, seed);
    crypto::register(set, &stream);
    certs::register(set, stream, epoch);
    clock::register(set, epoch);
    derive_password::register(set);
    from_toml::register(set);
}

/// The seed of the random functions: the render's explicit inputs (`SOURCE_DATE_EPOCH`, 0
/// when unset or unreadable; the release's and the chart's names).
fn random_seed(chart: &Chart, opts: &RenderOptions) -> Vec<u8> {
    let epoch = epoch_seconds();
    format!("{epoch}\0{}\0{}", opts.release_name, chart.metadata.name).into_bytes()
}

/// `SOURCE_DATE_EPOCH` in seconds, 0 when unset or unreadable.
fn epoch_seconds() -> u64 {
    crate::epoch::source_date_epoch_from_env()
        .ok()
        .flatten()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

/// The data every template of the chart sees: `Values`, `Release`, `Chart`, `Capabilities`,
/// `Files`, `Subcharts` (and `Template`, set per template).
fn top_level(
    chart: &Chart,
    values: &Tree,
    opts: &RenderOptions,
    files: objects::FilesObject,
) -> Value {
    let mut release = Map::new();
    release.insert("Name".into(), Value::from(opts.release_name.as_str()));
    release.insert("Namespace".into(), Value::from(opts.namespace.as_str()));
    release.insert("IsInstall".into(), Value::Bool(!opts.is_upgrade));
    release.insert("IsUpgrade".into(), Value::Bool(opts.is_upgrade));
    release.insert("Revision".into(), Value::Int(1));
    release.insert("Service".into(), Value::from("Helm"));
    let values = match values_to_go(values) {
        Value::Map(map) => objects::chartutil_values(map.borrow().clone()),
        _ => objects::chartutil_values(Map::new()),
    };
    let mut api_versions: Vec<String> = objects::HELM_API_VERSIONS
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    api_versions.extend(opts.api_versions.iter().cloned());
    let mut top = Map::new();
    top.insert("Values".into(), values);
    top.insert("Release".into(), Value::map(release));
    top.insert(
        "Chart".into(),
        Value::Object(Rc::new(objects::ChartObject::new(&chart.metadata))),
    );
    top.insert(
        "Capabilities".into(),
        Value::Object(Rc::new(objects::Capabilities::new(
            &opts.kube_version,
            api_versions,
        ))),
    );
    top.insert("Files".into(), Value::Object(Rc::new(files)));
    top.insert("Subcharts".into(), Value::map(Map::new()));
    objects::chartutil_values(top)
}

#[cfg(test)]
mod tests {
    use super::{has_go_only_action, is_go_template_chart};
    use crate::chart::Chart;

    fn chart_with_template(text: &str) -> Chart {
        Chart::of_test_files(&[
            ("Chart.yaml", "apiVersion: v2\nname: t\nversion: 0.1.0\n"),
            ("templates/a.yaml", text),
        ])
    }

    #[test]
    fn a_chart_declared_jinja_is_not_read_for_go_syntax() {
        let chart = chart_with_template("name: {{ .Release.Name }}\n");
        chart.declare_go_templates(false);
        assert!(!is_go_template_chart(&chart));
    }

    #[test]
    fn an_undeclared_chart_is_read_for_go_syntax() {
        let chart = chart_with_template("name: {{ .Release.Name }}\n");
        assert!(is_go_template_chart(&chart));
    }

    #[test]
    fn a_go_field_reference_marks_a_go_template() {
        assert!(has_go_only_action("name: {{ .Release.Name }}\n"));
    }

    #[test]
    fn a_go_call_with_spaced_arguments_marks_a_go_template() {
        assert!(has_go_only_action("tag: {{ required \"tag\" $tag }}\n"));
    }

    #[test]
    fn jinja_expressions_do_not_mark_a_go_template() {
        assert!(!has_go_only_action(
            "name: {{ Release.Name }}\n{% if x %}{{ include(\"a\", b) | indent(2) }}{% endif %}\n"
        ));
    }

    #[test]
    fn go_syntax_in_a_string_of_a_jinja_tag_does_not_mark_a_go_template() {
        assert!(!has_go_only_action(
            "{%- set s = replace(x, \"{{ $\", \"{{ \") %}\nname: {{ Release.Name }}\n"
        ));
    }

    #[test]
    fn go_syntax_quoted_in_a_jinja_comment_does_not_mark_a_go_template() {
        assert!(!has_go_only_action(
            "{#- upstream writes ({{ .Release.Namespace }}) #}\nname: {{ Release.Name }}\n"
        ));
    }
}
