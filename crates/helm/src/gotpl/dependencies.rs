//! Subcharts as Helm 3.17.1 renders them: each enabled subchart (by its Chart.yaml
//! dependency's `condition` and `tags`, renamed by `alias`) renders with its own values, the
//! parent's values under its name coalesced over its defaults, the parent's `global` values
//! passed down, what the chart imports from its subcharts (`import-values`, see
//! `import_values`) below its own values, and its templates named
//! `parent/charts/sub/templates/...`.

use crate::chart::{Chart, ChartError};
use crate::values::{coalesce, Value as Tree};
use crate::yaml::Map as TreeMap;
use std::borrow::Cow;

/// One chart of the tree to render: the root or an enabled subchart.
pub(super) struct Node<'a> {
    /// The chart (renamed when its dependency has an `alias`): the root is the caller's,
    /// not a copy (a chart's files are most of its memory).
    pub chart: Cow<'a, Chart>,
    /// Its path in template names: `parent` or `parent/charts/sub`.
    pub path: String,
    /// Its values, coalesced (what `.Values` is in its templates).
    pub values: Tree,
}

/// One `dependencies` entry of Chart.yaml.
pub(super) struct Dependency {
    pub name: String,
    pub alias: Option<String>,
    condition: Option<String>,
    tags: Vec<String>,
}

pub(super) fn dependencies(chart: &Chart) -> Vec<Dependency> {
    let Some(Tree::Seq(entries)) = chart.metadata.fields.get("dependencies") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let text = |key: &str| {
                entry
                    .get_path(&[key])
                    .and_then(Tree::as_str)
                    .map(str::to_owned)
            };
            let tags = match entry.get_path(&["tags"]) {
                Some(Tree::Seq(tags)) => tags
                    .iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            Some(Dependency {
                name: text("name")?,
                alias: text("alias").filter(|a| !a.is_empty()),
                condition: text("condition").filter(|c| !c.is_empty()),
                tags,
            })
        })
        .collect()
}

/// Whether a dependency is enabled, as Helm decides: the first of its `condition` paths
/// that holds a bool in the parent's values decides; else its tags (enabled when any is true
/// in the top-level `tags`, disabled when all found are false); else enabled.
pub(super) fn enabled(
    dependency: &Dependency,
    parent_values: &Tree,
    top_tags: Option<&Tree>,
) -> bool {
    if let Some(condition) = &dependency.condition {
        for path in condition.split(',').map(str::trim) {
            let keys: Vec<&str> = path.split('.').collect();
            if let Some(Tree::Bool(b)) = parent_values.get_path(&keys) {
                return *b;
            }
        }
    }
    let found: Vec<bool> = dependency
        .tags
        .iter()
        .filter_map(
            |tag| match top_tags.and_then(|t| t.get_path(&[tag.as_str()])) {
                Some(Tree::Bool(b)) => Some(*b),
                _ => None,
            },
        )
        .collect();
    found.is_empty() || found.iter().any(|b| *b)
}

/// The parent's `global` values over the subchart's own (`sub`): the parent's win, maps
/// merging key by key.
fn pass_globals(sub: &mut TreeMap, parent: &Tree) {
    let parent_globals = match parent.get_path(&["global"]) {
        Some(Tree::Map(globals)) => globals.clone(),
        _ => TreeMap::new(),
    };
    let own = match sub.remove("global") {
        Some(Tree::Map(own)) => own,
        _ => TreeMap::new(),
    };
    let mut warnings = Vec::new();
    let merged = coalesce(&Tree::Map(own), Tree::Map(parent_globals), &mut warnings);
    sub.insert("global".into(), merged);
}

/// The chart tree of `root` with `values` (the root's, coalesced): the root first, then each
/// enabled subchart after its parent; each parent's values hold its subcharts' coalesced
/// values under their names, as Helm's do.
pub(super) fn chart_tree<'a>(root: &'a Chart, values: &Tree) -> Result<Vec<Node<'a>>, ChartError> {
    let mut nodes = Vec::new();
    let top_tags = values.get_path(&["tags"]).cloned();
    let mut root_values = values.clone();
    collect(
        Cow::Borrowed(root),
        root.metadata.name.clone(),
        &mut root_values,
        top_tags.as_ref(),
        &mut nodes,
        0,
    )?;
    Ok(nodes)
}

/// How deep subcharts may nest (a chart archive holding itself would never end).
pub(super) const MAX_DEPTH: usize = 20;

fn collect<'a>(
    chart: Cow<'a, Chart>,
    path: String,
    values: &mut Tree,
    top_tags: Option<&Tree>,
    nodes: &mut Vec<Node<'a>>,
    depth: usize,
) -> Result<(), ChartError> {
    let index = nodes.len();
    let subcharts = if depth < MAX_DEPTH {
        chart.load_subcharts()?
    } else {
        Vec::new()
    };
    let declared = dependencies(&chart);
    // What the chart imports from its subcharts fills what its values leave unset (see
    // import_values), before its subcharts are given their sections.
    let imported = super::import_values::imported(&chart, values, top_tags, depth)?;
    if let Tree::Map(map) = values {
        super::import_values::merge_missing(map, &imported);
    }
    nodes.push(Node {
        chart,
        path: path.clone(),
        values: Tree::Null,
    });
    for sub in subcharts {
        let matching: Vec<&Dependency> = declared
            .iter()
            .filter(|d| d.name == sub.metadata.name)
            .collect();
        let uses: Vec<(String, bool)> = if matching.is_empty() {
            vec![(sub.metadata.name.clone(), true)]
        } else {
            matching
                .iter()
                .map(|d| {
                    let name = d.alias.clone().unwrap_or_else(|| d.name.clone());
                    (name, enabled(d, values, top_tags))
                })
                .collect()
        };
        let enabled_names: Vec<String> = uses
            .into_iter()
            .filter_map(|(name, on)| on.then_some(name))
            .collect();
        // The last use takes the loaded chart; only a chart used under several aliases is
        // copied.
        let mut remaining = enabled_names.len();
        let mut sub = Some(sub);
        for name in enabled_names {
            remaining -= 1;
            let loaded = if remaining == 0 {
                sub.take()
            } else {
                sub.clone()
            };
            let Some(mut sub_chart) = loaded else {
                break;
            };
            sub_chart.metadata.name = name.clone();
            sub_chart
                .metadata
                .fields
                .insert("name".into(), Tree::String(name.clone()));
            let mut given = match values.get_path(&[name.as_str()]) {
                Some(Tree::Map(map)) => map.clone(),
                _ => TreeMap::new(),
            };
            pass_globals(&mut given, values);
            let mut warnings = Vec::new();
            let mut sub_values = coalesce(
                sub_chart.default_values_read()?,
                Tree::Map(given),
                &mut warnings,
            );
            let sub_path = format!("{path}/charts/{name}");
            collect(
                Cow::Owned(sub_chart),
                sub_path,
                &mut sub_values,
                top_tags,
                nodes,
                depth + 1,
            )?;
            if let Tree::Map(map) = values {
                map.insert(name, sub_values);
            }
        }
    }
    nodes[index].values = values.clone();
    Ok(())
}
