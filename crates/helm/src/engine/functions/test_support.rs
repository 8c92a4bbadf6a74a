//! A tiny environment with the library, for the unit tests of each module.

use minijinja::value::Value;
use minijinja::{Environment, UndefinedBehavior};

/// Renders `template` with `ctx` the way the engine's environment would (SemiStrict, Go printing).
pub(super) fn render(template: &str, ctx: Value) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    env.set_formatter(|out, state, value| {
        if value.is_undefined() && state.undefined_behavior() != UndefinedBehavior::Lenient {
            return Err(minijinja::Error::from(minijinja::ErrorKind::UndefinedError));
        }
        let mut text = String::new();
        crate::engine::gofmt::write_display(&mut text, value);
        out.write_str(&text)
            .map_err(|_| minijinja::Error::from(minijinja::ErrorKind::WriteFailure))
    });
    super::register(&mut env);
    env.render_str(template, ctx).map_err(|e| {
        let mut message = e.detail().unwrap_or_default().to_owned();
        if message.is_empty() {
            message = e.kind().to_string();
        }
        message
    })
}

/// Renders `template` with no context; panics on error.
pub(super) fn ok(template: &str) -> String {
    match render(template, Value::from(())) {
        Ok(s) => s,
        Err(e) => panic!("{template}: unexpected error: {e}"),
    }
}

/// Renders `template` with no context; panics unless it fails, returns the message.
pub(super) fn err(template: &str) -> String {
    match render(template, Value::from(())) {
        Ok(s) => panic!("{template}: expected an error, got {s:?}"),
        Err(e) => e,
    }
}

/// Renders `template` with `Values` = `values` (JSON text).
pub(super) fn with_values(template: &str, values: &str) -> Result<String, String> {
    let json: serde_json::Value = serde_json::from_str(values).expect("test JSON");
    let values = crate::engine::to_jinja(&crate::values::Value::from(json));
    render(template, Value::from_pairs([("Values", values)]))
}
