//! The progress of long runs (`render --fleet`, `inject`, `uninject`): a bar on stderr when stderr is a
//! terminal, nothing otherwise (the run's last line on stderr then sums it up), and nothing under
//! `--quiet`. Stdout never sees it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use meshchart::fleet::FleetProgress;
use meshchart::inject::InjectError;
use meshchart::inject::{Entry, ReportSink};
use std::io::IsTerminal;

/// A progress bar that is drawn only for a person watching stderr.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar counting `what` (`clusters`, `resources`), drawn when stderr is a terminal and the
    /// user did not ask for `quiet`; hidden otherwise.
    pub fn on_stderr(what: &'static str, quiet: bool) -> Progress {
        let target = if !quiet && std::io::stderr().is_terminal() {
            // A bounded redraw rate: a fleet finishes thousands of clusters a second.
            ProgressDrawTarget::stderr_with_hz(10)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(Self::style(None, what));
        Progress { bar }
    }

    /// The bar's look: with a total, a bar and `N/TOTAL what`; without, a spinner and a count.
    fn style(total: Option<u64>, what: &'static str) -> ProgressStyle {
        let template = match total {
            Some(_) => format!("{{bar:40}} {{pos}}/{{len}} {what} ({{elapsed}}, {{eta}} left)"),
            None => format!("{{spinner}} {{pos}} {what} ({{elapsed}})"),
        };
        // The templates above are fixed and valid; a bar with the default look would do too.
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar())
    }

    /// The run has `total` items.
    pub fn set_total(&self, total: u64, what: &'static str) {
        self.bar.set_length(total);
        self.bar.set_style(Self::style(Some(total), what));
    }

    /// One more item is done.
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Takes the bar off the terminal, before the run's own last lines are printed.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // An error's message must not land on the bar's line.
        self.bar.finish_and_clear();
    }
}

impl FleetProgress for Progress {
    fn clusters(&self, total: usize) {
        self.set_total(u64::try_from(total).unwrap_or(u64::MAX), "clusters");
    }

    fn cluster_done(&self) {
        self.advance();
    }
}

/// An inject report that moves the bar on at each resource, as the stream goes through.
pub struct Ticking<'a, S: ReportSink> {
    /// Where the entries go.
    pub report: &'a mut S,
    /// The bar.
    pub progress: &'a Progress,
}

impl<S: ReportSink> ReportSink for Ticking<'_, S> {
    fn entry(&mut self, entry: Entry) -> Result<(), InjectError> {
        self.progress.advance();
        self.report.entry(entry)
    }
}
