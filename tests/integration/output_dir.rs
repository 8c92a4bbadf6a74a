//! `--output-dir` is all or nothing, even when a write fails halfway through.

use crate::support;

use camino::Utf8PathBuf;
use meshchart::manifest::{Rendered, RenderedDocument};
use meshchart::output::Removal;
use meshchart::render::{write_output_dir, write_output_dir_with};
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
    // The folder was made for this run, and goes again with nothing written.
    assert!(!dir.exists());
    let siblings: Vec<_> = std::fs::read_dir(dir.parent().unwrap()).unwrap().collect();
    assert!(siblings.is_empty(), "{siblings:?}");
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

/// Every file under `dir`, relative, sorted (what `kubectl apply -R dir` would consider); the
/// output door's record of what it wrote is left out (not YAML: kubectl passes it by).
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if entry.file_name() != meshchart::output::RECORD_NAME {
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

/// Older versions named staging after the process id; such folders (the process is long gone)
/// are stale too.
#[test]
fn folders_named_like_an_older_versions_staging_are_left_alone_and_never_published() {
    let parent = scratch_dir("outdir-stale");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    // Named as older versions named staging (by PID), beside the folder and inside it: nothing
    // in them proves meshchart made them, so they may be the user's (issue #33).
    let dead = u32::MAX - 1;
    let beside = parent.join(format!(".out.meshchart-staging-{dead}/new/demo/templates"));
    let inside = parent.join(format!("out/.meshchart-staging-{dead}/new/demo/templates"));
    for folder in [&beside, &inside] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("half.yaml"), "kind: Conf").unwrap();
    }
    std::fs::create_dir_all(parent.join("out/.meshchart-staging-notapid")).unwrap();
    write_output_dir_with(&dir, &demo(&["a"]), |p, t| std::fs::write(p, t)).unwrap();
    for folder in [&beside, &inside] {
        assert!(folder.join("half.yaml").exists(), "{}", folder.display());
    }
    assert!(parent.join("out/.meshchart-staging-notapid").exists());
    assert_eq!(
        files_under(dir.join("demo").as_std_path()),
        ["templates/a.yaml"]
    );
}

#[test]
fn files_the_user_keeps_in_the_charts_folder_survive_every_run() {
    let parent = scratch_dir("outdir-foreign");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    write_output_dir(&dir, &demo(&["a", "b"]), Removal::Stale).unwrap();
    std::fs::write(dir.join("demo/kustomization.yaml"), "resources: []\n").unwrap();
    std::fs::create_dir_all(dir.join("demo/certs")).unwrap();
    std::fs::write(dir.join("demo/certs/ca.key"), "secret").unwrap();
    std::fs::write(dir.join("other.yaml"), "kind: Other").unwrap();
    write_output_dir(&dir, &demo(&["a"]), Removal::Stale).unwrap();
    assert_eq!(
        files_under(dir.as_std_path()),
        [
            "demo/certs/ca.key",
            "demo/kustomization.yaml",
            "demo/templates/a.yaml",
            "other.yaml"
        ]
    );
}

#[test]
fn a_partial_render_leaves_the_other_templates_files() {
    let parent = scratch_dir("outdir-show-only");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    write_output_dir(&dir, &demo(&["a", "b"]), Removal::Stale).unwrap();
    write_output_dir(&dir, &demo(&["a"]), Removal::None).unwrap();
    assert_eq!(
        files_under(dir.as_std_path()),
        ["demo/templates/a.yaml", "demo/templates/b.yaml"]
    );
}

#[test]
fn a_file_the_user_keeps_where_a_template_goes_is_named_and_nothing_changes() {
    let parent = scratch_dir("outdir-in-the-way");
    let dir = Utf8PathBuf::from_path_buf(parent.join("out")).unwrap();
    std::fs::create_dir_all(dir.join("demo/templates")).unwrap();
    std::fs::write(dir.join("demo/templates/b.yaml"), "mine").unwrap();
    let error = write_output_dir(&dir, &demo(&["a", "b"]), Removal::Stale)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(dir.join("demo/templates/b.yaml").as_str()),
        "{error}"
    );
    assert_eq!(files_under(dir.as_std_path()), ["demo/templates/b.yaml"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("demo/templates/b.yaml")).unwrap(),
        "mine"
    );
}
