//! Embeds the release table (`releases/<release>/release.toml`) and each release's charts
//! (`templates/<release>/<chart>/` and `values/<release>/<chart>/`) into the binary, checking
//! that every chart's Chart.yaml agrees with its release's row.

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

/// Where an embedded chart's file goes inside the chart: `templates/<release>/<chart>/` holds
/// `Chart.yaml`, an optional `README.md` and the templates and partials; `values/<release>/<chart>/`
/// holds `values.yaml`, the overlays (`values-ha.yaml`) and `values.schema.json`.
fn chart_path(top: &str, relative: &str) -> String {
    match (top, relative) {
        ("templates", "Chart.yaml" | "README.md") => relative.to_owned(),
        ("templates", _) => format!("templates/{relative}"),
        (_, "values.schema.json") => relative.to_owned(),
        _ => format!("values/{relative}"),
    }
}

/// The folders directly below `dir`, sorted; none when it does not exist.
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
}

/// The facts of one release as `releases/<release>/release.toml` states them.
struct ReleaseFacts {
    release: String,
    default: bool,
    kubernetes: String,
    /// Chart name and version, in name order.
    charts: Vec<(String, String)>,
    known_issues: Vec<String>,
}

/// Reads `releases/<release>/release.toml`; a missing or mistyped fact stops the build, naming
/// the file and the key.
fn read_release_facts(file: &Path) -> ReleaseFacts {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let string = |key: &str| -> String {
        match table.get(key) {
            Some(toml::Value::String(s)) => s.clone(),
            other => panic!(
                "{}: {key} must be a string, found {other:?}",
                file.display()
            ),
        }
    };
    let default = match table.get("default") {
        None => false,
        Some(toml::Value::Boolean(b)) => *b,
        Some(other) => panic!(
            "{}: default must be true or false, found {other:?}",
            file.display()
        ),
    };
    let charts = match table.get("charts") {
        Some(toml::Value::Table(charts)) if !charts.is_empty() => charts
            .iter()
            .map(|(name, version)| match version {
                toml::Value::String(v) => (name.clone(), v.clone()),
                other => panic!(
                    "{}: charts.{name} must be a version string, found {other:?}",
                    file.display()
                ),
            })
            .collect(),
        other => panic!(
            "{}: charts must name at least one chart and its version, found {other:?}",
            file.display()
        ),
    };
    let known_issues = match table.get("known-issues") {
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                toml::Value::String(s) => s.clone(),
                other => panic!(
                    "{}: known-issues holds issue names, found {other:?}",
                    file.display()
                ),
            })
            .collect(),
        other => panic!(
            "{}: known-issues must be a list (empty when none), found {other:?}",
            file.display()
        ),
    };
    for key in table.keys() {
        if !["release", "default", "kubernetes", "charts", "known-issues"].contains(&key.as_str()) {
            panic!("{}: unknown key {key}", file.display());
        }
    }
    ReleaseFacts {
        release: string("release"),
        default,
        kubernetes: string("kubernetes"),
        charts,
        known_issues,
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

/// Stops the build when a chart's Chart.yaml says otherwise than its release's release.toml:
/// the table is what the code reads, the charts must agree with it.
fn check_chart_yaml(facts: &ReleaseFacts, chart: &str, version: &str, chart_yaml: &Path) {
    let text = std::fs::read_to_string(chart_yaml).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (release.toml of {} lists chart {chart})",
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
                "{}:{line}: {key} is {found:?}, but releases/{}/release.toml says {expected:?}",
                chart_yaml.display(),
                facts.release
            ),
            None => panic!(
                "{}: has no {key}: line; releases/{}/release.toml says {expected:?}",
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

fn main() {
    // releases/, templates/ and values/ sit at the workspace's root, two folders up.
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../..");
    for top in ["releases", "templates", "values"] {
        println!("cargo:rerun-if-changed={}", root.join(top).display());
    }
    let mut releases: Vec<ReleaseFacts> = Vec::new();
    for release_dir in subfolders(&root.join("releases")) {
        let file = release_dir.join("release.toml");
        println!("cargo:rerun-if-changed={}", file.display());
        let facts = read_release_facts(&file);
        let folder = release_dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        assert!(
            facts.release == folder,
            "{}: release is {:?}, but the folder is {folder}",
            file.display(),
            facts.release
        );
        releases.push(facts);
    }
    releases.sort_by_key(|r| release_order(&r.release));
    let defaults: Vec<&str> = releases
        .iter()
        .filter(|r| r.default)
        .map(|r| r.release.as_str())
        .collect();
    assert!(
        defaults.len() == 1,
        "releases/*/release.toml: exactly one release must say default = true, found {defaults:?}"
    );
    for release_dir in subfolders(&root.join("templates")) {
        let release = release_dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        assert!(
            releases.iter().any(|r| r.release == release),
            "{} has no releases/{release}/release.toml",
            release_dir.display()
        );
    }
    let mut code = format!(
        "/// The release line rendered when neither `--linkerd` nor the user's `linkerdVersion`\n\
         /// names one (the row of `releases/*/release.toml` that says `default = true`).\n\
         pub const DEFAULT_RELEASE: &str = {:?};\n\
         /// Every embedded release, stable lines first, then edge releases, each oldest first,\n\
         /// as `releases/<release>/release.toml` states it,\n\
         /// with its charts' files.\n\
         pub static RELEASES: &[ReleaseRow] = &[\n",
        defaults[0]
    );
    for facts in &releases {
        writeln!(
            code,
            "    ReleaseRow {{\n        release: {:?},\n        kubernetes: {:?},\n        known_issues: &{:?},\n        charts: &[",
            facts.release, facts.kubernetes, facts.known_issues
        )
        .expect("write to String");
        for (chart, version) in &facts.charts {
            let mut files = Vec::new();
            for top in ["templates", "values"] {
                let dir = root.join(top).join(&facts.release).join(chart);
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
                .join(&facts.release)
                .join(chart)
                .join("Chart.yaml");
            check_chart_yaml(facts, chart, version, &chart_yaml);
            writeln!(code, "            EmbeddedChart {{\n                name: {chart:?},\n                version: {version:?},\n                files: &[").expect("write to String");
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
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_releases.rs");
    std::fs::write(out, code).expect("write embedded_releases.rs");
}
