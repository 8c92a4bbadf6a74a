//! Unit tests for `values --explain`.

/// Standard input that fails the test if anything reads it.
struct UntouchableStdin;

impl std::io::Read for UntouchableStdin {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        panic!("standard input was read");
    }
}

#[test]
fn a_set_value_of_dash_does_not_read_standard_input() {
    let overrides = ValueOverrides {
        set: vec!["name=-".into()],
        ..Default::default()
    };
    let explained = explain(
        None,
        &Value::Map(Default::default()),
        &overrides,
        &mut UntouchableStdin,
    )
    .unwrap();
    assert_eq!(
        explained.values.get_path(&["name"]),
        Some(&Value::String("-".into()))
    );
}

use super::*;
use crate::yaml::parse_document;

const DEFAULTS: &str = "proxy:\n  await: true\n  image: proxy\nports: [1, 2]\nlabels: {}\n";

fn p(parts: &[&str]) -> LeafPath {
    parts.iter().map(|s| s.to_string()).collect()
}

fn run(o: &ValueOverrides) -> Explained {
    let file = DefaultsFile {
        name: "values.yaml",
        text: DEFAULTS,
    };
    explain(
        Some(file),
        &parse_document(DEFAULTS).unwrap(),
        o,
        &mut std::io::empty(),
    )
    .unwrap()
}

#[test]
fn untouched_leaves_name_the_defaults_line() {
    let e = run(&ValueOverrides::default());
    assert_eq!(
        e.origin_of(&p(&["proxy", "image"])).unwrap(),
        "values.yaml:3"
    );
    assert_eq!(e.origin_of(&p(&["ports", "1"])).unwrap(), "values.yaml:4");
    assert_eq!(e.origin_of(&p(&["labels"])).unwrap(), "values.yaml:5");
}

#[test]
fn a_set_flag_names_its_expression() {
    let e = run(&ValueOverrides {
        set: vec!["proxy.await=false".into()],
        ..Default::default()
    });
    assert_eq!(
        e.origin_of(&p(&["proxy", "await"])).unwrap(),
        "--set proxy.await=false"
    );
    assert_eq!(
        e.origin_of(&p(&["proxy", "image"])).unwrap(),
        "values.yaml:3"
    );
}

#[test]
fn a_later_file_takes_over_the_leaves_it_writes() {
    let dir = std::env::temp_dir().join(format!("meshchart-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.yaml");
    let b = dir.join("b.yaml");
    std::fs::write(&a, "proxy:\n  image: a\n  await: false\n").unwrap();
    std::fs::write(&b, "# b\nproxy:\n  image: a\n").unwrap();
    let (a, b) = (
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
    );
    let e = run(&ValueOverrides {
        files: vec![a.clone(), b.clone()],
        ..Default::default()
    });
    assert_eq!(
        e.origin_of(&p(&["proxy", "image"])).unwrap(),
        format!("{b}:3")
    );
    assert_eq!(
        e.origin_of(&p(&["proxy", "await"])).unwrap(),
        format!("{a}:3")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn annotations_land_on_each_leaf_line_and_keep_the_yaml_valid() {
    let yaml = "a: |-\n  one\n  two\nb:\n  c: folded text that\n    goes on\n  d: {}\nl:\n- x\n";
    let mut origins = BTreeMap::new();
    for (path, origin) in [
        (p(&["a"]), "A"),
        (p(&["b", "c"]), "C"),
        (p(&["b", "d"]), "D"),
        (p(&["l", "0"]), "X"),
    ] {
        origins.insert(path, origin.to_owned());
    }
    let out = annotate(yaml, |path| origins.get(path).cloned());
    assert_eq!(
        out,
        "a: |-  # A\n  one\n  two\nb:\n  c: folded text that\n    goes on  # C\n  d: {}  # D\nl:\n- x  # X\n"
    );
    assert_eq!(parse_document(&out).unwrap(), parse_document(yaml).unwrap());
}
