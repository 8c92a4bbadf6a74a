//! Defaults, conditions and deliberate failures: `default`, `empty`, `coalesce`, `ternary`,
//! `required`, `fail`.

use super::args::{is_empty, Args};
use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

/// `default(fallback, value)`: `value`, or `fallback` when `value` is empty in Helm's sense
/// (undefined, none, false, 0, "", [] or {}; `"0"` and `" "` are kept).
///
/// ```jinja
/// replicas: {{ Values.replicas | default(1) }}
/// ```
pub(super) fn default(args: &Args) -> Result<Value, Error> {
    args.between(1, 2)?;
    let value = args.get(1);
    Ok(if is_empty(&value) { args.get(0) } else { value })
}

/// `empty(value)`: whether `value` is empty in Helm's sense. Also a test: `v is empty`.
pub(super) fn empty(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(is_empty(&args.get(0))))
}

/// `coalesce(value...)`: the first value that is not empty, or none.
///
/// ```jinja
/// namespace: {{ coalesce(Values.namespace, Release.Namespace) }}
/// ```
pub(super) fn coalesce(args: &Args) -> Result<Value, Error> {
    Ok(args
        .all()
        .iter()
        .find(|v| !is_empty(v))
        .cloned()
        .unwrap_or(Value::from(())))
}

/// `ternary(if_true, if_false, condition)`: pipe the condition: `cond | ternary("y", "n")`.
/// The condition must be a boolean (a string `"true"` is an error, as in Helm).
pub(super) fn ternary(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    Ok(if args.bool(2, "condition")? {
        args.get(0)
    } else {
        args.get(1)
    })
}

/// `required(message, value)`: `value`, unless it is undefined, none or "": then the render
/// fails with `message` (at the calling template and line). `0`, `false` and `[]` pass, as in Helm.
///
/// ```jinja
/// image: {{ Values.image | required("image is required") }}
/// ```
pub(super) fn required(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let message = args.string(0, "message")?;
    let value = args.get(1);
    let missing = match value.kind() {
        ValueKind::Undefined | ValueKind::None => true,
        ValueKind::String => value.as_str().is_some_and(str::is_empty),
        _ => false,
    };
    if missing && note_missing(&message) {
        return Ok(Value::from(""));
    }
    if missing {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            message.into_owned(),
        ));
    }
    Ok(value)
}

thread_local! {
    /// While lint renders: the messages of `required` calls whose value was missing.
    static MISSING_REQUIRED: std::cell::RefCell<Option<Vec<String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Notes `message` when a lint render is noting missing values; false otherwise.
fn note_missing(message: &str) -> bool {
    MISSING_REQUIRED.with(|m| match m.borrow_mut().as_mut() {
        Some(noted) => {
            noted.push(message.to_owned());
            true
        }
        None => false,
    })
}

/// Runs `render` with `required` noting a missing value (and giving `""`) instead of failing,
/// as `helm lint` renders; returns what it returned and the messages noted, in order. For one
/// thread's render (lint's): other threads' calls fail as usual.
pub fn noting_missing_required<R>(render: impl FnOnce() -> R) -> (R, Vec<String>) {
    let outer = MISSING_REQUIRED.with(|m| m.replace(Some(Vec::new())));
    let result = render();
    let noted = MISSING_REQUIRED
        .with(|m| m.replace(outer))
        .unwrap_or_default();
    (result, noted)
}

/// `fail(message)`: stops the render with `message` (at the calling template and line).
///
/// ```jinja
/// {% if not Values.identity.issuer %}{{ fail("identity.issuer must be set") }}{% endif %}
/// ```
pub(super) fn fail(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let message = args.string(0, "message")?;
    Err(Error::new(
        ErrorKind::InvalidOperation,
        message.into_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::engine::functions::test_support::{err, ok, with_values};

    #[test]
    fn default_replaces_helm_empty_values() {
        assert_eq!(
            ok(
                r#"{{ default("d", "") }}{{ default("d", 0) }}{{ default("d", false) }}{{ default("d", []) }}{{ default("d", {}) }}{{ default("d", none) }}{{ default("d", 0.0) }}"#
            ),
            "ddddddd"
        );
    }

    #[test]
    fn default_keeps_zero_string_and_space() {
        assert_eq!(
            ok(r#"[{{ default("d", "0") }}|{{ default("d", " ") }}]"#),
            "[0| ]"
        );
    }

    #[test]
    fn default_as_a_filter_takes_the_fallback_as_argument() {
        assert_eq!(
            with_values(
                r#"{{ Values.missing | default("d") }} {{ Values.set | default("d") }}"#,
                r#"{"set": "x"}"#
            )
            .unwrap(),
            "d x"
        );
    }

    #[test]
    fn default_returns_non_string_fallbacks() {
        assert_eq!(
            with_values("{{ default([1, 2], Values.missing) }}", "{}").unwrap(),
            "[1 2]"
        );
    }

    #[test]
    fn empty_follows_helm() {
        assert_eq!(
            ok(r#"{{ empty("") }} {{ empty("0") }} {{ empty([none]) }} {{ empty({}) }}"#),
            "true false false true"
        );
    }

    #[test]
    fn empty_is_also_a_test() {
        assert_eq!(
            with_values(
                "{% if Values.missing is empty %}e{% endif %}{% if Values.n is not empty %}n{% endif %}",
                r#"{"n": 1}"#
            )
            .unwrap(),
            "en"
        );
    }

    #[test]
    fn coalesce_returns_the_first_non_empty_value() {
        assert_eq!(ok(r#"{{ coalesce("", 0, "x", "y") }}"#), "x");
        assert_eq!(ok(r#"[{{ coalesce(none, false, "") }}]"#), "[]");
    }

    #[test]
    fn ternary_picks_by_condition_and_pipes_the_condition() {
        assert_eq!(
            ok(r#"{{ ternary("yes", "no", false) }} {{ true | ternary("a", "b") }}"#),
            "no a"
        );
    }

    #[test]
    fn ternary_wants_a_boolean() {
        assert!(err(r#"{{ ternary("a", "b", "true") }}"#)
            .contains("condition must be a boolean, found string \"true\""));
    }

    #[test]
    fn required_fails_with_the_message() {
        assert_eq!(
            with_values(r#"{{ required("x is required", Values.x) }}"#, "{}").unwrap_err(),
            "x is required"
        );
        assert_eq!(
            with_values(r#"{{ Values.x | required("x!") }}"#, r#"{"x": ""}"#).unwrap_err(),
            "x!"
        );
    }

    #[test]
    fn required_lets_zero_false_and_empty_lists_through() {
        assert_eq!(
            ok(r#"{{ required("m", 0) }} {{ required("m", false) }} {{ required("m", []) }}"#),
            "0 false []"
        );
    }

    #[test]
    fn fail_fails_with_the_message() {
        assert_eq!(err(r#"{{ fail("boom") }}"#), "boom");
    }
}
