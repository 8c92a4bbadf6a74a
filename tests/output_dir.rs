//! `--output-dir` is all or nothing, even when a write fails halfway through.

mod support;

use camino::Utf8PathBuf;
use meshchart::manifest::{Rendered, RenderedDocument};
use meshchart::render::write_output_dir_with;
use support::cli::scratch_dir;

fn doc(template: &str, name: &str) -> RenderedDocument {
    RenderedDocument {
        template: template.into(),
        text: format!("kind: ConfigMap\nmetadata:\n  name: {name}"),
        kind: "ConfigMap".into(),
        name: name.into(),
        namespace: String::new(),
        hook: None,
    }
}

#[test]
fn a_write_failure_midway_leaves_no_partial_files() {
    let dir = Utf8PathBuf::from_path_buf(scratch_dir("outdir").join("out")).unwrap();
    let rendered = Rendered {
        chart_name: "demo".into(),
        documents: vec![
            doc("templates/a.yaml", "a"),
            doc("templates/b.yaml", "b"),
            doc("templates/c.yaml", "c"),
        ],
        notes: vec![],
    };
    let mut writes = 0;
    let result = write_output_dir_with(&dir, &rendered, |path, text| {
        writes += 1;
        if writes == 2 {
            return Err(std::io::Error::other("disk full"));
        }
        std::fs::write(path, text)
    });
    let error = result.unwrap_err().to_string();
    assert!(
        error.contains("b.yaml") && error.contains("disk full"),
        "{error}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_second_run_replaces_the_first_runs_files() {
    let dir = Utf8PathBuf::from_path_buf(scratch_dir("outdir2").join("out")).unwrap();
    let first = Rendered {
        chart_name: "demo".into(),
        documents: vec![doc("templates/old.yaml", "old")],
        notes: vec![],
    };
    write_output_dir_with(&dir, &first, |p, t| std::fs::write(p, t)).unwrap();
    let second = Rendered {
        chart_name: "demo".into(),
        documents: vec![doc("templates/new.yaml", "new")],
        notes: vec![],
    };
    write_output_dir_with(&dir, &second, |p, t| std::fs::write(p, t)).unwrap();
    assert!(dir.join("demo/templates/new.yaml").exists());
    assert!(!dir.join("demo/templates/old.yaml").exists());
}

fn demo(names: &[&str]) -> Rendered {
    Rendered {
        chart_name: "demo".into(),
        documents: names
            .iter()
            .map(|n| doc(&format!("templates/{n}.yaml"), n))
            .collect(),
        notes: vec![],
    }
}

/// Every file under `dir`, relative, sorted (what `kubectl apply -R dir` would consider).
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn staging_happens_beside_the_output_folder_not_inside_it() {
    let parent = scratch_dir("outdir-staging");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    let mut seen_inside = Vec::new();
    write_output_dir_with(&dir, &demo(&["a", "b"]), |path, text| {
        // Killed at this moment, the output folder must hold nothing new.
        seen_inside.push(files_under(dir.as_std_path()));
        assert!(!path.starts_with(&dir), "{path} is inside {dir}");
        std::fs::write(path, text)
    })
    .unwrap();
    assert!(
        seen_inside.iter().all(|files| files.is_empty()),
        "{seen_inside:?}"
    );
    assert_eq!(
        files_under(dir.as_std_path()),
        ["demo/templates/a.yaml", "demo/templates/b.yaml"]
    );
    let siblings: Vec<_> = std::fs::read_dir(&parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(siblings, ["out"], "the staging folder is gone");
}

#[test]
fn stale_staging_folders_of_dead_runs_are_removed() {
    let parent = scratch_dir("outdir-stale");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    // What a run killed midway left: beside the folder (now), and inside it (older versions).
    let dead = u32::MAX - 1;
    let beside = parent.join(format!(".out.meshchart-staging-{dead}/new/demo/templates"));
    let inside = parent.join(format!("out/.meshchart-staging-{dead}/new/demo/templates"));
    for folder in [&beside, &inside] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("half.yaml"), "kind: Conf").unwrap();
    }
    // Someone else's folder with a similar name stays.
    std::fs::create_dir_all(parent.join("out/.meshchart-staging-notapid")).unwrap();
    write_output_dir_with(&dir, &demo(&["a"]), |p, t| std::fs::write(p, t)).unwrap();
    assert!(!parent
        .join(format!(".out.meshchart-staging-{dead}"))
        .exists());
    assert!(!parent
        .join(format!("out/.meshchart-staging-{dead}"))
        .exists());
    assert!(parent.join("out/.meshchart-staging-notapid").exists());
    assert_eq!(files_under(dir.as_std_path()), ["demo/templates/a.yaml"]);
}
