//! Embeds the release lines' charts (`templates/<release>/<chart>/` and `values/<release>/<chart>/`)
//! into the binary.

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

fn main() {
    // templates/ and values/ sit at the workspace's root, two folders up.
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../..");
    let mut code = String::from(
        "/// One embedded chart's files: each path relative to the chart root, with its text.\n\
         pub type ChartFiles = &'static [(&'static str, &'static str)];\n\
         /// The charts compiled into the binary: release line, chart name and files.\n\
         pub static CHARTS: &[(&str, &str, ChartFiles)] = &[\n",
    );
    for top in ["templates", "values"] {
        println!("cargo:rerun-if-changed={}", root.join(top).display());
    }
    for release_dir in subfolders(&root.join("templates")) {
        println!("cargo:rerun-if-changed={}", release_dir.display());
        for chart_dir in subfolders(&release_dir) {
            let release = release_dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            let chart = chart_dir.file_name().unwrap_or_default().to_string_lossy();
            let mut files = Vec::new();
            for top in ["templates", "values"] {
                let dir = root.join(top).join(&*release).join(&*chart);
                println!("cargo:rerun-if-changed={}", dir.display());
                let mut found = Vec::new();
                collect(&dir, &dir, &mut found);
                for relative in found {
                    let relative_text = relative.to_string_lossy().replace('\\', "/");
                    files.push((chart_path(top, &relative_text), dir.join(&relative)));
                }
            }
            files.sort();
            writeln!(code, "    ({release:?}, {chart:?}, &[").expect("write to String");
            for (path, absolute) in files {
                println!("cargo:rerun-if-changed={}", absolute.display());
                writeln!(
                    code,
                    "        ({path:?}, include_str!({:?})),",
                    absolute.to_string_lossy()
                )
                .expect("write to String");
            }
            code.push_str("    ]),\n");
        }
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_charts.rs");
    std::fs::write(out, code).expect("write embedded_charts.rs");
}
