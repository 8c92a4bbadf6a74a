//! Go's `text/template` for meshchart: a lexer, a parser and an interpreter that render
//! Helm charts written in Go templates with Go's semantics, byte for byte.
//!
//! # Interpret, not compile to minijinja
//!
//! meshchart's Jinja charts run on minijinja. For Go templates this crate interprets a parsed
//! tree instead of translating it to Jinja, because exactness is the first requirement and
//! a translation cannot carry Go's semantics without re-implementing them as a runtime anyway:
//!
//! - Go's scoping differs from Jinja's: a `$x = v` inside `if` or `range` assigns the outer
//!   variable, `$` is the data of the template being executed, and a `define` sees no
//!   caller variables. Jinja's `set` inside a block is block-local; emulating Go means a
//!   namespace object per variable, which is a runtime of our own.
//! - Go's truth, `and`/`or` returning an operand, `eq` refusing int against float, and the
//!   two kinds of nil (a missing key is a nil `interface{}` whose fields are an error, while
//!   a variable holding nothing yields nothing) have no Jinja counterpart; every operator
//!   would become a function call into our own code.
//! - Error texts and positions must be Go's (`template: f:3:5: executing "f" at <.x>:
//!   ...`), with the column of the failing node and its source text. A translation would
//!   have to map Jinja positions back through the generated source.
//! - Whitespace trimming, `break`/`continue`, `else with` and `block` map poorly or not at
//!   all.
//!
//! With all of that in our runtime, minijinja would only walk the tree. Walking it ourselves
//! saves the translation step and the second representation, and keeps one source of truth
//! for each rule. `tests/cases/` holds the behaviours recorded from Helm 3.17.1 that the
//! interpreter is checked against (600 cases, plus larger matrices and random templates run
//! from scratch folders; see its README).
//!
//! # Use
//!
//! ```
//! use meshchart_gotemplate::{Map, MissingKey, Templates, Value};
//!
//! # fn main() -> Result<(), meshchart_gotemplate::Error> {
//! let mut set = Templates::new("gotpl");
//! set.set_missing_key(MissingKey::Zero); // as Helm does
//! set.parse("c/templates/_helpers.tpl", r#"{{ define "name" }}{{ .name | printf "%q" }}{{ end }}"#)?;
//! set.parse("c/templates/cm.yaml", "name: {{ template \"name\" .Values }}\n")?;
//! let mut values = Map::new();
//! values.insert("name".into(), Value::from("web"));
//! let mut top = Map::new();
//! top.insert("Values".into(), Value::from(values));
//! let out = set.execute("c/templates/cm.yaml", &Value::from(top))?;
//! assert_eq!(out, "name: \"web\"\n");
//! # Ok(())
//! # }
//! ```
//!
//! Functions beyond Go's builtins (Sprig's, Helm's `include`, `tpl`, `toYaml`, `required`)
//! come from the caller through [`Templates::add_function`]; a function gets a [`Context`]
//! that can execute other templates ([`Context::execute`] is `include`,
//! [`Context::execute_text`] is `tpl`).
//!
//! # What Helm adds around Go's texts
//!
//! Helm renders with `missingkey=zero` ([`MissingKey::Zero`]) and then deletes every
//! `<no value>` from each rendered file (even one written literally in the template). It
//! rewrites errors: a parse error `template: F:L: MSG` becomes `parse error at (F:L): LAST`
//! where LAST is the text after the message's last `": "`; an execution error from
//! `required` or `fail` becomes `execution error at (F:L:C): MSG`; other execution errors
//! keep Go's text. Those rewrites belong to meshchart's Helm layer; `tests/helm_cases.rs`
//! shows them against the recorded texts.
//!
//! # What it covers, and what not yet
//!
//! The whole of `text/template` as Go 1.23 has it, which is what Helm 3.17.1 runs: text and
//! trim markers, comments, every literal form, fields and chains, variables with Go's
//! scoping, pipelines, `if`/`else if`/`range`/`with`/`else with`/`break`/`continue`,
//! `define`/`template`/`block` with Go's replacement rules between files, the builtins
//! (`and or not eq ne lt le gt ge len index slice print printf println html js urlquery
//! call`), Go's `fmt` verbs and flags, and Go's parse and execution errors with their
//! positions. Values are Go's dynamic types as Helm's templates see them ([`Value`]);
//! structs and named types with methods come in as [`Object`]s, named map types (Helm's
//! `chartutil.Values`, the type of `.` and `.Values`) as objects that are maps
//! ([`Object::as_map`]).
//!
//! Not yet: there are no `[]byte` values (`.Files.GetBytes`) and no function values (`call`
//! only fails as Go does on a non-function). Custom delimiters are not offered (Helm has none).
//! Values use `Rc`, so a parsed set is not `Send`: one render runs on one thread.
//!
//! # Differences from Go, on purpose
//!
//! - Nesting of parentheses and blocks is limited to [`MAX_NESTING`] while parsing, and
//!   execution to [`DEFAULT_MAX_DEPTH`] levels (Go: 100000 template calls) and
//!   [`DEFAULT_STACK_LIMIT`] bytes of stack, both settable, so hostile input gets an error
//!   naming its line instead of exhausting the stack. Go's stacks grow; a thread's do not.
//! - Complex constants (`1i`) are a parse error: Go has them, Helm's functions cannot use
//!   them.
//! - Strings are UTF-8: a `\xff` escape or a byte-wise `slice` that would split a character
//!   is replaced or refused.
//! - Go 1.23, which Helm 3.17.1 is built with, cannot `range` over an integer
//!   (`range can't iterate over 3`); neither can this crate.
#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

mod ast;
mod error;
mod exec;
mod funcs;
mod gofmt;
mod lex;
mod parse;
mod stack;
mod template;
mod value;

pub use error::{Error, FuncError};
pub use exec::Context;
pub use gofmt::{format_float_v, quote, sprint, sprintf, sprintln};
pub use parse::MAX_NESTING;
pub use template::{
    Arity, Function, MissingKey, Templates, DEFAULT_MAX_DEPTH, DEFAULT_STACK_LIMIT,
};
pub use value::{Map, Object, Value};
