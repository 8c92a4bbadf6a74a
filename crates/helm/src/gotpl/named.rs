//! One named template (a `define`) of a Go-template chart, rendered on its own with values the
//! caller gives, as a template of another chart would `include` it. This is how a tool uses a
//! chart's library partials outside a release: Linkerd's CLI renders its control-plane chart's
//! proxy partials into each workload it injects, with values made for that workload.
//!
//! The chart's templates (and its subcharts', as [`super::render`] reads them) are parsed once
//! when [`NamedTemplates`] is made, which reports any that do not parse. A parsed set holds
//! `Rc` values and cannot cross threads, so each thread that renders parses its own copy the
//! first time and keeps it ([`COMPILED_PER_THREAD`] sets at most).

use super::{dependencies, objects, template_error, template_set, top_level, values_to_go};
use crate::chart::Chart;
use crate::engine::files::Files;
use crate::engine::{RenderError, RenderOptions};
use crate::values::Value as Tree;
use meshchart_gotemplate::{Map, Templates, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many charts' parsed sets one thread keeps (a process rarely renders more than one).
const COMPILED_PER_THREAD: usize = 4;

/// Tells the sets of different [`NamedTemplates`] apart in the threads' caches.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's parsed sets, by [`NamedTemplates::id`], the most recent last.
    static COMPILED: RefCell<Vec<(u64, Compiled)>> = const { RefCell::new(Vec::new()) };
}

/// One thread's copy of a chart's templates, and the top-level objects every render shares
/// (`.Chart`, `.Files`, `.Release`, `.Capabilities`): made once, as `.Files` copies the chart.
#[derive(Clone)]
struct Compiled {
    set: Rc<Templates>,
    top: Map,
}

/// A Go-template chart's named templates, ready to render one at a time.
pub struct NamedTemplates {
    /// The root chart, for `.Chart` and `.Files`.
    root: Chart,
    /// Every template file of the chart tree, by full name (`chart/charts/sub/templates/x`),
    /// in Helm's parse order.
    files: Vec<(String, std::sync::Arc<String>)>,
    /// The names of every template the files define, and the files themselves.
    names: BTreeSet<String>,
    options: RenderOptions,
    id: u64,
}

impl NamedTemplates {
    /// Reads `chart`'s templates and its enabled subcharts' (with the chart's default values
    /// deciding which are enabled), to render with `options` (`.Release`, `.Capabilities`).
    /// A template that does not parse is an error naming it.
    pub fn new(chart: &Chart, options: RenderOptions) -> Result<NamedTemplates, RenderError> {
        let chart_error = |message: String| RenderError::Template {
            template: chart.metadata.name.clone(),
            line: None,
            message,
            source_line: None,
            included_from: Vec::new(),
        };
        let defaults = chart
            .default_values_read()
            .map_err(|e| chart_error(e.to_string()))?;
        let nodes =
            dependencies::chart_tree(chart, defaults).map_err(|e| chart_error(e.to_string()))?;
        let mut files: Vec<(String, std::sync::Arc<String>)> = nodes
            .iter()
            .flat_map(|node| {
                node.chart.templates.iter().map(|template| {
                    (
                        format!("{}/templates/{}", node.path, template.path),
                        template.text.shared(),
                    )
                })
            })
            .collect();
        let mut order: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
        super::helm_order(&mut order);
        files.sort_by_key(|(name, _)| order.iter().position(|n| n == name));
        let mut named = NamedTemplates {
            root: chart.clone(),
            files,
            names: BTreeSet::new(),
            options,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        };
        let compiled = named.compile()?;
        named.names = compiled
            .set
            .template_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        remember(named.id, compiled);
        Ok(named)
    }

    /// Whether a template of the chart (or a file) has this name.
    pub fn defines(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether the text of any of the chart's templates holds `needle`.
    pub fn any_template_mentions(&self, needle: &str) -> bool {
        self.files.iter().any(|(_, text)| text.contains(needle))
    }

    /// The root chart.
    pub fn chart(&self) -> &Chart {
        &self.root
    }

    /// Renders the template `name` with `values` as `.Values` (and the root chart's `.Chart`,
    /// `.Files`, and the options' `.Release` and `.Capabilities`), as `include "name" .` would
    /// in a template of the root chart. A missing value prints as nothing, as in Helm's output.
    pub fn render(&self, name: &str, values: &Tree) -> Result<String, RenderError> {
        let compiled = self.compiled()?;
        let mut top = compiled.top;
        let values = match values_to_go(values) {
            Value::Map(map) => map.borrow().clone(),
            _ => Map::new(),
        };
        top.insert("Values".into(), objects::chartutil_values(values));
        let mut template = Map::new();
        template.insert("Name".into(), Value::from(name));
        template.insert(
            "BasePath".into(),
            Value::from(format!("{}/templates", self.root.metadata.name)),
        );
        top.insert("Template".into(), objects::chartutil_values(template));
        let output = compiled
            .set
            .execute(name, &objects::chartutil_values(top))
            .map_err(|e| template_error(name, &e, false))?;
        Ok(output.replace("<no value>", ""))
    }

    /// This thread's copy, made now if the thread has none.
    fn compiled(&self) -> Result<Compiled, RenderError> {
        let found = COMPILED.with(|sets| {
            let sets = sets.borrow();
            sets.iter()
                .find(|(id, _)| *id == self.id)
                .map(|(_, compiled)| compiled.clone())
        });
        if let Some(compiled) = found {
            return Ok(compiled);
        }
        let compiled = self.compile()?;
        remember(self.id, compiled.clone());
        Ok(compiled)
    }

    fn compile(&self) -> Result<Compiled, RenderError> {
        let mut set = template_set(&self.root, &self.options);
        for (name, text) in &self.files {
            set.parse_shared(name, text)
                .map_err(|e| template_error(name, &e, true))?;
        }
        let files = objects::FilesObject::new(Files::of(&self.root));
        let top = top_level(&self.root, &Tree::Null, &self.options, files)
            .as_map()
            .map(|map| map.borrow().clone())
            .unwrap_or_default();
        Ok(Compiled {
            set: Rc::new(set),
            top,
        })
    }
}

/// Keeps `compiled` as this thread's copy of [`NamedTemplates`] `id`, forgetting the oldest
/// past [`COMPILED_PER_THREAD`].
fn remember(id: u64, compiled: Compiled) {
    COMPILED.with(|sets| {
        let mut sets = sets.borrow_mut();
        sets.retain(|(kept, _)| *kept != id);
        if sets.len() >= COMPILED_PER_THREAD {
            sets.remove(0);
        }
        sets.push((id, compiled));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{Chart, ChartFile};

    fn chart(files: &[(&str, &str)]) -> Chart {
        let file = |path: &str, text: &str| ChartFile {
            path: path.to_owned(),
            text: text.into(),
        };
        let mut all = vec![file(
            "Chart.yaml",
            "apiVersion: v2\nname: lib-user\nversion: 1.0.0\n",
        )];
        all.extend(files.iter().map(|(p, t)| file(p, t)));
        Chart::from_files("test", all).expect("chart loads")
    }

    fn values(text: &str) -> Tree {
        crate::yaml::parse_document(text).expect("values parse")
    }

    #[test]
    fn a_define_renders_with_the_given_values_and_release() {
        let chart = chart(&[(
            "templates/_parts.tpl",
            "{{ define \"part\" }}name: {{ .Values.name }}\nns: {{ .Release.Namespace }}{{ end }}",
        )]);
        let options = RenderOptions {
            namespace: "mesh".into(),
            ..RenderOptions::default()
        };
        let named = NamedTemplates::new(&chart, options).expect("parses");
        assert!(named.defines("part"));
        let out = named.render("part", &values("name: web\n")).unwrap();
        assert_eq!(out, "name: web\nns: mesh");
    }

    #[test]
    fn a_missing_value_prints_as_nothing() {
        let chart = chart(&[(
            "templates/_parts.tpl",
            "{{ define \"part\" }}[{{ .Values.absent }}]{{ end }}",
        )]);
        let named = NamedTemplates::new(&chart, RenderOptions::default()).unwrap();
        assert_eq!(named.render("part", &values("{}\n")).unwrap(), "[]");
    }

    #[test]
    fn a_template_that_does_not_parse_is_named() {
        let chart = chart(&[("templates/_broken.tpl", "{{ define \"part\" }}{{ if }}")]);
        let error = NamedTemplates::new(&chart, RenderOptions::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(error.contains("lib-user/templates/_broken.tpl"), "{error}");
    }

    #[test]
    fn an_undefined_name_is_an_error_naming_it() {
        let chart = chart(&[("templates/_parts.tpl", "{{ define \"part\" }}x{{ end }}")]);
        let named = NamedTemplates::new(&chart, RenderOptions::default()).unwrap();
        assert!(!named.defines("other"));
        let error = named.render("other", &values("{}\n")).unwrap_err();
        assert!(error.to_string().contains("other"), "{error}");
    }

    #[test]
    fn each_thread_renders_with_its_own_parsed_set() {
        let chart = chart(&[(
            "templates/_parts.tpl",
            "{{ define \"part\" }}{{ .Values.count }}{{ end }}",
        )]);
        let named = NamedTemplates::new(&chart, RenderOptions::default()).unwrap();
        let from_other = std::thread::scope(|s| {
            s.spawn(|| named.render("part", &values("count: 2\n")).unwrap())
                .join()
                .unwrap()
        });
        assert_eq!(from_other, "2");
        assert_eq!(named.render("part", &values("count: 1\n")).unwrap(), "1");
    }
}
