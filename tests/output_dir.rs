//! `--output-dir` is all or nothing, even when a write fails halfway through.

mod support;

use camino::Utf8PathBuf;
use meshchart::engine::{Rendered, RenderedDocument};
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
