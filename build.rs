//! Embeds the repository's own chart (Chart.yaml, templates/, values/) into the binary.

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

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for top in [
        "Chart.yaml",
        "templates",
        "values",
        "values.schema.json",
        "README.md",
        "LICENSE",
        ".helmignore",
    ] {
        let path = root.join(top);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect(&path, &root, &mut files);
        } else if path.is_file() {
            files.push(PathBuf::from(top));
        }
    }
    let mut code = String::from("/// The embedded chart's files: path relative to the chart root, and text.\npub static FILES: &[(&str, &str)] = &[\n");
    for file in files {
        let relative = file.to_string_lossy().replace('\\', "/");
        let absolute = root.join(&file);
        writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            absolute.to_string_lossy()
        )
        .expect("write to String");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_chart.rs");
    std::fs::write(out, code).expect("write embedded_chart.rs");
    link_executable_without_pie();
}

/// A position-independent executable makes the dynamic loader relocate every pointer in the
/// binary's data at each start. Linked at a fixed address instead, those are resolved once, by
/// the linker: a whole-process render starts faster and touches fewer pages.
fn link_executable_without_pie() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux") && target.starts_with("x86_64") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
