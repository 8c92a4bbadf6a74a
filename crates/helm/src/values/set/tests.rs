//! Unit tests for `--set` parsing and applying.

use super::*;

fn set(expr: &str) -> Value {
    Value::Map(parse_set(expr, SetMode::Set).unwrap())
}

fn set_err(expr: &str) -> SetError {
    parse_set(expr, SetMode::Set).unwrap_err()
}

fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    v.get_path(path)
        .unwrap_or_else(|| panic!("no {path:?} in {v:?}"))
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

#[test]
fn true_false_null_are_case_insensitive() {
    let v = set("a=tRuE,b=FALSE,c=Null");
    assert_eq!(at(&v, &["a"]), &Value::Bool(true));
    assert_eq!(at(&v, &["b"]), &Value::Bool(false));
    assert_eq!(at(&v, &["c"]), &Value::Null);
}

#[test]
fn yaml_1_1_words_stay_strings() {
    let v = set("a=yes,b=on,c=t,d=~");
    assert_eq!(at(&v, &["a"]), &s("yes"));
    assert_eq!(at(&v, &["b"]), &s("on"));
    assert_eq!(at(&v, &["c"]), &s("t"));
    assert_eq!(at(&v, &["d"]), &s("~"));
}

#[test]
fn integers_are_int64_without_leading_zeros() {
    let v = set("a=1,b=-5,c=+5,d=-0,e=0,f=007,g=00,h=-0005");
    assert_eq!(at(&v, &["a"]), &Value::Int(1));
    assert_eq!(at(&v, &["b"]), &Value::Int(-5));
    assert_eq!(at(&v, &["c"]), &Value::Int(5));
    assert_eq!(at(&v, &["d"]), &Value::Int(0));
    assert_eq!(at(&v, &["e"]), &Value::Int(0));
    assert_eq!(at(&v, &["f"]), &s("007"));
    assert_eq!(at(&v, &["g"]), &s("00"));
    assert_eq!(at(&v, &["h"]), &Value::Int(-5));
}

#[test]
fn int64_overflow_stays_a_string() {
    let v = set("a=9223372036854775807,b=9223372036854775808,c=-9223372036854775809");
    assert_eq!(at(&v, &["a"]), &Value::Int(i64::MAX));
    assert_eq!(at(&v, &["b"]), &s("9223372036854775808"));
    assert_eq!(at(&v, &["c"]), &s("-9223372036854775809"));
}

#[test]
fn floats_hex_and_underscores_stay_strings() {
    let v = set("a=1.5,b=1e3,c=0x1F,d=1_000");
    for (k, text) in [("a", "1.5"), ("b", "1e3"), ("c", "0x1F"), ("d", "1_000")] {
        assert_eq!(at(&v, &[k]), &s(text));
    }
}

#[test]
fn empty_value_is_an_empty_string() {
    let v = set("a=,b=x");
    assert_eq!(at(&v, &["a"]), &s(""));
    assert_eq!(at(&v, &["b"]), &s("x"));
    assert_eq!(at(&set("a="), &["a"]), &s(""));
}

#[test]
fn dotted_paths_nest_maps() {
    let v = set("a.b.c=1,a.b.d=2");
    assert_eq!(at(&v, &["a", "b", "c"]), &Value::Int(1));
    assert_eq!(at(&v, &["a", "b", "d"]), &Value::Int(2));
}

#[test]
fn backslash_escapes_comma_dot_equals_and_itself() {
    let v = set(r"a=x\,y,b\.c=1,d\=e=2,f=x\\y,g=\q");
    assert_eq!(at(&v, &["a"]), &s("x,y"));
    assert_eq!(at(&v, &["b.c"]), &Value::Int(1));
    assert_eq!(at(&v, &["d=e"]), &Value::Int(2));
    assert_eq!(at(&v, &["f"]), &s(r"x\y"));
    assert_eq!(at(&v, &["g"]), &s("q"));
}

#[test]
fn only_the_first_equals_splits() {
    assert_eq!(at(&set("a=x=y"), &["a"]), &s("x=y"));
}

#[test]
fn spaces_are_kept_in_keys_and_values() {
    let v = set("a= x ,  b=1");
    assert_eq!(at(&v, &["a"]), &s(" x "));
    assert_eq!(at(&v, &["  b"]), &Value::Int(1));
}

#[test]
fn braces_make_a_typed_list() {
    let v = set("x={1,true,null,0.5, b },y=2");
    assert_eq!(
        at(&v, &["x"]),
        &Value::Seq(vec![
            Value::Int(1),
            Value::Bool(true),
            Value::Null,
            s("0.5"),
            s(" b ")
        ])
    );
    assert_eq!(at(&v, &["y"]), &Value::Int(2));
}

#[test]
fn empty_braces_are_a_list_of_one_empty_string() {
    assert_eq!(at(&set("x={}"), &["x"]), &Value::Seq(vec![s("")]));
}

#[test]
fn escaped_brace_is_not_a_list() {
    assert_eq!(at(&set(r"a=\{x\}"), &["a"]), &s("{x}"));
}

#[test]
fn list_indices_fill_gaps_with_null() {
    let v = set("a[2]=z,a[0]=x");
    assert_eq!(
        at(&v, &["a"]),
        &Value::Seq(vec![s("x"), Value::Null, s("z")])
    );
}

#[test]
fn index_then_key_builds_list_of_maps() {
    let v = set("b[0].c=1,b[0].d=2,b[1].c=3");
    let Value::Seq(items) = at(&v, &["b"]) else {
        panic!()
    };
    assert_eq!(at(&items[0], &["d"]), &Value::Int(2));
    assert_eq!(at(&items[1], &["c"]), &Value::Int(3));
}

#[test]
fn nested_indices_build_nested_lists() {
    let v = set("a.b[0][1]=x");
    assert_eq!(
        at(&v, &["a", "b"]),
        &Value::Seq(vec![Value::Seq(vec![Value::Null, s("x")])])
    );
}

#[test]
fn index_patches_an_existing_list() {
    let mut m = Map::new();
    m.insert("l".into(), Value::Seq(vec![s("a"), s("b"), s("c")]));
    apply_set(&mut m, "l[1]=z", SetMode::Set).unwrap();
    assert_eq!(m["l"], Value::Seq(vec![s("a"), s("z"), s("c")]));
}

#[test]
fn key_after_index_replaces_a_non_map_item() {
    let mut m = Map::new();
    m.insert("l".into(), Value::Seq(vec![s("a")]));
    apply_set(&mut m, "l[0].k=1", SetMode::Set).unwrap();
    let Value::Seq(items) = &m["l"] else { panic!() };
    assert_eq!(at(&items[0], &["k"]), &Value::Int(1));
}

#[test]
fn dash_and_slash_are_plain_key_characters() {
    assert_eq!(at(&set("my-key/x.y=1"), &["my-key/x", "y"]), &Value::Int(1));
}

#[test]
fn later_assignment_wins() {
    assert_eq!(at(&set("k=a,k=b"), &["k"]), &s("b"));
}

#[test]
fn nested_then_scalar_is_fine() {
    assert_eq!(at(&set("a.b=1,a=2"), &["a"]), &Value::Int(2));
}

#[test]
fn scalar_then_nested_fails_naming_the_path() {
    let e = set_err("a=2,a.b=1");
    assert!(matches!(e.problem, SetProblem::NotAMap { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        r#"--set a=2,a.b=1: cannot set "a.b": "a" already holds the number 2, not a map"#
    );
}

#[test]
fn scalar_then_index_fails() {
    let e = set_err("a=1,a[0]=2");
    assert!(matches!(e.problem, SetProblem::NotAList { .. }), "{e}");
}

#[test]
fn null_then_nested_fails_as_in_helm() {
    let mut m = Map::new();
    m.insert("image".into(), Value::Null);
    let e = apply_set(&mut m, "image.tag=x", SetMode::Set).unwrap_err();
    assert!(e.to_string().contains("already holds null"), "{e}");
}

#[test]
fn failed_expression_leaves_the_map_unchanged() {
    let mut m = Map::new();
    apply_set(&mut m, "keep=1", SetMode::Set).unwrap();
    let before = m.clone();
    apply_set(&mut m, "x=1,keep.a=2", SetMode::Set).unwrap_err();
    assert_eq!(m, before);
}

#[test]
fn key_without_value_is_an_error_naming_it() {
    assert_eq!(
        set_err("a=x,y").to_string(),
        r#"--set a=x,y: key "y" has no value"#
    );
    assert_eq!(set_err("a.b").problem, SetProblem::NoValue("a.b".into()));
    assert_eq!(
        set_err("foo,").problem,
        SetProblem::NoValueBeforeComma("foo".into())
    );
}

#[test]
fn brace_not_at_start_is_plain_text() {
    assert_eq!(
        set_err("x=a{b,c}").problem,
        SetProblem::NoValue("c}".into())
    );
}

#[test]
fn unterminated_list_is_an_error() {
    assert_eq!(set_err("x={a,b").problem, SetProblem::UnterminatedList);
}

#[test]
fn empty_key_is_ignored() {
    assert_eq!(set("=x"), Value::Map(Map::new()));
}

#[test]
fn empty_subkey_is_an_error() {
    assert_eq!(set_err("a.=1").problem, SetProblem::EmptyKeyMap("a".into()));
}

#[test]
fn negative_index_is_rejected() {
    assert_eq!(
        set_err("a[-1]=x").problem,
        SetProblem::NegativeIndex("-1".into())
    );
}

#[test]
fn index_above_65536_is_rejected() {
    assert_eq!(
        set_err("a[65537]=x").problem,
        SetProblem::IndexTooLarge("65537".into())
    );
    assert_eq!(
        set_err("a[99999999999999999999999]=x").problem,
        SetProblem::IndexTooLarge("99999999999999999999999".into())
    );
    let v = set("a[65536]=x");
    let Value::Seq(items) = at(&v, &["a"]) else {
        panic!()
    };
    assert_eq!(items.len(), 65537);
}

#[test]
fn non_numeric_index_is_rejected() {
    assert_eq!(set_err("a[x]=1").problem, SetProblem::BadIndex("x".into()));
    assert_eq!(set_err("a[]=1").problem, SetProblem::BadIndex("".into()));
}

#[test]
fn text_after_index_is_rejected() {
    assert_eq!(
        set_err("a[0]x=1").problem,
        SetProblem::DataAfterIndex("x".into())
    );
}

#[test]
fn unterminated_index_is_rejected() {
    assert_eq!(set_err("a[0").problem, SetProblem::UnterminatedIndex);
}

#[test]
fn path_ending_after_index_or_dot_is_rejected() {
    assert_eq!(set_err("a[0]").problem, SetProblem::NoValue("a[0]".into()));
    assert_eq!(set_err("a.").problem, SetProblem::NoValue("a.".into()));
}

#[test]
fn thirty_nested_keys_are_fine_thirty_one_are_not() {
    let keys: Vec<String> = (0..=30).map(|i| format!("k{i}")).collect();
    let ok = format!("{}=1", keys.join("."));
    let v = set(&ok);
    let path: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(at(&v, &path), &Value::Int(1));
    let too_deep = format!("x.{ok}");
    assert_eq!(set_err(&too_deep).problem, SetProblem::TooDeep);
}

#[test]
fn very_long_index_chains_are_bounded() {
    let ok = format!("a{}=1", "[0]".repeat(200));
    parse_set(&ok, SetMode::Set).unwrap();
    let hostile = format!("a{}=1", "[0]".repeat(100_000));
    assert_eq!(set_err(&hostile).problem, SetProblem::TooLong);
}

#[test]
fn unicode_keys_and_values_work() {
    assert_eq!(at(&set("ключ=значение"), &["ключ"]), &s("значение"));
}

#[test]
fn set_string_makes_every_leaf_a_string() {
    let v = Value::Map(parse_set("a=true,b=1,c=null,d={x,1},e[0]=2", SetMode::SetString).unwrap());
    assert_eq!(at(&v, &["a"]), &s("true"));
    assert_eq!(at(&v, &["b"]), &s("1"));
    assert_eq!(at(&v, &["c"]), &s("null"));
    assert_eq!(at(&v, &["d"]), &Value::Seq(vec![s("x"), s("1")]));
    assert_eq!(at(&v, &["e"]), &Value::Seq(vec![s("2")]));
}

#[test]
fn set_literal_takes_everything_after_the_first_equals() {
    let v = Value::Map(parse_set(r"a.b=x,y=z\,w{1}", SetMode::SetLiteral).unwrap());
    assert_eq!(at(&v, &["a", "b"]), &s(r"x,y=z\,w{1}"));
    let v = Value::Map(parse_set("n=null", SetMode::SetLiteral).unwrap());
    assert_eq!(at(&v, &["n"]), &s("null"));
}

#[test]
fn set_json_parses_values_and_keeps_integers_exact() {
    let v = Value::Map(
        parse_set(
            r#"a=9007199254740993,b=1.5,c={"x":[1,null]}, d="p,q",e="#,
            SetMode::SetJson,
        )
        .unwrap(),
    );
    assert_eq!(at(&v, &["a"]), &Value::Int(9007199254740993));
    assert_eq!(at(&v, &["b"]), &Value::Float(1.5));
    assert_eq!(
        at(&v, &["c", "x"]),
        &Value::Seq(vec![Value::Int(1), Value::Null])
    );
    assert_eq!(at(&v, &[" d"]), &s("p,q"));
    assert_eq!(at(&v, &["e"]), &Value::Null);
}

#[test]
fn set_json_integer_beyond_64_bits_becomes_a_float() {
    let v = Value::Map(parse_set("c=12345678901234567890", SetMode::SetJson).unwrap());
    assert_eq!(at(&v, &["c"]), &Value::Float(12345678901234567890.0));
}

#[test]
fn set_json_text_after_a_value_is_named() {
    let e = parse_set("a=1 2", SetMode::SetJson).unwrap_err();
    assert_eq!(
        e.problem,
        SetProblem::TextAfterJson {
            key: "a".into(),
            text: "2".into()
        }
    );
    // Helm reads a new assignment right after a value, even without a comma.
    let v = Value::Map(parse_set("a=1 b=2", SetMode::SetJson).unwrap());
    assert_eq!(at(&v, &["b"]), &Value::Int(2));
}

#[test]
fn set_json_with_index_path() {
    let v = Value::Map(parse_set(r#"a.b[1]={"x":1}"#, SetMode::SetJson).unwrap());
    let Value::Seq(items) = at(&v, &["a", "b"]) else {
        panic!()
    };
    assert_eq!(items[0], Value::Null);
    assert_eq!(at(&items[1], &["x"]), &Value::Int(1));
}

#[test]
fn set_json_rejects_bad_json_naming_the_key() {
    let e = parse_set("a={bad", SetMode::SetJson).unwrap_err();
    assert!(
        matches!(&e.problem, SetProblem::BadJson { key, .. } if key == "a"),
        "{e}"
    );
    assert!(e.to_string().starts_with("--set-json a={bad: "), "{e}");
    assert!(parse_set("a=hello", SetMode::SetJson).is_err());
}

#[test]
fn set_file_reads_each_value_through_the_reader() {
    let mut reader = |path: &str| match path {
        "a.txt" => Ok("A\n".to_owned()),
        _ => Err("file not found".to_owned()),
    };
    let mut m = Map::new();
    apply_set_with_reader(&mut m, "k=a.txt,l={a.txt}", SetMode::SetFile, &mut reader).unwrap();
    assert_eq!(m["k"], s("A\n"));
    assert_eq!(m["l"], Value::Seq(vec![s("A\n")]));
    let e = apply_set_with_reader(&mut m, "k=nope.txt", SetMode::SetFile, &mut reader).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"--set-file k=nope.txt: cannot read "nope.txt": file not found"#
    );
}

#[test]
fn key_paths_are_written_with_escapes() {
    assert_eq!(format_key_path(&["a", "b.c"]), r"a.b\.c");
}
