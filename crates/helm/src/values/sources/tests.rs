fn overrides(files: &[&str], set: &[&str], set_file: &[&str]) -> ValueOverrides {
    let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    ValueOverrides {
        files: owned(files),
        set: owned(set),
        set_file: owned(set_file),
        ..Default::default()
    }
}

#[test]
fn every_file_of_a_set_file_list_is_resolved_against_the_base() {
    let mut o = overrides(&["v.yaml", "/abs.yaml"], &[], &["a=x.pem,b=y.pem", "c=-"]);
    o.resolve_paths(camino::Utf8Path::new("case"));
    assert_eq!(o.files, ["case/v.yaml", "/abs.yaml"]);
    assert_eq!(o.set_file, ["a=case/x.pem,b=case/y.pem", "c=-"]);
}

#[test]
fn stdin_is_read_only_for_a_dash_file_or_a_dash_set_file() {
    assert!(overrides(&["-"], &[], &[]).reads_stdin());
    assert!(overrides(&[], &[], &["ca=-"]).reads_stdin());
    assert!(overrides(&[], &[], &["a=x.pem,b=-"]).reads_stdin());
    assert!(!overrides(&[], &["name=-"], &[]).reads_stdin());
    assert!(!overrides(&["prod.yaml"], &[], &["ca=ca.pem"]).reads_stdin());
}

use super::*;
use crate::yaml::parse_document;

fn yaml(text: &str) -> Value {
    parse_document(text).unwrap()
}

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("meshchart-sources-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, content: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn user(o: &ValueOverrides) -> Result<Value, ValuesError> {
    user_values(o, &mut std::io::empty())
}

#[test]
fn precedence_is_by_flag_type_not_position() {
    let dir = TempDir::new("precedence");
    let o = ValueOverrides {
        files: vec![dir.file("a.yaml", "k: file\n")],
        set_json: vec![r#"k="json""#.into()],
        set: vec!["k=set".into()],
        set_string: vec!["k=string".into()],
        set_file: vec![format!("k={}", dir.file("k.txt", "fromfile"))],
        set_literal: vec!["k=literal".into()],
        ..ValueOverrides::default()
    };
    assert_eq!(user(&o).unwrap(), yaml("k: literal"));
    let order: Vec<SetMode> = o
        .sources()
        .iter()
        .filter_map(|s| match s {
            Source::Set { mode, .. } => Some(*mode),
            Source::File(_) => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            SetMode::SetJson,
            SetMode::Set,
            SetMode::SetString,
            SetMode::SetFile,
            SetMode::SetLiteral
        ]
    );
}

#[test]
fn later_files_win_over_earlier_ones() {
    let dir = TempDir::new("later-files");
    let a = dir.file("a.yaml", "x: a\nonlyA: 1\n");
    let b = dir.file("b.yaml", "x: b\n");
    let o = ValueOverrides {
        files: vec![a, b],
        ..Default::default()
    };
    assert_eq!(user(&o).unwrap(), yaml("x: b\nonlyA: 1"));
}

#[test]
fn set_index_patches_a_list_from_a_file() {
    let dir = TempDir::new("patch-list");
    let o = ValueOverrides {
        files: vec![dir.file("l.yaml", "list: [a, b, c]\n")],
        set: vec!["list[1]=x".into()],
        ..Default::default()
    };
    let defaults = yaml("list: [one, two]");
    let (v, _) = effective_values(&defaults, &o, &mut std::io::empty()).unwrap();
    assert_eq!(v, yaml("list: [a, x, c]"));
}

#[test]
fn set_index_replaces_a_list_only_in_the_defaults() {
    let o = ValueOverrides {
        set: vec!["list[1]=x".into()],
        ..Default::default()
    };
    let defaults = yaml("list: [one, two]");
    let (v, _) = effective_values(&defaults, &o, &mut std::io::empty()).unwrap();
    assert_eq!(v, yaml("list: [null, x]"));
}

#[test]
fn scalar_set_then_nested_set_fails_but_not_the_reverse() {
    let bad = ValueOverrides {
        set: vec!["a=2".into(), "a.b=1".into()],
        ..Default::default()
    };
    let e = user(&bad).unwrap_err();
    assert!(e.to_string().starts_with("--set a.b=1: "), "{e}");
    let good = ValueOverrides {
        set: vec!["a.b=1".into(), "a=2".into()],
        ..Default::default()
    };
    assert_eq!(user(&good).unwrap(), yaml("a: 2"));
}

#[test]
fn empty_file_adds_nothing() {
    let dir = TempDir::new("empty");
    let o = ValueOverrides {
        files: vec![
            dir.file("e.yaml", ""),
            dir.file("c.yaml", "# only a comment\n"),
        ],
        ..Default::default()
    };
    assert_eq!(user(&o).unwrap(), Value::Map(Map::new()));
}

#[test]
fn missing_file_is_named() {
    let o = ValueOverrides {
        files: vec!["does-not-exist.yaml".into()],
        ..Default::default()
    };
    assert_eq!(
        user(&o).unwrap_err().to_string(),
        "values file does-not-exist.yaml: file not found"
    );
}

#[test]
fn yaml_error_names_file_line_and_column() {
    let dir = TempDir::new("yaml-error");
    let file = dir.file("prod.yaml", "a: 1\nb:\n\tc: x\n");
    let o = ValueOverrides {
        files: vec![file.clone()],
        ..Default::default()
    };
    let e = user(&o).unwrap_err();
    let ValuesError::Yaml { file: f, line, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(f, &file);
    assert_eq!(*line, 3);
    assert!(
        e.to_string()
            .starts_with(&format!("values file {file}, line 3, column ")),
        "{e}"
    );
}

#[test]
fn top_level_list_is_rejected_naming_the_file() {
    let dir = TempDir::new("top-list");
    let file = dir.file("prod.yaml", "- a\n- b\n");
    let o = ValueOverrides {
        files: vec![file.clone()],
        ..Default::default()
    };
    assert_eq!(
        user(&o).unwrap_err().to_string(),
        format!("{file}: the top level must be a map, found a list")
    );
}

#[test]
fn kept_files_are_not_read_again() {
    let dir = TempDir::new("kept");
    let file = dir.file("shared.yaml", "from: disk\n");
    let kept = KeptFiles::from([(file.clone(), "from: kept\n".to_owned())]);
    let o = overrides(&[&file], &[], &[]);
    let v = user_values_with(&o, &mut std::io::empty(), kept).unwrap();
    assert_eq!(v, yaml("from: kept"));
}

#[test]
fn dash_reads_values_from_stdin_once_for_all_readers() {
    let o = ValueOverrides {
        files: vec!["-".into()],
        set_file: vec!["raw=-".into()],
        ..Default::default()
    };
    let mut stdin: &[u8] = b"a: 1\n";
    let v = user_values(&o, &mut stdin).unwrap();
    assert_eq!(v, yaml("a: 1\nraw: \"a: 1\\n\""));
}

#[test]
fn stdin_yaml_errors_say_stdin() {
    let o = ValueOverrides {
        files: vec!["-".into()],
        ..Default::default()
    };
    let mut stdin: &[u8] = b"[unclosed\n";
    let e = user_values(&o, &mut stdin).unwrap_err();
    assert!(
        e.to_string().starts_with("values file <stdin>, line "),
        "{e}"
    );
}

#[test]
fn set_file_missing_is_named() {
    let o = ValueOverrides {
        set_file: vec!["k=no-such-file.txt".into()],
        ..Default::default()
    };
    assert_eq!(
        user(&o).unwrap_err().to_string(),
        r#"--set-file k=no-such-file.txt: cannot read "no-such-file.txt": file not found"#
    );
}

#[test]
fn effective_values_reports_coalesce_warnings() {
    let o = ValueOverrides {
        set: vec!["keep.sub=1".into()],
        ..Default::default()
    };
    let (v, w) = effective_values(&yaml("keep: x"), &o, &mut std::io::empty()).unwrap();
    assert_eq!(v, yaml("keep: {sub: 1}"));
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("\"keep\""), "{w:?}");
}

#[test]
fn assembler_shows_each_step() {
    let mut stdin = std::io::empty();
    let mut a = Assembler::new(&mut stdin);
    a.apply(&Source::Set {
        mode: SetMode::Set,
        expression: "a=1".into(),
    })
    .unwrap();
    assert_eq!(a.values(), &yaml("a: 1"));
    let bad = Source::Set {
        mode: SetMode::Set,
        expression: "a.b=2".into(),
    };
    assert!(a.apply(&bad).is_err());
    assert_eq!(a.finish(), yaml("a: 1"));
}
