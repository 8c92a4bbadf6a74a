//! Parses every template under a directory many times, for profiling the parser:
//! `parseprof DIR [ITERATIONS]`.
use std::rc::Rc;

use meshchart_gotemplate::{Arity, Context, Error, Templates, Value};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.components().any(|c| c.as_os_str() == "templates") {
                if let Ok(t) = std::fs::read_to_string(&p) {
                    files.push((p.to_string_lossy().into_owned(), t));
                }
            }
        }
    }
    let mut set = Templates::new("gotpl");
    let cpu = || -> Option<u64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    };
    let cpu0 = cpu();
    let start = std::time::Instant::now();
    for _ in 0..n {
        for (name, text) in &files {
            loop {
                match set.parse(name, text) {
                    Err(Error::Parse { message, .. }) if message.ends_with("\" not defined") => {
                        let f = message
                            .trim_start_matches("function \"")
                            .trim_end_matches("\" not defined")
                            .to_string();
                        set.add_function(
                            &f,
                            Arity::AtLeast(0),
                            Rc::new(|_: &mut Context<'_, '_>, _: &[Value]| Ok(Value::Null)),
                        );
                    }
                    _ => break,
                }
            }
        }
    }
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let on_cpu = match (cpu0, cpu()) {
        (Some(a), Some(b)) => format!("{:.2} ms", (b - a) as f64 / n as f64 / 1e6),
        _ => "?".into(),
    };
    println!(
        "{} files, {} bytes: {:?} per pass, on-CPU {on_cpu}",
        files.len(),
        bytes,
        start.elapsed() / n as u32
    );
}
