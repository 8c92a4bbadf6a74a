//! The crate's own interface, one behaviour per test: options, the function registry, the
//! context functions get, objects, limits. (Go's semantics themselves are pinned by the
//! Helm-recorded cases in `helm_cases.rs`.)

use std::cell::Cell;
use std::rc::Rc;

use meshchart_gotemplate::{
    Arity, Context, FuncError, Map, MissingKey, Object, Templates, Value, MAX_NESTING,
};

fn map(entries: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in entries {
        m.insert(k.to_string(), v.clone());
    }
    Value::from(m)
}

#[test]
fn by_default_a_missing_key_prints_no_value_and_its_fields_are_no_value_too() {
    let mut set = Templates::new("test");
    set.parse("t", "[{{ .a }}][{{ .a.b.c }}]").ok();
    assert_eq!(
        set.execute("t", &map(&[])).as_deref(),
        Ok("[<no value>][<no value>]")
    );
}

#[test]
fn under_missingkey_zero_a_field_of_a_missing_key_is_a_nil_pointer_error() {
    let mut set = Templates::new("test");
    set.set_missing_key(MissingKey::Zero);
    set.parse("t", "{{ .a.b }}").ok();
    let err = set.execute("t", &map(&[])).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err(
            "template: t:1:5: executing \"t\" at <.a.b>: nil pointer evaluating interface {}.b"
                .into()
        )
    );
}

#[test]
fn under_missingkey_error_a_missing_key_is_named() {
    let mut set = Templates::new("test");
    set.set_missing_key(MissingKey::Error);
    set.parse("t", "{{ .a }}").ok();
    let err = set.execute("t", &map(&[])).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: t:1:3: executing \"t\" at <.a>: map has no entry for key \"a\"".into())
    );
}

#[test]
fn a_later_file_replaces_a_define_of_the_same_name() {
    let mut set = Templates::new("test");
    set.parse("a", r#"{{ define "x" }}first{{ end }}"#).ok();
    set.parse("b", r#"{{ define "x" }}second{{ end }}"#).ok();
    assert_eq!(set.execute("x", &Value::Null).as_deref(), Ok("second"));
}

#[test]
fn an_empty_define_does_not_replace_a_non_empty_one() {
    let mut set = Templates::new("test");
    set.parse("a", r#"{{ define "x" }}kept{{ end }}"#).ok();
    set.parse("b", "{{ define \"x\" }}  \n{{ end }}").ok();
    assert_eq!(set.execute("x", &Value::Null).as_deref(), Ok("kept"));
}

#[test]
fn executing_an_unknown_name_names_the_set() {
    let set = Templates::new("gotpl");
    let err = set.execute("nope", &Value::Null).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: no template \"nope\" associated with template \"gotpl\"".into())
    );
}

#[test]
fn calling_an_unregistered_function_fails_to_parse() {
    let mut set = Templates::new("test");
    let err = set.parse("t", "{{ upper .x }}").map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: t:1: function \"upper\" not defined".into())
    );
}

#[test]
fn a_function_gets_the_piped_value_last() {
    let mut set = Templates::new("test");
    set.add_function(
        "join2",
        Arity::Exact(2),
        Rc::new(|_: &mut Context<'_, '_>, a: &[Value]| {
            Ok(Value::from(format!("{}+{}", a[0], a[1])))
        }),
    );
    set.parse("t", r#"{{ "piped" | join2 "first" }}"#).ok();
    assert_eq!(set.execute("t", &Value::Null).as_deref(), Ok("first+piped"));
}

#[test]
fn arity_is_checked_before_the_function_runs() {
    let called = Rc::new(Cell::new(false));
    let seen = called.clone();
    let mut set = Templates::new("test");
    set.add_function(
        "one",
        Arity::Exact(1),
        Rc::new(move |_: &mut Context<'_, '_>, _: &[Value]| {
            seen.set(true);
            Ok(Value::Null)
        }),
    );
    set.parse("t", "{{ one 1 2 }}").ok();
    let err = set.execute("t", &Value::Null).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err(
            "template: t:1:3: executing \"t\" at <one>: wrong number of args for one: want 1 got 2"
                .into()
        )
    );
    assert!(!called.get());
}

#[test]
fn a_function_error_is_reported_as_error_calling_at_the_command() {
    let mut set = Templates::new("test");
    set.add_function(
        "boom",
        Arity::AtLeast(0),
        Rc::new(|_: &mut Context<'_, '_>, _: &[Value]| Err(FuncError::from("it broke"))),
    );
    set.parse("t", "x\n  {{ boom 1 }}").ok();
    let err = set.execute("t", &Value::Null).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: t:2:5: executing \"t\" at <boom 1>: error calling boom: it broke".into())
    );
}

#[test]
fn a_registered_function_replaces_a_builtin_of_the_same_name() {
    let mut set = Templates::new("test");
    set.add_function(
        "len",
        Arity::Exact(1),
        Rc::new(|_: &mut Context<'_, '_>, _: &[Value]| Ok(Value::Int(-1))),
    );
    set.parse("t", r#"{{ len "abc" }}"#).ok();
    assert_eq!(set.execute("t", &Value::Null).as_deref(), Ok("-1"));
}

fn with_include(set: &mut Templates) {
    set.add_function(
        "include",
        Arity::Exact(2),
        Rc::new(|ctx: &mut Context<'_, '_>, a: &[Value]| {
            let name = a[0].as_str().unwrap_or_default().to_string();
            ctx.execute(&name, &a[1])
                .map(Value::from)
                .map_err(FuncError::from)
        }),
    );
}

#[test]
fn context_execute_runs_a_template_with_the_data_as_dollar() {
    let mut set = Templates::new("test");
    with_include(&mut set);
    set.parse("h", r#"{{ define "x" }}{{ $ }}{{ end }}"#).ok();
    set.parse("t", r#"{{ include "x" "arg" | printf "<%s>" }}"#)
        .ok();
    assert_eq!(set.execute("t", &Value::Null).as_deref(), Ok("<arg>"));
}

#[test]
fn an_error_inside_an_executed_template_is_kept_as_the_cause() {
    let mut set = Templates::new("test");
    with_include(&mut set);
    set.set_missing_key(MissingKey::Zero);
    set.parse("h", "{{ define \"x\" }}\n{{ .a.b }}{{ end }}")
        .ok();
    set.parse("t", r#"{{ include "x" . }}"#).ok();
    let err = set.execute("t", &map(&[]));
    let inner = err.as_ref().map_err(|e| e.innermost().to_string());
    assert_eq!(
        inner,
        Err(
            "template: h:2:5: executing \"x\" at <.a.b>: nil pointer evaluating interface {}.b"
                .into()
        )
    );
}

#[test]
fn execute_text_sees_the_set_and_its_defines_stay_inside() {
    let mut set = Templates::new("test");
    with_include(&mut set);
    set.add_function(
        "tpl",
        Arity::Exact(2),
        Rc::new(|ctx: &mut Context<'_, '_>, a: &[Value]| {
            let text = a[0].as_str().unwrap_or_default().to_string();
            ctx.execute_text("inline", &text, &a[1])
                .map(Value::from)
                .map_err(FuncError::from)
        }),
    );
    set.parse("h", r#"{{ define "outer" }}O{{ end }}"#).ok();
    set.parse(
        "t",
        r#"{{ tpl "{{ define \"in\" }}I{{ end }}{{ include \"in\" . }}{{ include \"outer\" . }}" . }}"#,
    )
    .ok();
    assert_eq!(set.execute("t", &Value::Null).as_deref(), Ok("IO"));
    assert!(!set.has_template("in"));
}

#[test]
fn a_map_changed_by_a_function_is_changed_for_every_holder() {
    let mut set = Templates::new("test");
    set.add_function(
        "set",
        Arity::Exact(3),
        Rc::new(|_: &mut Context<'_, '_>, a: &[Value]| {
            if let Value::Map(m) = &a[0] {
                m.borrow_mut()
                    .insert(a[1].as_str().unwrap_or_default().to_string(), a[2].clone());
            }
            Ok(a[0].clone())
        }),
    );
    set.parse("t", r#"{{ $_ := set .m "k" "v" }}{{ .m.k }}"#)
        .ok();
    assert_eq!(
        set.execute("t", &map(&[("m", map(&[]))])).as_deref(),
        Ok("v")
    );
}

#[test]
fn unbounded_template_recursion_stops_at_the_depth_limit() {
    let mut set = Templates::new("test");
    set.set_max_depth(50);
    set.parse(
        "t",
        r#"{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}"#,
    )
    .ok();
    let err = set.execute("t", &Value::Null).map_err(|e| e.to_string());
    assert!(err.is_err_and(|e| e.ends_with("exceeded maximum template depth (50)")));
}

#[test]
fn unbounded_include_recursion_stops_at_the_depth_limit() {
    let mut set = Templates::new("test");
    with_include(&mut set);
    set.set_max_depth(50);
    set.parse(
        "t",
        r#"{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}"#,
    )
    .ok();
    let err = set.execute("t", &Value::Null).map(|_| ());
    let inner = err.map_err(|e| e.innermost().to_string());
    assert!(inner.is_err_and(|e| e.ends_with("exceeded maximum template depth (50)")));
}

#[test]
fn recursion_under_the_default_limits_ends_in_an_error_not_an_overflow() {
    // The test runs on a thread with Rust's default 2 MiB stack.
    for text in [
        r#"{{ define "r" }}{{ if true }}{{ include "r" . }}{{ end }}{{ end }}{{ include "r" . }}"#,
        r#"{{ define "r" }}{{ with . }}{{ template "r" . }}{{ end }}{{ end }}{{ template "r" 1 }}"#,
    ] {
        let mut set = Templates::new("test");
        with_include(&mut set);
        set.parse("t", text).ok();
        let err = set.execute("t", &Value::Null).map(|_| ());
        let inner = err.map_err(|e| e.innermost().to_string());
        assert!(inner.is_err_and(|e| e.contains("exceeded")), "{text}");
    }
}

#[test]
fn nesting_past_the_parse_limit_is_an_error_naming_the_line() {
    let deep = format!(
        "a\n{}x{}",
        "{{ if 1 }}".repeat(MAX_NESTING + 1),
        "{{ end }}".repeat(MAX_NESTING + 1)
    );
    let mut set = Templates::new("test");
    let err = set.parse("t", &deep).map_err(|e| e.line());
    assert_eq!(err, Err(Some(2)));
}

/// A struct-like object with a field and a method taking an argument.
struct Caps;

impl Object for Caps {
    fn type_name(&self) -> &str {
        "*chartutil.Capabilities"
    }
    fn get(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Version" => Some(Ok(Value::from("v1.32.0"))),
            "Has" => Some(Ok(Value::Bool(
                args.first().and_then(Value::as_str) == Some("apps/v1"),
            ))),
            _ => None,
        }
    }
    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "Has").then_some(Arity::Exact(1))
    }
    fn format(&self, out: &mut String) {
        out.push_str("caps");
    }
}

#[test]
fn objects_give_fields_and_take_method_arguments() {
    let mut set = Templates::new("test");
    set.parse(
        "t",
        r#"{{ .c.Version }} {{ .c.Has "apps/v1" }} {{ "x/v1" | .c.Has }} {{ .c }}"#,
    )
    .ok();
    let data = map(&[("c", Value::Object(Rc::new(Caps)))]);
    assert_eq!(
        set.execute("t", &data).as_deref(),
        Ok("v1.32.0 true false caps")
    );
}

#[test]
fn a_method_called_with_the_wrong_number_of_arguments_fails_like_go() {
    let mut set = Templates::new("test");
    set.parse("t", "{{ .c.Has }}").ok();
    let data = map(&[("c", Value::Object(Rc::new(Caps)))]);
    let err = set.execute("t", &data).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: t:1:5: executing \"t\" at <.c.Has>: wrong number of args for Has: want 1 got 0".into())
    );
}

#[test]
fn an_unknown_field_of_an_object_names_its_type() {
    let mut set = Templates::new("test");
    set.parse("t", "{{ with .c }}{{ .Nope }}{{ end }}").ok();
    let data = map(&[("c", Value::Object(Rc::new(Caps)))]);
    let err = set.execute("t", &data).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err("template: t:1:16: executing \"t\" at <.Nope>: can't evaluate field Nope in type *chartutil.Capabilities".into())
    );
}

#[test]
fn set_integers_print_plainly_and_values_floats_print_like_go() {
    let mut set = Templates::new("test");
    set.parse("t", "{{ .i }} {{ .f }}").ok();
    let data = map(&[("i", Value::from(1_000_000i64)), ("f", Value::Float(1e6))]);
    assert_eq!(set.execute("t", &data).as_deref(), Ok("1000000 1e+06"));
}

/// A named map type, as Helm's `chartutil.Values`, with one method.
struct Values(Rc<std::cell::RefCell<Map>>);

impl Object for Values {
    fn type_name(&self) -> &str {
        "chartutil.Values"
    }
    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        (name == "AsMap").then(|| Ok(Value::Map(self.0.clone())))
    }
    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "AsMap").then_some(Arity::Exact(0))
    }
    fn format(&self, _: &mut String) {}
    fn as_map(&self) -> Option<&Rc<std::cell::RefCell<Map>>> {
        Some(&self.0)
    }
}

#[test]
fn a_named_map_type_is_a_map_with_its_own_type_name_and_methods() {
    let mut m = Map::new();
    m.insert("b".into(), Value::Int(2));
    m.insert("a".into(), Value::Int(1));
    let v = Value::Object(Rc::new(Values(Rc::new(std::cell::RefCell::new(m)))));
    let mut set = Templates::new("test");
    let text = r#"{{ .v.a }} {{ len .v }} {{ range $k, $x := .v }}{{ $k }}{{ end }} {{ .v }} {{ printf "%T %T" .v .v.AsMap }} {{ index .v "b" }}"#;
    set.parse("t", text).ok();
    assert_eq!(
        set.execute("t", &map(&[("v", v)])).as_deref(),
        Ok("1 2 ab map[a:1 b:2] chartutil.Values map[string]interface {} 2")
    );
}
