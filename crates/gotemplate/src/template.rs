//! The template set: every parsed file and `define` under one namespace, the functions
//! templates may call, and the execution options.

use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::Tree;
use crate::error::{Error, FuncError};
use crate::exec::{Context, Lookup, State};
use crate::funcs::Builtin;
use crate::value::Value;

/// How many arguments a function takes (the piped value counts as the last one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exact(usize),
    /// At least this many (a Go variadic function with this many fixed parameters).
    AtLeast(usize),
}

/// A template function: gets the call's context (to execute named templates, as `include`
/// does) and the evaluated arguments, the piped value last.
pub type Function = Rc<dyn Fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, FuncError>>;

/// An entry of the function table.
#[derive(Clone)]
pub(crate) enum Func {
    /// One of Go's builtins, evaluated by the interpreter itself (`and` and `or` see their
    /// operands unevaluated; the comparisons need Go's two kinds of nil).
    Builtin(Builtin),
    /// A caller's function.
    User(Arity, Function),
}

/// What a missing map key gives, as Go's `missingkey` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// Go's default: "no value", printed `<no value>`; fields of it are no value too.
    #[default]
    Invalid,
    /// The zero value of the map's element type, for Helm's `map[string]interface{}` a nil
    /// interface: prints `<no value>` too, but a field of it is an error (`nil pointer
    /// evaluating interface {}.x`). Helm renders with this.
    Zero,
    /// An error: `map has no entry for key "x"` (Helm's `--strict` lint).
    Error,
}

/// How deeply execution may nest by default: template calls (`template`, and functions such
/// as `include` through [`Context::execute`]), `if`/`with`/`range` bodies and parenthesized
/// pipelines each count one level. Go allows 100000 template calls because its stacks grow;
/// ours is a thread's stack, which [`DEFAULT_STACK_LIMIT`] guards as well.
pub const DEFAULT_MAX_DEPTH: usize = 1000;

/// How much stack, in bytes, nested execution may use by default before it stops with an
/// error instead of overflowing. It is measured, not estimated, because frames differ
/// between builds (a level takes about 4 KiB optimised, 16 KiB unoptimised). 1 MiB is safe
/// on any thread Rust starts (2 MiB by default) and allows about 250 levels optimised. To
/// reproduce Helm's own limit on recursive `include` (1000 calls, about 3000 levels), run
/// the render on a thread with a larger stack and raise this and [`DEFAULT_MAX_DEPTH`].
pub const DEFAULT_STACK_LIMIT: usize = 1 << 20;

/// A set of templates sharing one namespace, as Helm parses every file of a chart into one
/// `text/template` set.
pub struct Templates {
    pub(crate) name: String,
    pub(crate) trees: HashMap<String, Rc<Tree>>,
    pub(crate) funcs: HashMap<String, Func>,
    pub(crate) missing_key: MissingKey,
    pub(crate) max_depth: usize,
    pub(crate) stack_limit: usize,
}

impl Templates {
    /// An empty set with Go's builtin functions. `name` is the set's own name, which Go
    /// prints when asked for a template it does not hold (Helm's is `gotpl`).
    pub fn new(name: &str) -> Templates {
        Templates {
            name: name.to_string(),
            trees: HashMap::new(),
            funcs: crate::funcs::builtins(),
            missing_key: MissingKey::Invalid,
            max_depth: DEFAULT_MAX_DEPTH,
            stack_limit: DEFAULT_STACK_LIMIT,
        }
    }

    /// Adds or replaces a function (a function named like a builtin replaces it, as Sprig's
    /// `slice` replaces Go's in Helm). Add functions before parsing: as in Go, a template
    /// that calls an unknown function does not parse.
    pub fn add_function(&mut self, name: &str, arity: Arity, f: Function) {
        self.funcs.insert(name.to_string(), Func::User(arity, f));
    }

    /// Sets what a missing map key gives (Helm uses [`MissingKey::Zero`]).
    pub fn set_missing_key(&mut self, m: MissingKey) {
        self.missing_key = m;
    }

    /// Sets how deeply execution may nest (see [`DEFAULT_MAX_DEPTH`]).
    pub fn set_max_depth(&mut self, depth: usize) {
        self.max_depth = depth;
    }

    /// Sets how much stack nested execution may use, in bytes (see [`DEFAULT_STACK_LIMIT`]).
    /// Keep it well below the stack of the thread that executes.
    pub fn set_stack_limit(&mut self, bytes: usize) {
        self.stack_limit = bytes;
    }

    /// Is there a function of this name?
    pub fn has_function(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    /// Parses a file into the set: its top level becomes the template `file`, and each
    /// `define` (or `block`) a template of its own name. A later definition replaces an
    /// earlier one of the same name, except that an empty body never replaces a non-empty one
    /// (Go's rule; Helm parses files so that the one parsed last wins).
    pub fn parse(&mut self, file: &str, text: &str) -> Result<(), Error> {
        self.parse_shared(file, &std::sync::Arc::new(text.to_owned()))
    }

    /// [`Templates::parse`] of a text the caller keeps too: the trees share it (a chart's
    /// templates stay loaded while they render) instead of holding a copy.
    pub fn parse_shared(&mut self, file: &str, text: &std::sync::Arc<String>) -> Result<(), Error> {
        let funcs = &self.funcs;
        let parsed = crate::parse::parse(file, text, &|n| funcs.contains_key(n))?;
        for tree in parsed.trees {
            add_tree(&mut self.trees, tree);
        }
        Ok(())
    }

    /// Is there a template of this name?
    pub fn has_template(&self, name: &str) -> bool {
        self.trees.contains_key(name)
    }

    /// The names of all templates, sorted.
    pub fn template_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.trees.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// Executes the template `name` with `data` as `.` and `$`, returning its output.
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, Error> {
        let lookup = Lookup {
            trees: &self.trees,
            parent: None,
        };
        let tree = lookup.get(name).ok_or_else(|| Error::NoTemplate {
            name: name.to_string(),
            set: self.name.clone(),
        })?;
        State::run(self, &lookup, tree, data, 0, None)
    }
}

/// Go's `associate`: a later tree replaces an earlier one unless the later one is empty.
pub(crate) fn add_tree(trees: &mut HashMap<String, Rc<Tree>>, tree: Tree) {
    if tree.root.is_empty_tree(&tree.text) && trees.contains_key(&tree.name) {
        return;
    }
    trees.insert(tree.name.clone(), Rc::new(tree));
}
