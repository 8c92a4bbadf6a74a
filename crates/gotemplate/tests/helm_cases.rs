//! Every case recorded from Helm 3.17.1 under `tests/cases/` (see its README) renders here to
//! Helm's exact output or error text.
//!
//! The harness plays the small part of Helm that wraps the engine: the render data (`.Values`,
//! `.Release`, `.Capabilities`), `missingkey=zero`, the order Helm parses files in, the few
//! Helm and Sprig functions the cases call (`include`, `tpl`, `required`, `fail`, `list`,
//! `dict`, `upper`, `default`), the deletion of `<no value>`, and Helm's rewriting of error texts.
//! meshchart's Helm layer will do the same for real; here it shows that the engine's texts
//! are what Helm builds on.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

#[path = "support/json.rs"]
mod json;
use json::parse_json;

use meshchart_gotemplate::{
    Arity, Context, Error, FuncError, Map, MissingKey, Object, Templates, Value,
};

/// Cases not run, with why: templates that call Sprig functions this harness does not
/// provide, and the crate's deliberate differences from Go (see the crate doc).
const SKIPPED: &[(&str, &str)] = &[
    (
        "lit_imaginary",
        "complex constants are refused while parsing (a deliberate difference)",
    ),
    (
        "deep_parens",
        "200 nested parentheses pass MAX_NESTING (a deliberate difference)",
    ),
    (
        "slice",
        "Helm's `slice` is Sprig's, which replaces Go's builtin",
    ),
    (
        "slice_bad",
        "Helm's `slice` is Sprig's, which replaces Go's builtin",
    ),
    ("print_special_floats", "needs Sprig's `div`"),
    (
        "template_recursion",
        "Go stops at 100000 nested template calls; the crate's limit is a setting (a thread's \
         stack cannot hold 100000 levels), so the message names another number",
    ),
];

/// One recorded case: its sections, in file order.
struct Case {
    name: String,
    sections: Vec<(String, String)>,
}

impl Case {
    fn get(&self, name: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_str())
    }
}

/// Reads the case format of `tests/cases/README.md`.
fn read_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in text.split('\n') {
        if let Some(name) = line.strip_prefix("=== ") {
            if let Some((n, lines)) = current.take() {
                sections.push((n, lines.join("\n")));
            }
            current = Some((name.trim().to_string(), Vec::new()));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some((n, lines)) = current {
        sections.push((n, lines.join("\n")));
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Case { name, sections }
}

/// Helm's `--set` for the simple forms the cases use: dotted keys; integers become int64,
/// `true`/`false` bools, `null` nil, anything else a string.
fn apply_set(values: &mut Map, line: &str) {
    let (key, raw) = line.split_once('=').unwrap_or((line, ""));
    let parts: Vec<&str> = key.split('.').collect();
    let v = match raw.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        Some(items) => Value::seq(items.split(',').map(set_scalar).collect()),
        None => set_scalar(raw),
    };
    set_path(values, &parts, v);
}

/// How `--set` types one scalar.
fn set_scalar(raw: &str) -> Value {
    if let Ok(i) = raw.parse::<i64>() {
        if raw.len() > 1 && (raw.starts_with('0') || raw.starts_with("-0")) {
            Value::from(raw)
        } else {
            Value::Int64(i)
        }
    } else {
        match raw.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            _ => Value::from(raw),
        }
    }
}

fn set_path(m: &mut Map, parts: &[&str], v: Value) {
    if parts.len() == 1 {
        m.insert(parts[0].to_string(), v);
        return;
    }
    let entry = m
        .entry(parts[0].to_string())
        .or_insert_with(|| Value::from(Map::new()));
    if !matches!(entry, Value::Map(_)) {
        *entry = Value::from(Map::new());
    }
    if let Value::Map(inner) = entry {
        set_path(&mut inner.borrow_mut(), &parts[1..], v);
    }
}

/// Helm's `.Capabilities.KubeVersion`: prints as its version.
struct KubeVersion;

impl Object for KubeVersion {
    fn type_name(&self) -> &str {
        "chartutil.KubeVersion"
    }
    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Version" | "GitVersion" => Some(Ok(Value::from("v1.32.0"))),
            "Major" => Some(Ok(Value::from("1"))),
            "Minor" => Some(Ok(Value::from("32"))),
            _ => None,
        }
    }
    fn format(&self, out: &mut String) {
        out.push_str("v1.32.0");
    }
}

/// Helm's `.Capabilities`.
struct Capabilities;

impl Object for Capabilities {
    fn type_name(&self) -> &str {
        "*chartutil.Capabilities"
    }
    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "KubeVersion" => Some(Ok(Value::Object(Rc::new(KubeVersion)))),
            _ => None,
        }
    }
    fn format(&self, out: &mut String) {
        out.push_str("&{{v1.32.0 1 32} [] {v3.17.1 980d8ac1939e39138101364400756af2bdee1da5 clean go1.23.5}}");
    }
}

/// Helm's `chartutil.Values`, the type of `.` and `.Values`: a named map type with methods.
struct ChartutilValues(Rc<RefCell<Map>>);

impl Object for ChartutilValues {
    fn type_name(&self) -> &str {
        "chartutil.Values"
    }
    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "AsMap" => Some(Ok(Value::Map(self.0.clone()))),
            _ => None,
        }
    }
    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "AsMap").then_some(Arity::Exact(0))
    }
    fn format(&self, _: &mut String) {}
    fn as_map(&self) -> Option<&Rc<RefCell<Map>>> {
        Some(&self.0)
    }
}

/// Helm's `.Chart` for the cases' chart `c`: prints as Go prints Helm's chart struct.
struct Chart;

impl Object for Chart {
    fn type_name(&self) -> &str {
        "*chart.Metadata"
    }
    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Name" => Some(Ok(Value::from("c"))),
            "Version" => Some(Ok(Value::from("0.1.0"))),
            "APIVersion" => Some(Ok(Value::from("v2"))),
            "IsRoot" => Some(Ok(Value::Bool(true))),
            _ => None,
        }
    }
    fn format(&self, out: &mut String) {
        out.push_str("{{c  [] 0.1.0  [] []  v2    false map[]  [] } true}");
    }
}

fn named(m: Map) -> Value {
    Value::Object(Rc::new(ChartutilValues(Rc::new(RefCell::new(m)))))
}

fn render_data(values: Value, template_name: &str) -> Value {
    let mut release = Map::new();
    release.insert("Name".into(), Value::from("release-name"));
    release.insert("Namespace".into(), Value::from("default"));
    release.insert("IsInstall".into(), Value::Bool(true));
    release.insert("IsUpgrade".into(), Value::Bool(false));
    release.insert("Revision".into(), Value::Int(1));
    release.insert("Service".into(), Value::from("Helm"));
    let mut template = Map::new();
    template.insert("Name".into(), Value::from(template_name));
    template.insert("BasePath".into(), Value::from("c/templates"));
    let values = match values.as_map() {
        Some(m) => named(m.borrow().clone()),
        None => values,
    };
    let mut top = Map::new();
    top.insert("Values".into(), values);
    top.insert("Release".into(), Value::from(release));
    top.insert("Capabilities".into(), Value::Object(Rc::new(Capabilities)));
    top.insert("Template".into(), Value::from(template));
    top.insert("Chart".into(), Value::Object(Rc::new(Chart)));
    top.insert("Files".into(), Value::from(Map::new()));
    top.insert("Subcharts".into(), Value::from(Map::new()));
    named(top)
}

const ERR_START: &str = "HELM_ERR_START";
const ERR_END: &str = "HELM_ERR_END";

/// Sprig's notion of empty, for `default`.
fn empty(v: &Value) -> bool {
    !matches!(v, Value::Object(_)) && !v.is_true()
}

fn helm_functions(set: &mut Templates) {
    // Helm counts nested includes per name and stops past 1000.
    let counts: Rc<RefCell<HashMap<String, usize>>> = Rc::default();
    set.add_function(
        "include",
        Arity::Exact(2),
        Rc::new(move |ctx: &mut Context<'_, '_>, args: &[Value]| {
            let name = args[0].as_str().unwrap_or_default().to_string();
            let n = counts.borrow().get(&name).copied();
            match n {
                Some(v) if v > 1000 => {
                    return Err(FuncError::Message(format!(
                        "rendering template has a nested reference name: {name}: unable to execute template"
                    )))
                }
                Some(v) => counts.borrow_mut().insert(name.clone(), v + 1),
                None => counts.borrow_mut().insert(name.clone(), 1),
            };
            let r = ctx.execute(&name, &args[1]);
            if let Some(v) = counts.borrow_mut().get_mut(&name) {
                *v -= 1;
            }
            r.map(Value::from).map_err(FuncError::from)
        }),
    );
    set.add_function(
        "tpl",
        Arity::Exact(2),
        Rc::new(|ctx: &mut Context<'_, '_>, args: &[Value]| {
            let text = args[0].as_str().unwrap_or_default();
            let q = meshchart_gotemplate::quote(text, false);
            // Helm parses the text as a template named like the set ("gotpl") in a copy of
            // the set, and wraps the two kinds of failure differently.
            match ctx.execute_text("gotpl", text, &args[1]) {
                Ok(out) => Ok(Value::from(out.replace("<no value>", ""))),
                Err(e @ Error::Parse { .. }) => Err(FuncError::Message(format!(
                    "cannot parse template {q}: {e}"
                ))),
                Err(e) => Err(FuncError::Message(format!(
                    "error during tpl function execution for {q}: {e}"
                ))),
            }
        }),
    );
    set.add_function(
        "required",
        Arity::Exact(2),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            let missing = args[1].is_nil() || args[1].as_str() == Some("");
            if missing {
                let msg = args[0].as_str().unwrap_or_default();
                return Err(FuncError::Message(format!("{ERR_START}{msg}{ERR_END}")));
            }
            Ok(args[1].clone())
        }),
    );
    set.add_function(
        "fail",
        Arity::Exact(1),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            let msg = args[0].as_str().unwrap_or_default();
            Err(FuncError::Message(format!("{ERR_START}{msg}{ERR_END}")))
        }),
    );
    set.add_function(
        "list",
        Arity::AtLeast(0),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| Ok(Value::seq(args.to_vec()))),
    );
    set.add_function(
        "dict",
        Arity::AtLeast(0),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            let mut m = Map::new();
            for pair in args.chunks(2) {
                let v = pair.get(1).cloned().unwrap_or_else(|| Value::from(""));
                m.insert(pair[0].to_string(), v);
            }
            Ok(Value::from(m))
        }),
    );
    set.add_function(
        "upper",
        Arity::Exact(1),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| match &args[0] {
            Value::String(s) => Ok(Value::from(s.to_uppercase())),
            _ => Err(FuncError::WrongType {
                index: 0,
                expected: "string".into(),
            }),
        }),
    );
    set.add_function(
        "default",
        Arity::AtLeast(1),
        Rc::new(
            |_: &mut Context<'_, '_>, args: &[Value]| match args.get(1) {
                Some(v) if !empty(v) => Ok(v.clone()),
                _ => Ok(args[0].clone()),
            },
        ),
    );
}

/// Helm's order for parsing and executing a chart's templates: deeper paths first, then
/// names in reverse order (so that, of two definitions, the one in the file sorting first
/// is parsed last and wins).
fn helm_order(names: &mut [String]) {
    names.sort_by(|a, b| {
        let (da, db) = (a.matches('/').count(), b.matches('/').count());
        db.cmp(&da).then_with(|| b.cmp(a))
    });
}

/// Helm's rewriting of a parse error: the location, then the text after the last `": "`.
fn helm_parse_error(e: &Error) -> String {
    let text = e.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    )
}

/// Helm's rewriting of an execution error: `required` and `fail` become
/// `execution error at (LOCATION): MESSAGE`; anything else keeps Go's text.
fn helm_exec_error(e: &Error) -> String {
    let text = e.to_string();
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    if tokens.len() == 3 {
        if let (Some(s), Some(t)) = (tokens[2].find(ERR_START), tokens[2].rfind(ERR_END)) {
            if s + ERR_START.len() <= t {
                return format!(
                    "execution error at ({}): {}",
                    tokens[1],
                    &tokens[2][s + ERR_START.len()..t]
                );
            }
        }
    }
    text
}

/// Renders a case as `helm template` would: Ok(text of templates/t.yaml) or Err(error text).
fn render(case: &Case) -> Result<String, String> {
    let mut values = match case.get("values.yaml") {
        Some(v) if !v.trim().is_empty() => parse_json(v),
        _ => Value::from(Map::new()),
    };
    if let Some(sets) = case.get("set") {
        if let Value::Map(m) = &mut values {
            for line in sets.lines().filter(|l| !l.is_empty()) {
                apply_set(&mut m.borrow_mut(), line);
            }
        }
    }
    let mut set = Templates::new("gotpl");
    set.set_missing_key(MissingKey::Zero);
    // Helm's include stops at 1000 nested calls; each takes about three levels. The cases
    // run on a thread with a 64 MiB stack.
    set.set_max_depth(4000);
    set.set_stack_limit(48 << 20);
    helm_functions(&mut set);
    let mut files: Vec<String> = case
        .sections
        .iter()
        .filter(|(n, _)| n.starts_with("templates/"))
        .map(|(n, _)| format!("c/{n}"))
        .collect();
    helm_order(&mut files);
    for f in &files {
        let text = case.get(&f["c/".len()..]).unwrap_or_default();
        set.parse(f, text).map_err(|e| helm_parse_error(&e))?;
    }
    let mut out = None;
    for f in &files {
        let base = f.rsplit('/').next().unwrap_or_default();
        if base.starts_with('_') {
            continue;
        }
        let data = render_data(values.clone(), f);
        let text = set.execute(f, &data).map_err(|e| helm_exec_error(&e))?;
        if f == "c/templates/t.yaml" {
            out = Some(text.replace("<no value>", ""));
        }
    }
    Ok(out.unwrap_or_default())
}

#[test]
fn every_recorded_case_renders_as_helm_did() {
    // Helm's include recursion case nests a thousand executions; give it room.
    let handle = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(run_all)
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let (passed, failures, skipped) = handle
        .join()
        .unwrap_or_else(|_| panic!("case runner panicked"));
    eprintln!(
        "{passed} cases passed, {} failed, {skipped} skipped",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Helm:\n\n{}",
        failures.len(),
        passed + failures.len(),
        failures.join("\n")
    );
}

/// A failure: multi-line outputs show only the lines that differ.
fn describe(name: &str, expected: &Result<String, String>, got: &Result<String, String>) -> String {
    if let (Ok(e), Ok(g)) = (expected, got) {
        if e.lines().count() > 3 {
            let mut s = format!("--- {name}\n");
            for (i, (a, b)) in e.lines().zip(g.lines()).enumerate() {
                if a != b {
                    s.push_str(&format!(
                        "  line {}:\n    helm: {a:?}\n    ours: {b:?}\n",
                        i + 1
                    ));
                }
            }
            if e.lines().count() != g.lines().count() {
                s.push_str(&format!(
                    "  helm has {} lines, ours {}\n",
                    e.lines().count(),
                    g.lines().count()
                ));
            }
            return s;
        }
    }
    format!("--- {name}\n  helm: {expected:?}\n  ours: {got:?}\n")
}

fn run_all() -> (usize, Vec<String>, usize) {
    // CASES_DIR runs another folder of recorded cases (a large matrix kept out of the
    // repository, say); CASE=name runs one case.
    let dir = match std::env::var_os("CASES_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases"),
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "case"))
        .collect();
    paths.sort();
    let only = std::env::var("CASE").ok();
    let (mut passed, mut failures, mut skipped) = (0, Vec::new(), 0);
    for p in paths {
        let case = read_case(&p);
        if only.as_deref().is_some_and(|o| o != case.name) {
            continue;
        }
        if SKIPPED.iter().any(|(n, _)| *n == case.name) {
            skipped += 1;
            continue;
        }
        let expected = match (case.get("output"), case.get("error")) {
            (Some(o), _) => Ok(o.to_string()),
            (None, Some(e)) => Err(e.to_string()),
            _ => panic!("{}: neither output nor error recorded", case.name),
        };
        let got = render(&case);
        if got == expected {
            passed += 1;
        } else {
            failures.push(describe(&case.name, &expected, &got));
        }
    }
    (passed, failures, skipped)
}
