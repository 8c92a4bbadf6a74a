//! The view of an execution a function gets ([`Context`]): enough for `include` and `tpl`.

use super::*;

/// What a function sees of the execution that called it: enough to run other templates, as
/// Helm's `include` and `tpl` do.
pub struct Context<'s, 'a> {
    pub(super) state: &'s mut State<'a>,
}

impl Context<'_, '_> {
    /// The name of the template being executed (a file name, or a `define`'s name).
    pub fn template_name(&self) -> &str {
        &self.state.tree.name
    }

    /// The file the executing template was parsed from.
    pub fn file_name(&self) -> &str {
        &self.state.tree.file
    }

    /// How many template executions enclose this call.
    pub fn depth(&self) -> usize {
        self.state.depth
    }

    /// Executes the template `name` with `data`, returning its output (Go's
    /// `ExecuteTemplate` on the set, which Helm's `include` is).
    pub fn execute(&mut self, name: &str, data: &Value) -> Result<String, Error> {
        let s = &*self.state;
        let Some(tree) = s.lookup.get(name) else {
            return Err(Error::NoTemplate {
                name: name.to_string(),
                set: s.set.name.clone(),
            });
        };
        s.check_depth()?;
        State::run(s.set, s.lookup, tree, data, s.depth + 1, Some(s.stack_base))
    }

    /// Parses `text` as a template named `name` over the set (its `define`s shadow the set's
    /// for this execution only) and executes it with `data`: what Helm's `tpl` does.
    pub fn execute_text(&mut self, name: &str, text: &str, data: &Value) -> Result<String, Error> {
        let s = &*self.state;
        s.check_depth()?;
        let funcs = &s.set.funcs;
        let parsed = crate::parse::parse(name, &std::sync::Arc::new(text.to_owned()), &|n| {
            funcs.contains_key(n)
        })?;
        let mut trees = HashMap::new();
        for t in parsed.trees {
            add_tree(&mut trees, t);
        }
        let lookup = Lookup {
            trees: &trees,
            parent: Some(s.lookup),
        };
        let Some(tree) = lookup.get(name) else {
            return Err(Error::NoTemplate {
                name: name.to_string(),
                set: s.set.name.clone(),
            });
        };
        State::run(s.set, &lookup, tree, data, s.depth + 1, Some(s.stack_base))
    }
}
