//! `include` and `tpl`: rendering other templates and strings from inside a template.

use crate::limits::MAX_STRING_BYTES;
use minijinja::value::Value;
use minijinja::{Error, ErrorKind, State};
use std::cell::RefCell;

/// How deep `include` may nest before we call it runaway recursion.
pub const MAX_INCLUDE_DEPTH: usize = 64;

thread_local! {
    static INCLUDE_STACK: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Names the top-level objects an included template inherits when no context is passed, in
/// the order a map keeps them (the context is built without sorting).
const INHERITED: &[&str] = &[
    "Capabilities",
    "Chart",
    "Files",
    "Release",
    "Template",
    "Values",
];

/// The caller's objects (`Values`, `Release`, ...), as it currently sees them, overrides included.
fn inherited_context(state: &State) -> Value {
    Value::from_pairs(
        INHERITED
            .iter()
            .filter_map(|name| state.lookup(name).map(|v| (*name, v))),
    )
}

struct StackGuard;

impl StackGuard {
    fn enter(name: &str) -> Result<StackGuard, Error> {
        INCLUDE_STACK.with(|stack| {
            let mut stack = stack.borrow_mut();
            if stack.len() >= MAX_INCLUDE_DEPTH {
                let chain = stack.iter().rev().take(6).cloned().collect::<Vec<_>>().join(" <- ");
                let (what, hint) = if name == "tpl" {
                    ("tpl", "does a value render itself with tpl?")
                } else {
                    ("include", "does a template include itself?")
                };
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("{what} nested more than {MAX_INCLUDE_DEPTH} deep ({hint}): {name} <- {chain} ..."),
                ));
            }
            stack.push(name.to_owned());
            Ok(StackGuard)
        })
    }
}

impl Drop for StackGuard {
    fn drop(&mut self) {
        INCLUDE_STACK.with(|stack| {
            stack.borrow_mut().pop();
        });
    }
}

/// `include(name, ctx)`: renders template `name` (a path under `templates/`) to a string.
///
/// Without `ctx` the template sees the caller's `Values`, `Release`, ... including any the
/// caller shadowed with `{% set %}`: that is how a component scopes its overrides.
///
/// A partial (a file whose name starts with `_`) loses its single final newline, as Jinja drops
/// a template's by default: `labels:{{ include("_labels.tpl") | nindent(4) }}` leaves no blank
/// line behind. Any other template keeps its text exactly (a checksum of a whole manifest
/// must be the checksum of what is rendered).
pub(super) fn include(state: &State, name: &str, ctx: Option<Value>) -> Result<String, Error> {
    let ctx = match ctx {
        Some(ctx) if ctx.kind() == minijinja::value::ValueKind::Map => ctx,
        Some(other) => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "include({name:?}, ctx): ctx must be a map of names to values, not {}",
                    other.kind()
                ),
            ))
        }
        None => inherited_context(state),
    };
    let _guard = StackGuard::enter(name)?;
    let template = state.env().get_template(name).map_err(|e| {
        Error::new(
            ErrorKind::TemplateNotFound,
            format!("include: no template {name:?} in this chart"),
        )
        .with_source(e)
    })?;
    let text = super::remembered::included(name, ctx, |ctx| template.render(ctx)).map_err(|e| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("error in included template {name}"),
        )
        .with_source(e)
    })?;
    within_string_cap(without_final_newline(name, text))
}

/// A partial's output without its single final newline (`\n` or `\r\n`); anything else as it is.
fn without_final_newline(name: &str, mut text: String) -> String {
    let partial = name.rsplit('/').next().is_some_and(|b| b.starts_with('_'));
    if partial && text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    text
}

/// Refuses a rendered string over [`MAX_STRING_BYTES`] (each nested render has its own fuel,
/// so the caller's budget alone would not see it).
fn within_string_cap(text: String) -> Result<String, Error> {
    if text.len() > MAX_STRING_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "the rendered text is {} bytes, more than the limit of {MAX_STRING_BYTES} (10 MiB)",
                text.len()
            ),
        ));
    }
    Ok(text)
}

/// How a string rendered by `tpl` is named in errors: `tpl string in <calling template>`.
const TPL_NAME_PREFIX: &str = "tpl string in ";

/// Whether a template name is that of a `tpl` string rather than a chart file.
pub(crate) fn is_tpl_name(name: &str) -> bool {
    name.starts_with(TPL_NAME_PREFIX)
}

/// `tpl(text, ctx)`: renders a string as a template; `Template.Name` stays the caller's.
pub(super) fn tpl(state: &State, text: &str, ctx: Option<Value>) -> Result<String, Error> {
    let ctx = ctx.unwrap_or_else(|| inherited_context(state));
    let _guard = StackGuard::enter("tpl")?;
    // A tpl inside a tpl keeps the outer name instead of growing "tpl string in tpl string in ...".
    let caller = state.name();
    let name = if is_tpl_name(caller) {
        caller.to_owned()
    } else {
        format!("{TPL_NAME_PREFIX}{caller}")
    };
    within_string_cap(state.env().render_named_str(&name, text, ctx)?)
}
