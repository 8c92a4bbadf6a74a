//! Times parsing and executing a realistic chart template: `examples/bench/deployment.yaml`
//! (a Deployment of about 280 lines in the style of `helm create` charts, with four
//! containers, ranges, withs and many `include`s) and `_helpers.tpl` (70 lines).
//!
//! Run with `cargo run --release --example bench [ITERATIONS]`. The Sprig and Helm functions
//! the template calls are simple stand-ins written here (their output is plausible, not
//! Helm's byte for byte); the point is the engine's own cost: lexing, parsing, walking,
//! variable scoping, calls and Go printing.

use std::rc::Rc;
use std::time::Instant;

use meshchart_gotemplate::{Arity, Context, FuncError, Map, MissingKey, Templates, Value};

#[path = "../tests/support/json.rs"]
mod json;

const DEPLOYMENT: &str = include_str!("bench/deployment.yaml");
const HELPERS: &str = include_str!("bench/_helpers.tpl");
const VALUES: &str = include_str!("bench/values.json");

fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

fn to_yaml(out: &mut String, v: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match v {
        Value::Map(m) => {
            for (i, (k, v)) in m.borrow().iter().enumerate() {
                if i > 0 || indent > 0 {
                    out.push('\n');
                    out.push_str(&pad);
                }
                out.push_str(k);
                out.push(':');
                match v {
                    Value::Map(_) | Value::Seq(_) => to_yaml(out, v, indent + 2),
                    v => {
                        out.push(' ');
                        to_yaml(out, v, 0);
                    }
                }
            }
        }
        Value::Seq(l) => {
            for (i, v) in l.iter().enumerate() {
                if i > 0 || indent > 0 {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent.saturating_sub(2)));
                }
                out.push_str("- ");
                to_yaml(out, v, 0);
            }
        }
        Value::Float(f) if f.fract() == 0.0 => out.push_str(&(*f as i64).to_string()),
        v => out.push_str(&v.to_string()),
    }
}

fn functions(set: &mut Templates) {
    type F = fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, FuncError>;
    let table: [(&str, Arity, F); 11] = [
        ("include", Arity::Exact(2), |c, a| {
            c.execute(&s(&a[0]), &a[1])
                .map(Value::from)
                .map_err(FuncError::from)
        }),
        ("default", Arity::AtLeast(1), |_, a| match a.get(1) {
            Some(v) if v.is_true() => Ok(v.clone()),
            _ => Ok(a[0].clone()),
        }),
        ("trunc", Arity::Exact(2), |_, a| {
            let n = a[0].as_int().unwrap_or(0).max(0) as usize;
            Ok(Value::from(s(&a[1]).chars().take(n).collect::<String>()))
        }),
        ("trimSuffix", Arity::Exact(2), |_, a| {
            let t = s(&a[1]);
            Ok(Value::from(
                t.strip_suffix(&s(&a[0])).unwrap_or(&t).to_string(),
            ))
        }),
        ("contains", Arity::Exact(2), |_, a| {
            Ok(Value::Bool(s(&a[1]).contains(&s(&a[0]))))
        }),
        ("replace", Arity::Exact(3), |_, a| {
            Ok(Value::from(s(&a[2]).replace(&s(&a[0]), &s(&a[1]))))
        }),
        ("quote", Arity::AtLeast(0), |_, a| {
            Ok(Value::from(
                a.iter()
                    .map(|v| format!("{:?}", s(v)))
                    .collect::<Vec<_>>()
                    .join(" "),
            ))
        }),
        ("upper", Arity::Exact(1), |_, a| {
            Ok(Value::from(s(&a[0]).to_uppercase()))
        }),
        ("toString", Arity::Exact(1), |_, a| {
            Ok(Value::from(s(&a[0])))
        }),
        ("nindent", Arity::Exact(2), |_, a| {
            let pad = " ".repeat(a[0].as_int().unwrap_or(0).max(0) as usize);
            let body: Vec<String> = s(&a[1]).split('\n').map(|l| format!("{pad}{l}")).collect();
            Ok(Value::from(format!("\n{}", body.join("\n"))))
        }),
        ("toYaml", Arity::Exact(1), |_, a| {
            let mut out = String::new();
            to_yaml(&mut out, &a[0], 0);
            Ok(Value::from(out))
        }),
    ];
    for (name, arity, f) in table {
        set.add_function(name, arity, Rc::new(f));
    }
}

fn data() -> Value {
    let mut chart = Map::new();
    chart.insert("Name".into(), Value::from("web"));
    chart.insert("Version".into(), Value::from("1.4.0+build.7"));
    chart.insert("AppVersion".into(), Value::from("1.2.3"));
    let mut release = Map::new();
    release.insert("Name".into(), Value::from("prod"));
    release.insert("Namespace".into(), Value::from("web"));
    release.insert("Service".into(), Value::from("Helm"));
    let mut top = Map::new();
    top.insert("Values".into(), json::parse_json(VALUES));
    top.insert("Chart".into(), Value::from(chart));
    top.insert("Release".into(), Value::from(release));
    Value::from(top)
}

fn render(data: &Value) -> Result<String, meshchart_gotemplate::Error> {
    let mut set = Templates::new("gotpl");
    set.set_missing_key(MissingKey::Zero);
    functions(&mut set);
    set.parse("web/templates/deployment.yaml", DEPLOYMENT)?;
    set.parse("web/templates/_helpers.tpl", HELPERS)?;
    set.execute("web/templates/deployment.yaml", data)
}

/// This thread's time on a CPU, from Linux's schedstat (nanoseconds), so a busy machine
/// does not inflate the figure; None elsewhere.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let data = data();
    let out = match render(&data) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    if std::env::var_os("SHOW").is_some() {
        println!("{out}");
    }
    // Parse and execute together, a fresh set each time, as a render of one chart does.
    let (start, cpu0) = (Instant::now(), cpu_ns());
    let mut bytes = 0;
    for _ in 0..n {
        bytes += render(&data).map(|o| o.len()).unwrap_or(0);
    }
    let (per, cpu1) = (start.elapsed() / n, cpu_ns());
    // Parsing alone.
    let start = Instant::now();
    for _ in 0..n {
        let mut set = Templates::new("gotpl");
        functions(&mut set);
        let _ = set.parse("web/templates/deployment.yaml", DEPLOYMENT);
        let _ = set.parse("web/templates/_helpers.tpl", HELPERS);
    }
    let (parse, cpu2) = (start.elapsed() / n, cpu_ns());
    let per_cpu = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.1}", (b - a) as f64 / f64::from(n) / 1000.0),
        _ => "?".into(),
    };
    println!(
        "{} template lines, {} output lines, {} bytes, {n} iterations: parse+execute {per:?} per render \
         ({parse:?} of it parsing); on-CPU {} µs per render ({} µs parsing)",
        DEPLOYMENT.lines().count() + HELPERS.lines().count(),
        out.lines().count(),
        bytes / n as usize,
        per_cpu(cpu0, cpu1),
        per_cpu(cpu1, cpu2),
    );
}
