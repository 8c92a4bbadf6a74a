//! What a golden case's `args` file asks for, and who reads it.
//!
//! A case's `args` are the flags its command would take on the command line, split as a shell
//! splits them (see [`super::args_file_arguments`]). They are read by the command line's own
//! parser, handed to the golden runner as a [`CaseArgs`]: the library knows no flag grammar of
//! its own, so a case's `args` cannot mean anything but what they mean to `meshchart`.

use crate::inject::command::InjectRequest;
use crate::inject::ReportFormat;
use crate::render::RenderRequest;

/// What an inject golden case runs.
// One per golden case, a few dozen in all: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum InjectCaseCommand {
    /// `inject ...`: the request and how its report is printed.
    Inject(Box<InjectRequest>, ReportFormat),
    /// `uninject ...`: the inputs and how the report is printed.
    Uninject(Vec<String>, ReportFormat),
}

/// The chart a golden case names in its `args`, as the command line names one: a positional
/// `CHART`, `--chart CHART`, or `--linkerd RELEASE` (with `--crds`). Empty: the chart the golden
/// run was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseChart {
    /// `CHART` or `--chart CHART`, as written (relative to the case folder).
    pub path: Option<String>,
    /// `--linkerd RELEASE`.
    pub linkerd: Option<String>,
    /// `--crds`.
    pub crds: bool,
}

impl CaseChart {
    /// Whether the case names no chart of its own.
    pub fn is_empty(&self) -> bool {
        *self == CaseChart::default()
    }
}

/// Reads the arguments of golden cases into the library's requests, as the command line reads
/// the same arguments (the binary's parser implements it). Errors are the parser's message.
pub trait CaseArgs: Sync {
    /// A render case: `render`'s flags and the chart it names.
    fn render_case(&self, arguments: &[&str]) -> Result<(RenderRequest, CaseChart), String>;
    /// An inject case: `inject ...` or `uninject ...`, the command first.
    fn inject_case(&self, arguments: &[&str]) -> Result<InjectCaseCommand, String>;
}
