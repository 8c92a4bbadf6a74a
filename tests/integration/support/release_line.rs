//! The side-by-side check of an embedded release line against real Helm's render of upstream's
//! charts at the tag, shared by the `release_line_<release>.rs` tests of the era heads
//! (stable-2.14.10, edge-25.6.2, edge-25.8.2, edge-25.11.2).
//!
//! A line's cases live in `tests/reference/upstream/<release>/<case>/` as `args` (our render's
//! arguments, one per line, paths relative to the repository root) and `helm.yaml` (Helm's
//! output for the same values; the folder's README gives the commands). Both streams are split
//! into resources (kind, namespace, name), linkerd-config's `data.values` is read as the tree it
//! holds, and the two are compared field by field; list items with distinct `name`s are matched
//! by name (`containers[name=linkerd-proxy]`). A difference must be one the line allows: a row
//! (cases, resource, field path, reason) of the line's table in `tests/reference/DEVIATIONS.md`
//! and an entry of the test's list, both ways; an allowed difference that no longer occurs in a
//! case it names fails too, so the list stays true.

use super::deviations::{glob, read_table, DEVIATIONS_FILE};
use meshchart::values::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An intended difference: (cases, resource, field path), each cell as in DEVIATIONS.md (cases
/// comma-separated; `*` matches any run of characters).
pub type Allowed = (&'static str, &'static str, &'static str);

/// One embedded release line and what its side-by-side test allows.
pub struct Line {
    /// The release tag (`stable-2.14.10`).
    pub release: &'static str,
    /// The start of the heading of its table in DEVIATIONS.md (`## stable-2.14.10 line (`).
    pub heading: &'static str,
    /// Its intended differences.
    pub allowed: &'static [Allowed],
}

/// The resource's place in a stream: kind, namespace, name.
pub type Key = (String, String, String);

/// The repository's root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `meshchart ARGS` from the repository root at a fixed instant (the pinned issuer
/// certificate is valid then); stdout, or stderr on failure.
pub fn meshchart(args: &[String]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(repo())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("run meshchart");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("utf-8 output"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

impl Line {
    /// `tests/reference/upstream/<release>`, relative to the repository root.
    pub fn cases_dir(&self) -> String {
        format!("tests/reference/upstream/{}", self.release)
    }

    /// The folder of `case`.
    pub fn case_dir(&self, case: &str) -> PathBuf {
        repo().join(self.cases_dir()).join(case)
    }

    /// `render` and the case's arguments.
    pub fn case_args(&self, case: &str) -> Vec<String> {
        let path = self.case_dir(case).join("args");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut args = vec!["render".to_owned()];
        args.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_owned));
        args
    }

    /// Every difference between Helm's render of `case` and ours.
    pub fn differences(&self, case: &str) -> Vec<Difference> {
        let helm_path = self.case_dir(case).join("helm.yaml");
        let helm = std::fs::read_to_string(&helm_path)
            .unwrap_or_else(|e| panic!("{}: {e}", helm_path.display()));
        let ours = meshchart(&self.case_args(case))
            .unwrap_or_else(|e| panic!("{} case {case}: render failed:\n{e}", self.release));
        let upstream = resources(&helm, &format!("{case}/helm.yaml"));
        let ours = resources(&ours, &format!("{case}: our render"));
        let mut found = Vec::new();
        for (key, u) in &upstream {
            let resource = format!("{}/{}", key.0, key.2);
            match ours.get(key) {
                None => found.push(Difference::whole(resource, "only upstream")),
                Some(o) => {
                    let mut diffs = Vec::new();
                    compare("", u, o, &mut diffs);
                    found.extend(diffs.into_iter().map(|(path, message)| Difference {
                        resource: resource.clone(),
                        path,
                        message,
                    }));
                }
            }
        }
        for key in ours.keys().filter(|k| !upstream.contains_key(*k)) {
            found.push(Difference::whole(
                format!("{}/{}", key.0, key.2),
                "only ours",
            ));
        }
        found
    }

    /// Fails on any difference the line does not allow and on any allowed entry naming `case`
    /// that matched nothing; prints the side-by-side counts (`-- --nocapture`). Returns how
    /// many differences there were (all allowed).
    pub fn check_case(&self, case: &str) -> usize {
        let found = self.differences(case);
        let count = |resource: bool, prefix: &str| {
            found
                .iter()
                .filter(|d| (d.path == WHOLE) == resource && d.message.starts_with(prefix))
                .count()
        };
        eprintln!(
            "counts {} {case}: resources only upstream {} / only ours {}; fields only upstream {} \
             / only ours {} / differing {} (order {})",
            self.release,
            count(true, "only upstream"),
            count(true, "only ours"),
            count(false, "only upstream"),
            count(false, "only ours"),
            count(false, "upstream "),
            count(false, "order")
        );
        let allowed: Vec<&Allowed> = self
            .allowed
            .iter()
            .filter(|(cases, _, _)| cases.split(',').any(|c| glob(c.trim(), case)))
            .collect();
        let covers =
            |entry: &Allowed, d: &Difference| glob(entry.1, &d.resource) && glob(entry.2, &d.path);
        let unexpected: Vec<String> = found
            .iter()
            .filter(|d| !allowed.iter().any(|entry| covers(entry, d)))
            .map(|d| format!("  {} {}: {}", d.resource, d.path, d.message))
            .collect();
        let stale: Vec<String> = allowed
            .iter()
            .filter(|entry| !found.iter().any(|d| covers(entry, d)))
            .map(|(_, resource, path)| format!("  {resource} {path}"))
            .collect();
        assert!(
            unexpected.is_empty() && stale.is_empty(),
            "{} case {case}: {} difference(s) not in the allow-list (add a row to \
             {DEVIATIONS_FILE} and to the test's list, or fix the chart):\n{}\nallowed \
             difference(s) that no longer occur:\n{}",
            self.release,
            unexpected.len(),
            unexpected.join("\n"),
            stale.join("\n")
        );
        found.len()
    }

    /// Every entry of the allow-list has its row in the line's DEVIATIONS.md table, and every
    /// row there is an entry.
    pub fn check_deviation_rows(&self) {
        let rows: Vec<(String, String, String)> =
            read_table(self.heading, &["case", "resource", "field path", "reason"])
                .into_iter()
                .map(|row| {
                    let [cases, resource, path, _reason]: [String; 4] = row
                        .cells
                        .try_into()
                        .expect("four cells, as read_table checks");
                    (cases, resource, path)
                })
                .collect();
        assert!(
            !rows.is_empty(),
            "{DEVIATIONS_FILE}: no table under {:?}",
            self.heading
        );
        for (cases, resource, path) in self.allowed {
            assert!(
                rows.iter()
                    .any(|r| r.0 == *cases && r.1 == *resource && r.2 == *path),
                "{DEVIATIONS_FILE}: no row `{cases}` | `{resource}` | `{path}` under {:?}",
                self.heading
            );
        }
        for row in &rows {
            assert!(
                self.allowed
                    .iter()
                    .any(|(c, r, p)| row.0 == *c && row.1 == *r && row.2 == *p),
                "{DEVIATIONS_FILE}: row {row:?} under {:?} is not in the test's list",
                self.heading
            );
        }
    }

    /// Our `values.yaml` of the control plane is upstream's (`values.yaml` of the cases folder,
    /// copied from the tag) plus meshchart's `proxy.controlPlaneAwait: true`.
    pub fn check_defaults_are_upstreams(&self) {
        let ours_path = format!("values/{}/linkerd-control-plane/values.yaml", self.release);
        let mut ours = yaml_file(&repo().join(ours_path));
        let upstream = yaml_file(&repo().join(self.cases_dir()).join("values.yaml"));
        let proxy = ours
            .as_map_mut()
            .and_then(|m| m.get_mut("proxy"))
            .and_then(Value::as_map_mut)
            .expect("proxy");
        assert_eq!(proxy.remove("controlPlaneAwait"), Some(Value::Bool(true)));
        let mut diffs = Vec::new();
        compare("", &upstream, &ours, &mut diffs);
        assert!(
            diffs.is_empty(),
            "{}: values.yaml differs from upstream's: {diffs:#?}",
            self.release
        );
    }

    /// Our `values-ha.yaml` holds upstream's (`ha/values-ha.yaml`, copied from the tag).
    pub fn check_ha_overlay_is_upstreams(&self) {
        let ours_path = format!(
            "values/{}/linkerd-control-plane/values-ha.yaml",
            self.release
        );
        let ours = yaml_file(&repo().join(ours_path));
        let upstream = yaml_file(&self.case_dir("ha").join("values-ha.yaml"));
        let mut diffs = Vec::new();
        compare("", &upstream, &ours, &mut diffs);
        assert!(
            diffs.is_empty(),
            "{}: values-ha.yaml differs from upstream's: {diffs:#?}",
            self.release
        );
    }

    /// `meshchart lint` takes upstream's own values files of the tag without an error or an
    /// unknown key: values.schema.json declares every key they set.
    pub fn check_upstream_values_lint_clean(&self) {
        let mut lint = self.case_args("ha");
        lint[0] = "lint".to_owned();
        lint.extend(["-f".to_owned(), format!("{}/values.yaml", self.cases_dir())]);
        let out = meshchart(&lint).unwrap_or_else(|e| panic!("lint failed:\n{e}"));
        assert!(
            !out.contains("[ERROR]") && !out.contains("[WARNING]"),
            "{out}"
        );
    }
}

/// The path given to a difference that is a whole resource only one side has.
const WHOLE: &str = "(resource)";

/// One difference: the resource as `Kind/name`, the field path, what differs.
#[derive(Debug)]
pub struct Difference {
    /// `Kind/name`.
    pub resource: String,
    /// The field path, or `(resource)`.
    pub path: String,
    /// What differs.
    pub message: String,
}

impl Difference {
    fn whole(resource: String, message: &str) -> Self {
        Difference {
            resource,
            path: WHOLE.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// A YAML file of the repository, parsed.
pub fn yaml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meshchart::yaml::parse_document(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A stream's resources by kind, namespace and name; linkerd-config's `data.values` is parsed.
/// A stream's resources by kind, namespace and name.
pub fn resources(stream: &str, label: &str) -> BTreeMap<Key, Value> {
    let docs = meshchart::yaml::parse_documents(stream)
        .unwrap_or_else(|e| panic!("{label}: not valid YAML: {e}"));
    let mut out = BTreeMap::new();
    for mut doc in docs {
        if doc == Value::Null {
            continue;
        }
        let text = |path: &[&str]| {
            doc.get_path(path)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let key = (
            text(&["kind"]),
            text(&["metadata", "namespace"]),
            text(&["metadata", "name"]),
        );
        assert!(
            !key.0.is_empty(),
            "{label}: a document without a kind: {doc:?}"
        );
        if key.0 == "ConfigMap" && key.2 == "linkerd-config" {
            let data = doc
                .as_map_mut()
                .and_then(|m| m.get_mut("data"))
                .and_then(Value::as_map_mut);
            if let Some(values) = data.and_then(|d| d.get_mut("values")) {
                let parsed = meshchart::yaml::parse_document(values.as_str().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{label}: linkerd-config data.values: {e}"));
                *values = parsed;
            }
        }
        assert!(
            out.insert(key.clone(), doc).is_none(),
            "{label}: {key:?} twice"
        );
    }
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The `name`s of a list whose items are all maps with distinct string names.
fn item_names(items: &[Value]) -> Option<Vec<String>> {
    let names: Vec<String> = items
        .iter()
        .map(|i| i.as_map()?.get("name")?.as_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    (!names.is_empty() && unique.len() == names.len()).then_some(names)
}

fn leaves(value: &Value) -> usize {
    match value {
        Value::Map(m) if !m.is_empty() => m.values().map(leaves).sum(),
        Value::Seq(s) if !s.is_empty() => s.iter().map(leaves).sum(),
        _ => 1,
    }
}

fn short(value: &Value) -> String {
    let text = format!("{value:?}");
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

/// Compares `upstream` (expected) with `ours` at `path`, pushing `(path, message)` per difference.
/// Adds to `out` every (path, message) where `ours` differs from `upstream` under `path`.
pub fn compare(path: &str, upstream: &Value, ours: &Value, out: &mut Vec<(String, String)>) {
    match (upstream, ours) {
        (Value::Map(u), Value::Map(o)) => compare_maps(path, u, o, out),
        (Value::Seq(u), Value::Seq(o)) => match (item_names(u), item_names(o)) {
            (Some(un), Some(on)) => compare_named(path, (&un, u), (&on, o), out),
            _ => {
                for i in 0..u.len().max(o.len()) {
                    let item_path = format!("{path}[{i}]");
                    match (u.get(i), o.get(i)) {
                        (Some(a), Some(b)) => compare(&item_path, a, b, out),
                        (Some(a), None) => {
                            out.push((item_path, format!("only upstream ({} leaves)", leaves(a))))
                        }
                        (None, Some(b)) => {
                            out.push((item_path, format!("only ours ({} leaves)", leaves(b))))
                        }
                        (None, None) => unreachable!(),
                    }
                }
            }
        },
        _ if upstream == ours => {}
        _ => out.push((
            path.to_owned(),
            format!("upstream {}, ours {}", short(upstream), short(ours)),
        )),
    }
}

/// Lists whose items all have distinct names: matched by name, then their order compared.
fn compare_named(
    path: &str,
    (un, u): (&[String], &[Value]),
    (on, o): (&[String], &[Value]),
    out: &mut Vec<(String, String)>,
) {
    for (name, item) in un.iter().zip(u) {
        let item_path = format!("{path}[name={name}]");
        match on.iter().position(|n| n == name) {
            Some(i) => compare(&item_path, item, &o[i], out),
            None => out.push((
                item_path,
                format!("only upstream ({} leaves)", leaves(item)),
            )),
        }
    }
    for (name, item) in on.iter().zip(o) {
        if !un.contains(name) {
            out.push((
                format!("{path}[name={name}]"),
                format!("only ours ({} leaves)", leaves(item)),
            ));
        }
    }
    let common_u: Vec<&String> = un.iter().filter(|n| on.contains(n)).collect();
    let common_o: Vec<&String> = on.iter().filter(|n| un.contains(n)).collect();
    if common_u != common_o {
        out.push((
            path.to_owned(),
            format!("order: upstream {common_u:?}, ours {common_o:?}"),
        ));
    }
}

fn compare_maps(path: &str, upstream: &Map, ours: &Map, out: &mut Vec<(String, String)>) {
    for (key, u) in upstream {
        match ours.get(key) {
            Some(o) => compare(&join(path, key), u, o, out),
            None => out.push((
                join(path, key),
                format!("only upstream ({} leaves: {})", leaves(u), short(u)),
            )),
        }
    }
    for (key, o) in ours {
        if !upstream.contains_key(key) {
            out.push((
                join(path, key),
                format!("only ours ({} leaves: {})", leaves(o), short(o)),
            ));
        }
    }
}
