//! The `meshchart` command line: parses flags and calls the library.

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Parser, Subcommand};
use meshchart::flags::RenderFlags;
use meshchart::golden::{self, CaseOutcome};
use meshchart::inject::command::{run_inject, run_uninject, Run};
use meshchart::inject::flags::{InjectArgs, UninjectArgs};
use meshchart::inject::ReportFormat;
use meshchart::render::{self, ChartSource};
use meshchart::Error;
use std::io::Write;
use std::process::ExitCode;

/// Render a Linkerd-compatible control plane (or any chart in our format) the way `helm template` does.
#[derive(Parser, Debug)]
#[command(name = "meshchart", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Render the chart to a multi-document YAML stream.
    Render {
        /// A chart folder to render instead of the embedded control plane.
        #[arg(long, value_name = "DIR")]
        chart: Option<Utf8PathBuf>,
        /// Write one file per template under DIR instead of printing (all or nothing).
        #[arg(long, value_name = "DIR")]
        output_dir: Option<Utf8PathBuf>,
        #[command(flatten)]
        flags: Box<RenderFlags>,
    },
    /// Check (or rewrite) golden-file cases: folders of inputs and their exact expected output.
    Golden {
        /// The chart the cases render (default: the embedded control plane).
        #[arg(long, value_name = "DIR")]
        chart: Option<Utf8PathBuf>,
        /// The folder of cases (default: `<chart>/golden`, or tests/golden/control-plane).
        #[arg(long, value_name = "DIR")]
        cases: Option<Utf8PathBuf>,
        /// Rewrite each case's expected output instead of comparing.
        #[arg(long)]
        update: bool,
    },
    /// Add the mesh's proxy to workloads, as `linkerd inject --manual` does (YAML or JSON out,
    /// a report on stderr).
    ///
    /// The proxy and init containers come from the chart's partials, configured by the chart's
    /// values, your `-f`/`--set` values, and the `config.linkerd.io/*` annotations of the
    /// namespace, the workload and the pod template (later wins). The proxies must trust the
    /// control plane's identity: give the values it was installed with (`-f`), or at least
    /// `--set-file identityTrustAnchorsPEM=ca.crt`. Nothing is written to stdout unless the
    /// whole input went through.
    Inject(InjectArgs),
    /// Remove what `inject` added.
    Uninject(UninjectArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn print_notes(notes: &[String]) {
    let mut stderr = std::io::stderr().lock();
    for note in notes {
        let _ = writeln!(stderr, "{note}");
    }
}

fn write_stdout(text: &str) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(Error::io("<stdout>"))
}

/// Prints a finished inject/uninject: the stream on stdout, notes and the report on stderr.
fn finish(run: Run, format: ReportFormat) -> Result<ExitCode, Error> {
    print_notes(&run.notes);
    write_stdout(&run.transformed.output)?;
    let _ = std::io::stderr()
        .lock()
        .write_all(run.transformed.report.render(format).as_bytes());
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Inject(args) => {
            let chart = ChartSource::Embedded.load()?;
            let run = run_inject(&chart, &args, &mut std::io::stdin().lock())?;
            finish(run, args.report)
        }
        Command::Uninject(args) => {
            let run = run_uninject(&args, &mut std::io::stdin().lock())?;
            finish(run, args.report)
        }
        Command::Render {
            chart,
            output_dir,
            flags,
        } => {
            let chart = ChartSource::from_flag(chart.as_deref()).load()?;
            let outcome = render::render(&chart, &flags, &mut std::io::stdin().lock())?;
            print_notes(&outcome.notes);
            match output_dir {
                Some(dir) => {
                    render::write_output_dir(&dir, &outcome.rendered)?;
                    // Like Helm: one line per document, so a file with two documents shows twice.
                    let mut listing = String::new();
                    for doc in &outcome.rendered.documents {
                        listing.push_str(&format!(
                            "wrote {dir}/{}/{}\n",
                            outcome.rendered.chart_name, doc.template
                        ));
                    }
                    write_stdout(&listing)?;
                }
                None => write_stdout(&outcome.rendered.to_stream())?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Golden {
            chart,
            cases,
            update,
        } => {
            let source = ChartSource::from_flag(chart.as_deref());
            let cases = cases.unwrap_or_else(|| match &chart {
                Some(dir) => dir.join("golden"),
                None => Utf8Path::new("tests/golden/control-plane").to_owned(),
            });
            let chart = source.load()?;
            let reports = golden::run(&chart, &cases, update)?;
            let mut failed = 0;
            let mut text = String::new();
            for report in &reports {
                match &report.outcome {
                    CaseOutcome::Passed => text.push_str(&format!("ok      {}\n", report.name)),
                    CaseOutcome::Updated => text.push_str(&format!("updated {}\n", report.name)),
                    CaseOutcome::Failed(diff) => {
                        failed += 1;
                        text.push_str(&format!("FAILED  {}\n{diff}\n", report.name));
                    }
                }
            }
            text.push_str(&format!(
                "{} passed, {failed} failed\n",
                reports.len() - failed
            ));
            write_stdout(&text)?;
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}
