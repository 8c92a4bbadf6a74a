//! Embeds the release table (`releases/releases.toml`) and the template sets its eras name
//! (`templates/<set>/<chart>/` and `values/<set>/<chart>/`) into the binary, checking that the
//! table holds together: every release names a known era and state, every template set belongs
//! to the era that names it, and its Chart.yaml files say what the row of its own release says.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect(&path, root, out);
        } else {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
}

/// Where an embedded chart's file goes inside the chart: `templates/<set>/<chart>/` holds
/// `Chart.yaml`, an optional `README.md` and the templates and partials; `values/<set>/<chart>/`
/// holds `values.yaml`, the overlays (`values-ha.yaml`) and `values.schema.json`.
fn chart_path(top: &str, relative: &str) -> String {
    match (top, relative) {
        ("templates", "Chart.yaml" | "README.md") => relative.to_owned(),
        ("templates", _) => format!("templates/{relative}"),
        (_, "values.schema.json") => relative.to_owned(),
        _ => format!("values/{relative}"),
    }
}

/// The folders directly below `dir`, by name; none when it does not exist.
fn subfolder_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A table's string `key`; a missing or mistyped one stops the build naming `what` and the key.
fn string(table: &toml::Table, key: &str, what: &str) -> String {
    match table.get(key) {
        Some(toml::Value::String(s)) => s.clone(),
        other => panic!("releases/releases.toml: {what}: {key} must be a string, found {other:?}"),
    }
}

/// A table's optional string `key`.
fn optional_string(table: &toml::Table, key: &str, what: &str) -> Option<String> {
    table.get(key).map(|_| string(table, key, what))
}

/// An array of tables (`[[era]]`, `[[state]]`, `[[release]]`) of the table file.
fn rows<'a>(table: &'a toml::Table, key: &str) -> Vec<&'a toml::Table> {
    match table.get(key) {
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                toml::Value::Table(t) => t,
                other => {
                    panic!("releases/releases.toml: [[{key}]] rows are tables, found {other:?}")
                }
            })
            .collect(),
        other => panic!("releases/releases.toml: needs [[{key}]] rows, found {other:?}"),
    }
}

/// One `[[era]]` row: its name and the template set serving it, if one is embedded.
struct EraFacts {
    name: String,
    first: String,
    last: String,
    templates: Option<String>,
    /// The states its template set serves so far, when not all of them (`states_served`).
    states_served: Option<Vec<String>>,
}

/// A state's default values that differ from its era's template set: chart, dotted key path,
/// and the value as YAML scalar text, or `None` for a key the state's values.yaml does not have.
type StateValues = Vec<(String, String, Option<String>)>;

/// One `[[state]]` row's values (`values = { <chart> = { "a.b" = scalar } }`).
fn state_values(state: &toml::Table, id: &str) -> StateValues {
    let mut out = Vec::new();
    let charts = match state.get("values") {
        None => toml::Table::new(),
        Some(toml::Value::Table(charts)) => charts.clone(),
        Some(_) => panic!("releases/releases.toml: state {id}: values must be a table of charts"),
    };
    for (chart, keys) in &charts {
        let toml::Value::Table(keys) = keys else {
            panic!("releases/releases.toml: state {id}: values.{chart} must be a table of keys");
        };
        for (path, value) in keys {
            let scalar = match value {
                toml::Value::String(s) => format!("{s:?}"),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => panic!(
                    "releases/releases.toml: state {id}: values.{chart}.{path} must be a \
                     string, integer or boolean, found {other:?}"
                ),
            };
            out.push((chart.clone(), path.clone(), Some(scalar)));
        }
    }
    if let Some(absent) = state.get("values_absent") {
        let toml::Value::Table(charts) = absent else {
            panic!("releases/releases.toml: state {id}: values_absent must be a table of charts");
        };
        for (chart, paths) in charts {
            let toml::Value::Array(paths) = paths else {
                panic!("releases/releases.toml: state {id}: values_absent.{chart} must list keys");
            };
            for path in paths {
                let toml::Value::String(path) = path else {
                    panic!("releases/releases.toml: state {id}: values_absent.{chart} holds dotted keys");
                };
                out.push((chart.clone(), path.clone(), None));
            }
        }
    }
    out
}

/// The facts of one release the code reads, from its `[[release]]` row and its state.
struct ReleaseFacts {
    release: String,
    era: String,
    state: String,
    kubernetes: String,
    /// Chart name and version, in name order.
    charts: Vec<(String, String)>,
    /// The proxy-init image's tag when the release ships one (`v2.4.1`).
    proxy_init: Option<String>,
    /// The images its control-plane chart names, by role (`[release.images]`, the CNI
    /// plugin's left out: that chart is not rendered here).
    images: Vec<(String, String)>,
    known_issues: Vec<String>,
    values: StateValues,
}

fn read_release(
    row: &toml::Table,
    states: &BTreeMap<String, (String, StateValues)>,
) -> ReleaseFacts {
    let release = string(row, "tag", "a [[release]] row");
    let what = format!("release {release}");
    let mut charts = Vec::new();
    for (key, chart) in [
        ("control_plane_chart_version", "linkerd-control-plane"),
        ("crds_chart_version", "linkerd-crds"),
    ] {
        if let Some(version) = optional_string(row, key, &what) {
            charts.push((chart.to_owned(), version));
        }
    }
    charts.sort();
    assert!(
        charts
            .iter()
            .any(|(name, _)| name == "linkerd-control-plane"),
        "releases/releases.toml: {what} has no control_plane_chart_version"
    );
    let proxy_init = match row.get("images") {
        Some(toml::Value::Table(images)) => optional_string(images, "proxy_init", &what).map(|image| {
            image
                .rsplit_once(':')
                .map(|(_, tag)| tag.to_owned())
                .unwrap_or_else(|| panic!("releases/releases.toml: {what}: images.proxy_init {image:?} has no tag"))
        }),
        _ => None,
    };
    let images = match row.get("images") {
        Some(toml::Value::Table(images)) => images
            .keys()
            .filter(|role| role.as_str() != "cni_plugin")
            .map(|role| (role.clone(), string(images, role, &what)))
            .collect(),
        _ => Vec::new(),
    };
    let known_issues = match row.get("known_issues") {
        None => Vec::new(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                toml::Value::Table(issue) => string(issue, "id", &format!("{what}: a known issue")),
                other => panic!(
                    "releases/releases.toml: {what}: known_issues rows are tables, found {other:?}"
                ),
            })
            .collect(),
        Some(other) => {
            panic!("releases/releases.toml: {what}: known_issues must be rows, found {other:?}")
        }
    };
    let era = string(row, "era", &what);
    let state = string(row, "state", &what);
    let Some((state_era, values)) = states.get(&state) else {
        panic!("releases/releases.toml: {what} names state {state}, which has no [[state]] row");
    };
    assert!(
        *state_era == era,
        "releases/releases.toml: {what} is in era {era}, but its state {state} is in era {state_era}"
    );
    let linkerd_version = string(row, "linkerd_version", &what);
    assert!(
        linkerd_version == release,
        "releases/releases.toml: {what}: linkerd_version is {linkerd_version:?}, not the tag"
    );
    ReleaseFacts {
        kubernetes: string(row, "kube_version", &what),
        release,
        era,
        state,
        charts,
        proxy_init,
        images,
        known_issues,
        values: values.clone(),
    }
}

/// The value of the top-level `key:` line of a Chart.yaml, unquoted, with its line number.
fn chart_yaml_field(text: &str, key: &str) -> Option<(String, usize)> {
    text.lines().enumerate().find_map(|(index, line)| {
        let value = line.strip_prefix(key)?.strip_prefix(':')?.trim();
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        Some((unquoted.to_owned(), index + 1))
    })
}

/// Stops the build when a template set's Chart.yaml says otherwise than the row of the release
/// it is written from: the table is what the code reads, the charts must agree with it.
fn check_chart_yaml(facts: &ReleaseFacts, chart: &str, version: &str, chart_yaml: &Path) {
    let text = std::fs::read_to_string(chart_yaml).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (releases/releases.toml lists chart {chart} for {})",
            chart_yaml.display(),
            facts.release
        )
    });
    for (key, expected) in [
        ("version", version),
        ("appVersion", facts.release.as_str()),
        ("kubeVersion", facts.kubernetes.as_str()),
    ] {
        match chart_yaml_field(&text, key) {
            Some((found, _)) if found == expected => {}
            Some((found, line)) => panic!(
                "{}:{line}: {key} is {found:?}, but releases/releases.toml says {expected:?} for {}",
                chart_yaml.display(),
                facts.release
            ),
            None => panic!(
                "{}: has no {key}: line; releases/releases.toml says {expected:?} for {}",
                chart_yaml.display(),
                facts.release
            ),
        }
    }
}

/// Orders the table: the stable lines (`stable-2.14.10`) first, then the edge releases, each
/// by number rather than by text (`edge-24.10.2` after `edge-24.9.1`). Stable and edge numbers
/// do not compare (stable-2.14.10 came out between edge-21.4.4 and edge-24.10.2).
fn release_order(release: &str) -> (bool, Vec<u64>) {
    let numbers = release
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect();
    (!release.starts_with("stable-"), numbers)
}

/// Writes one template set's charts as `TemplateSet { .. }` code.
fn write_template_set(code: &mut String, root: &Path, head: &ReleaseFacts) {
    writeln!(
        code,
        "    TemplateSet {{\n        name: {:?},\n        charts: &[",
        head.release
    )
    .expect("write to String");
    for (chart, version) in &head.charts {
        let mut files = Vec::new();
        for top in ["templates", "values"] {
            let dir = root.join(top).join(&head.release).join(chart);
            println!("cargo:rerun-if-changed={}", dir.display());
            let mut found = Vec::new();
            collect(&dir, &dir, &mut found);
            for relative in found {
                let relative_text = relative.to_string_lossy().replace('\\', "/");
                files.push((chart_path(top, &relative_text), dir.join(&relative)));
            }
        }
        files.sort();
        let chart_yaml = root
            .join("templates")
            .join(&head.release)
            .join(chart)
            .join("Chart.yaml");
        check_chart_yaml(head, chart, version, &chart_yaml);
        writeln!(
            code,
            "            EmbeddedChart {{\n                name: {chart:?},\n                files: &["
        )
        .expect("write to String");
        for (path, absolute) in files {
            println!("cargo:rerun-if-changed={}", absolute.display());
            writeln!(
                code,
                "                    ({path:?}, include_str!({:?})),",
                absolute.to_string_lossy()
            )
            .expect("write to String");
        }
        code.push_str("                ],\n            },\n");
    }
    code.push_str("        ],\n    },\n");
}

fn main() {
    // releases/, templates/ and values/ sit at the workspace's root, two folders up.
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../..");
    for top in ["releases", "templates", "values"] {
        println!("cargo:rerun-if-changed={}", root.join(top).display());
    }
    let table_file = root.join("releases/releases.toml");
    println!("cargo:rerun-if-changed={}", table_file.display());
    let text = std::fs::read_to_string(&table_file)
        .unwrap_or_else(|e| panic!("{}: {e}", table_file.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", table_file.display()));
    let default = string(&table, "default", "the table");

    let eras: Vec<EraFacts> = rows(&table, "era")
        .into_iter()
        .map(|row| {
            let name = string(row, "name", "an [[era]] row");
            let what = format!("era {name}");
            EraFacts {
                first: string(row, "first", &what),
                last: string(row, "last", &what),
                templates: optional_string(row, "templates", &what),
                states_served: row.get("states_served").map(|states| match states {
                    toml::Value::Array(items) => items
                        .iter()
                        .map(|item| match item {
                            toml::Value::String(s) => s.clone(),
                            other => panic!("releases/releases.toml: {what}: states_served holds state ids, found {other:?}"),
                        })
                        .collect(),
                    other => panic!("releases/releases.toml: {what}: states_served must list state ids, found {other:?}"),
                }),
                name,
            }
        })
        .collect();
    let mut states = BTreeMap::new();
    for row in rows(&table, "state") {
        let id = string(row, "id", "a [[state]] row");
        let era = string(row, "era", &format!("state {id}"));
        assert!(
            eras.iter().any(|e| e.name == era),
            "releases/releases.toml: state {id} names era {era}, which has no [[era]] row"
        );
        let values = state_values(row, &id);
        states.insert(id, (era, values));
    }
    let mut releases: Vec<ReleaseFacts> = rows(&table, "release")
        .into_iter()
        .map(|row| read_release(row, &states))
        .collect();
    releases.sort_by_key(|r| release_order(&r.release));
    for pair in releases.windows(2) {
        assert!(
            pair[0].release != pair[1].release,
            "releases/releases.toml: release {} has two rows",
            pair[0].release
        );
    }
    assert!(
        releases.iter().any(|r| r.release == default),
        "releases/releases.toml: default {default} has no [[release]] row"
    );

    // Every template set serves exactly the era that names it, and is named after one of its
    // releases, whose charts every release of the era shares.
    let sets_on_disk = subfolder_names(&root.join("templates"));
    let mut code = String::from(
        "/// Every template set an era names, with its charts' files, as written for the release\n\
         /// it is named after.\n\
         pub static TEMPLATE_SETS: &[TemplateSet] = &[\n",
    );
    for era in &eras {
        let Some(set) = &era.templates else { continue };
        let Some(head) = releases.iter().find(|r| &r.release == set) else {
            panic!(
                "releases/releases.toml: era {} names template set {set}, which is no release",
                era.name
            );
        };
        for state in era.states_served.iter().flatten() {
            assert!(
                states.get(state).is_some_and(|(state_era, _)| *state_era == era.name),
                "releases/releases.toml: era {} serves state {state}, which is not one of its states",
                era.name
            );
        }
        assert!(
            era.states_served.as_ref().is_none_or(|served| served.contains(&head.state)),
            "releases/releases.toml: era {}'s states_served leaves out {}, the state its template set is written from",
            era.name,
            head.state
        );
        assert!(
            head.era == era.name,
            "releases/releases.toml: era {} names template set {set}, a release of era {}",
            era.name,
            head.era
        );
        for member in releases.iter().filter(|r| r.era == era.name) {
            let names =
                |r: &ReleaseFacts| r.charts.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            assert!(
                names(member) == names(head),
                "releases/releases.toml: {} has charts {:?}, but its era's template set {set} has {:?}",
                member.release,
                names(member),
                names(head)
            );
        }
        write_template_set(&mut code, &root, head);
    }
    code.push_str("];\n");
    for set in &sets_on_disk {
        assert!(
            eras.iter()
                .any(|e| e.templates.as_deref() == Some(set.as_str())),
            "templates/{set} is named by no era's templates in releases/releases.toml"
        );
    }

    writeln!(
        code,
        "/// The release rendered when neither `--linkerd` nor the user's `linkerdVersion` names\n\
         /// one (the table's `default`).\n\
         pub const DEFAULT_RELEASE: &str = {default:?};\n\
         /// Every era of the table, oldest first.\n\
         pub static ERAS: &[Era] = &["
    )
    .expect("write to String");
    for era in &eras {
        writeln!(
            code,
            "    Era {{ name: {:?}, first: {:?}, last: {:?}, templates: {:?}, states_served: {} }},",
            era.name,
            era.first,
            era.last,
            era.templates,
            match &era.states_served {
                None => "None".to_owned(),
                Some(states) => format!("Some(&{states:?})"),
            }
        )
        .expect("write to String");
    }
    code.push_str(
        "];\n/// Every release of the table, oldest first (stable-2.14 before the edge releases).\n\
         pub static RELEASES: &[ReleaseRow] = &[\n",
    );
    for facts in &releases {
        let charts: Vec<String> = facts
            .charts
            .iter()
            .map(|(name, version)| format!("({name:?}, {version:?})"))
            .collect();
        let values: Vec<String> = facts
            .values
            .iter()
            .map(|(chart, path, value)| format!("({chart:?}, {path:?}, {value:?})"))
            .collect();
        writeln!(
            code,
            "    ReleaseRow {{\n        release: {:?},\n        era: {:?},\n        state: {:?},\n        \
             kubernetes: {:?},\n        known_issues: &{:?},\n        charts: &[{}],\n        \
             proxy_init: {:?},\n        images: &{:?},\n        state_values: &[{}],\n    }},",
            facts.release,
            facts.era,
            facts.state,
            facts.kubernetes,
            facts.known_issues,
            charts.join(", "),
            facts.proxy_init,
            facts.images,
            values.join(", ")
        )
        .expect("write to String");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_releases.rs");
    std::fs::write(out, code).expect("write embedded_releases.rs");
}
