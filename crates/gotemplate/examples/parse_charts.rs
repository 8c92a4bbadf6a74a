//! Parses every template of the charts under the given directories, as Helm would put them in
//! one set, and reports what failed: a smoke test of the parser on real charts.
//!
//! `cargo run --release --example parse_charts -- DIR...`. Functions are not checked: every
//! identifier a template calls is registered as a stand-in first (Sprig and Helm functions
//! come from meshchart's Helm layer, not this crate).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use meshchart_gotemplate::{Arity, Context, Error, Templates, Value};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.components().any(|c| c.as_os_str() == "templates") {
            out.push(p);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    for d in std::env::args().skip(1) {
        walk(Path::new(&d), &mut files);
    }
    files.sort();
    let mut set = Templates::new("gotpl");
    let (mut ok, mut failed, mut lines) = (0, 0, 0);
    let start = std::time::Instant::now();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        lines += text.lines().count();
        let name = f.to_string_lossy();
        loop {
            match set.parse(&name, &text) {
                Ok(()) => {
                    ok += 1;
                    break;
                }
                Err(Error::Parse { message, .. })
                    if message.starts_with("function \"")
                        && message.ends_with("\" not defined") =>
                {
                    let fname =
                        &message["function \"".len()..message.len() - "\" not defined".len()];
                    set.add_function(
                        fname,
                        Arity::AtLeast(0),
                        Rc::new(|_: &mut Context<'_, '_>, _: &[Value]| Ok(Value::Null)),
                    );
                }
                Err(e) => {
                    println!("{e}");
                    failed += 1;
                    break;
                }
            }
        }
    }
    println!(
        "{} files ({lines} lines): {ok} parsed, {failed} failed, in {:?}",
        files.len(),
        start.elapsed()
    );
}
