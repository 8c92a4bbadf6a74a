//! `import-values` of Chart.yaml's dependencies, as Helm 3.17.1 applies them
//! (`chartutil.processDependencyImportValues`, with `helm template`'s merge semantics).
//!
//! Each entry of a dependency's `import-values` copies a table of the subchart's values into
//! the parent's:
//!
//! - a string `NAME` takes the subchart's `exports.NAME` table and puts its keys at the top
//!   of the parent's values;
//! - a map `{child: PATH, parent: PATH}` takes the table at `child` (dotted) and puts it at
//!   `parent` (dotted; `.` is the top).
//!
//! The tables are read from the subchart's defaults as its parent's defaults see them (the
//! subchart's values.yaml under the parent's section for it, and whatever the subchart
//! imported from its own subcharts first): the user's values do not reach them. The imported
//! keys rank below the parent's own values: they fill only what the parent's values.yaml (and
//! then the user) leave unset, and of two imports giving one key the one listed first wins.
//! A path that names no table is skipped (Helm logs a warning).

use super::dependencies::{enabled, MAX_DEPTH};
use super::objects::{go_to_tree, result_to_go};
use crate::chart::{Chart, ChartError};
use crate::values::{coalesce, Value as Tree};
use crate::yaml::Map as TreeMap;
use meshchart_gotemplate::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// One `import-values` entry: the subchart's table and where it goes in the parent's values.
struct Import {
    child: String,
    parent: String,
}

/// A dependency that imports values: its name in the parent's values and its entries.
struct Importing {
    /// The alias when it has one, else the name (Helm renames the dependency to its alias
    /// before it imports).
    name: String,
    imports: Vec<Import>,
}

fn importing_dependencies(chart: &Chart) -> Vec<Importing> {
    let Some(Tree::Seq(entries)) = chart.metadata.fields.get("dependencies") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let text = |key: &str| entry.get_path(&[key]).and_then(Tree::as_str);
            let name = text("alias")
                .filter(|a| !a.is_empty())
                .or_else(|| text("name"))?;
            let Some(Tree::Seq(entries)) = entry.get_path(&["import-values"]) else {
                return None;
            };
            let imports = entries
                .iter()
                .filter_map(|item| match item {
                    Tree::String(exported) => Some(Import {
                        child: format!("exports.{exported}"),
                        parent: ".".into(),
                    }),
                    Tree::Map(_) => Some(Import {
                        child: item.get_path(&["child"])?.as_str()?.to_owned(),
                        parent: item.get_path(&["parent"])?.as_str()?.to_owned(),
                    }),
                    _ => None,
                })
                .collect();
            Some(Importing {
                name: name.to_owned(),
                imports,
            })
        })
        .collect()
}

/// Helm's `MergeTables(into, from)`: keys `into` has keep their value; keys only `from` has
/// are added; tables on both sides merge key by key.
pub(super) fn merge_missing(into: &mut TreeMap, from: &TreeMap) {
    for (key, value) in from {
        match (into.get_mut(key), value) {
            (None, _) => {
                into.insert(key.clone(), value.clone());
            }
            (Some(Tree::Map(inner)), Tree::Map(more)) => merge_missing(inner, more),
            (Some(_), _) => {}
        }
    }
}

/// Helm's `Values.Table(path)` over Go's values: the table at a dotted path, a table at every
/// step; the table itself, not a copy.
fn table(values: &Rc<RefCell<Map>>, path: &str) -> Option<Rc<RefCell<Map>>> {
    let mut current = values.clone();
    for key in path.split('.') {
        let next = match current.borrow().get(key) {
            Some(Value::Map(next)) => next.clone(),
            _ => return None,
        };
        current = next;
    }
    Some(current)
}

/// Helm's `pathToMap(path, table)`: `table` (itself) nested under each key of a dotted path.
fn under_path(path: &str, table: Rc<RefCell<Map>>) -> Rc<RefCell<Map>> {
    if path == "." {
        return table;
    }
    let mut nested = table;
    for key in path.split('.').rev() {
        let mut outer = Map::new();
        outer.insert(key.to_owned(), Value::Map(nested));
        nested = Rc::new(RefCell::new(outer));
    }
    nested
}

/// Helm's `MergeTables(into, from)` on Go's maps, sharing as Go does: a key only `from` has
/// is added as `from`'s value itself, so a later merge into it changes the table it came from
/// (a subchart's section of the parent's values) too, as in Helm.
fn merge_tables(into: &Rc<RefCell<Map>>, from: &Rc<RefCell<Map>>) {
    if Rc::ptr_eq(into, from) {
        return;
    }
    let entries: Vec<(String, Value)> = from
        .borrow()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, value) in entries {
        let existing = into.borrow().get(&key).cloned();
        match (existing, &value) {
            (None, _) => {
                into.borrow_mut().insert(key, value);
            }
            (Some(Value::Map(inner)), Value::Map(more)) => merge_tables(&inner, more),
            (Some(_), _) => {}
        }
    }
}

/// The keys `after` has that `before` lacks, at any depth.
fn added(before: &TreeMap, after: &TreeMap) -> TreeMap {
    let mut additions = TreeMap::new();
    for (key, value) in after {
        match (before.get(key), value) {
            (None, _) => {
                additions.insert(key.clone(), value.clone());
            }
            (Some(Tree::Map(old)), Tree::Map(new)) => {
                let deeper = added(old, new);
                if !deeper.is_empty() {
                    additions.insert(key.clone(), Tree::Map(deeper));
                }
            }
            _ => {}
        }
    }
    additions
}

/// The values `chart` imports from its subcharts, to fill what its values leave unset;
/// `values` are the chart's values as rendered (they decide which subcharts are enabled) and
/// `top_tags` the root's `tags`. Empty when no dependency has `import-values`.
///
/// Helm merges the imported tables into one map without copying them, so an import into a
/// table an earlier import brought changes that subchart's section of the parent's values
/// too; the result holds those changes, under the subchart's name.
pub(super) fn imported(
    chart: &Chart,
    values: &Tree,
    top_tags: Option<&Tree>,
    depth: usize,
) -> Result<TreeMap, ChartError> {
    let importing = importing_dependencies(chart);
    if importing.is_empty() || depth >= MAX_DEPTH {
        return Ok(TreeMap::new());
    }
    let before = defaults_with_subcharts(chart, values, top_tags, depth)?;
    let Value::Map(shared) = result_to_go(&Tree::Map(before.clone())) else {
        return Ok(TreeMap::new());
    };
    let gathered = Rc::new(RefCell::new(Map::new()));
    for dependency in &importing {
        for import in &dependency.imports {
            let path = format!("{}.{}", dependency.name, import.child);
            if let Some(found) = table(&shared, &path) {
                merge_tables(&gathered, &under_path(&import.parent, found));
            }
        }
    }
    let mut result = match go_to_tree(&Value::Map(gathered)) {
        Tree::Map(map) => map,
        _ => TreeMap::new(),
    };
    if let Tree::Map(after) = go_to_tree(&Value::Map(shared)) {
        merge_missing(&mut result, &added(&before, &after));
    }
    Ok(result)
}

/// Helm's `MergeValues(chart, nil)` for a chart whose subcharts have imported already: its
/// defaults, with each enabled subchart's (imports included) under its name below the
/// chart's own section for it.
fn defaults_with_subcharts(
    chart: &Chart,
    values: &Tree,
    top_tags: Option<&Tree>,
    depth: usize,
) -> Result<TreeMap, ChartError> {
    let mut own = match chart.default_values_read()? {
        Tree::Map(map) => map.clone(),
        _ => TreeMap::new(),
    };
    let declared = super::dependencies::dependencies(chart);
    for sub in chart.load_subcharts()? {
        let matching: Vec<_> = declared
            .iter()
            .filter(|d| d.name == sub.metadata.name)
            .collect();
        let names: Vec<String> = if matching.is_empty() {
            vec![sub.metadata.name.clone()]
        } else {
            matching
                .iter()
                .filter(|d| enabled(d, values, top_tags))
                .map(|d| d.alias.clone().unwrap_or_else(|| d.name.clone()))
                .collect()
        };
        for name in names {
            let sub_defaults = Tree::Map(sub_defaults_with_imports(&sub, top_tags, depth + 1)?);
            let section = match own.remove(&name) {
                Some(Tree::Map(section)) => Tree::Map(section),
                _ => Tree::Map(TreeMap::new()),
            };
            let mut warnings = Vec::new();
            own.insert(name, coalesce(&sub_defaults, section, &mut warnings));
        }
    }
    Ok(own)
}

/// A subchart's defaults after its own imports (Helm's `c.Values` once imported).
fn sub_defaults_with_imports(
    sub: &Chart,
    top_tags: Option<&Tree>,
    depth: usize,
) -> Result<TreeMap, ChartError> {
    let mut defaults = match sub.default_values_read()? {
        Tree::Map(map) => map.clone(),
        _ => TreeMap::new(),
    };
    if depth >= MAX_DEPTH {
        return Ok(defaults);
    }
    let imported = imported(sub, &Tree::Map(defaults.clone()), top_tags, depth)?;
    merge_missing(&mut defaults, &imported);
    Ok(defaults)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(yaml: &str) -> TreeMap {
        match crate::yaml::parse_document(yaml).expect("YAML") {
            Tree::Map(map) => map,
            _ => TreeMap::new(),
        }
    }

    fn shared(yaml: &str) -> Rc<RefCell<Map>> {
        match result_to_go(&Tree::Map(map(yaml))) {
            Value::Map(map) => map,
            _ => Rc::default(),
        }
    }

    fn tree(map: &Rc<RefCell<Map>>) -> TreeMap {
        match go_to_tree(&Value::Map(map.clone())) {
            Tree::Map(map) => map,
            _ => TreeMap::new(),
        }
    }

    #[test]
    fn merge_missing_keeps_what_is_there_and_adds_the_rest() {
        let mut into = map("a: 1\nt: {x: 1}\n");
        merge_missing(&mut into, &map("a: 2\nb: 3\nt: {x: 2, y: 2}\n"));
        assert_eq!(into, map("a: 1\nb: 3\nt: {x: 1, y: 2}\n"));
    }

    #[test]
    fn a_child_table_is_placed_under_the_parent_path() {
        let values = shared("sub: {exports: {data: {k: v}}}\n");
        let found = table(&values, "sub.exports.data").expect("a table");
        assert_eq!(
            tree(&under_path("a.b", found.clone())),
            map("a: {b: {k: v}}\n")
        );
        assert_eq!(tree(&under_path(".", found)), map("k: v\n"));
    }

    #[test]
    fn a_path_through_a_scalar_names_no_table() {
        assert!(table(&shared("sub: {exports: 3}\n"), "sub.exports.data").is_none());
    }

    #[test]
    fn a_later_import_into_an_imported_table_changes_the_subcharts_section_as_in_helm() {
        let values = shared("db: {pool: {max: 10}}\ncache: {tuning: {idle: 5}}\n");
        let gathered = Rc::new(RefCell::new(Map::new()));
        let pool = table(&values, "db.pool").expect("pool");
        merge_tables(&gathered, &under_path("fromDb", pool));
        let tuning = table(&values, "cache.tuning").expect("tuning");
        merge_tables(&gathered, &under_path("fromDb", tuning));
        assert_eq!(tree(&gathered), map("fromDb: {max: 10, idle: 5}\n"));
        assert_eq!(
            tree(&values),
            map("db: {pool: {max: 10, idle: 5}}\ncache: {tuning: {idle: 5}}\n")
        );
    }
}
