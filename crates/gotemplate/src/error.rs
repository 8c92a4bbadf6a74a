//! The errors of parsing and executing templates, printed exactly as Go's `text/template`
//! prints them, since Helm passes those texts on to users (and rewraps some: see the crate doc).

use crate::gofmt::quote;

/// A template failed to parse or to execute.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parse error: `template: NAME:LINE: MESSAGE`.
    #[error("template: {file}:{line}: {message}")]
    Parse {
        /// The file (Go's `ParseName`) the error is in.
        file: String,
        /// The line, 1-based.
        line: usize,
        /// Go's message, e.g. `unexpected EOF`.
        message: String,
    },
    /// An execution error at a node:
    /// `template: FILE:LINE:COL: executing "NAME" at <CONTEXT>: MESSAGE`.
    #[error("template: {file}:{line}:{column}: executing {} at <{context}>: {message}", quote(.template, false))]
    Exec {
        /// The file the failing node is in.
        file: String,
        /// Its line, 1-based.
        line: usize,
        /// Its column: the byte offset in the line, 0-based (Go counts this way).
        column: usize,
        /// The template being executed (a file name, or a `define`'s name).
        template: String,
        /// The node, as Go prints it (Go 1.23 prints it whole, however long).
        context: String,
        /// Go's message, e.g. `nil pointer evaluating interface {}.x`.
        message: String,
        /// The nested template error a function (such as `include`) failed with, if any;
        /// its text is already part of `message`.
        cause: Option<Box<Error>>,
    },
    /// Executing a name the set does not hold.
    #[error("template: no template {} associated with template {}", quote(.name, false), quote(.set, false))]
    NoTemplate {
        /// The name asked for.
        name: String,
        /// The name of the set (Helm's is `gotpl`).
        set: String,
    },
}

impl Error {
    /// The line the error points at.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Parse { line, .. } | Error::Exec { line, .. } => Some(*line),
            Error::NoTemplate { .. } => None,
        }
    }

    /// The innermost error: follows `cause` through nested template executions, so a
    /// function's own failure deep inside `include`s can be found.
    pub fn innermost(&self) -> &Error {
        let mut e = self;
        while let Error::Exec { cause: Some(c), .. } = e {
            e = c;
        }
        e
    }
}

/// How a template function fails.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FuncError {
    /// Go's `error calling NAME: MESSAGE`.
    Message(String),
    /// A nested template execution failed (`include`, `tpl`): printed as
    /// `error calling NAME: ` followed by that error's own text.
    Template(Box<Error>),
    /// An argument Go would have refused before the call, because its type cannot be
    /// converted to the parameter's: `wrong type for value; expected TYPE; got TYPE`,
    /// reported at that argument (0-based index among the arguments, piped value last).
    WrongType {
        /// Which argument.
        index: usize,
        /// Go's name of the parameter's type (`string`, `int`, `[]interface {}`).
        expected: String,
    },
}

impl From<String> for FuncError {
    fn from(s: String) -> FuncError {
        FuncError::Message(s)
    }
}

impl From<&str> for FuncError {
    fn from(s: &str) -> FuncError {
        FuncError::Message(s.to_string())
    }
}

impl From<Error> for FuncError {
    fn from(e: Error) -> FuncError {
        FuncError::Template(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_print_file_and_line() {
        let e = Error::Parse {
            file: "c/templates/t.yaml".into(),
            line: 3,
            message: "unexpected EOF".into(),
        };
        assert_eq!(
            e.to_string(),
            "template: c/templates/t.yaml:3: unexpected EOF"
        );
    }

    #[test]
    fn exec_errors_print_go_shape() {
        let e = Error::Exec {
            file: "c/templates/t.yaml".into(),
            line: 1,
            column: 11,
            template: "c/templates/t.yaml".into(),
            context: ".Values.nope.deeper".into(),
            message: "nil pointer evaluating interface {}.deeper".into(),
            cause: None,
        };
        assert_eq!(
            e.to_string(),
            "template: c/templates/t.yaml:1:11: executing \"c/templates/t.yaml\" at <.Values.nope.deeper>: nil pointer evaluating interface {}.deeper"
        );
    }
}
