//! The `meshchart` command line: parses flags and calls the library.

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Parser, Subcommand};
use meshchart::flags::RenderFlags;
use meshchart::golden::{self, CaseOutcome};
use meshchart::package::archive::mtime_from_env;
use meshchart::package::{self, PackageError, PackageOptions};
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
        /// A chart folder or archive (.tgz) to render instead of the embedded control plane.
        #[arg(long, value_name = "DIR|TGZ")]
        chart: Option<Utf8PathBuf>,
        /// Write one file per template under DIR instead of printing (all or nothing).
        #[arg(long, value_name = "DIR")]
        output_dir: Option<Utf8PathBuf>,
        #[command(flatten)]
        flags: Box<RenderFlags>,
    },
    /// Package a chart into `<name>-<version>.tgz` (Helm's layout, byte-for-byte reproducible).
    #[command(disable_version_flag = true)]
    Package {
        /// The chart folder (or archive) to package (default: the embedded control plane).
        #[arg(long, value_name = "DIR|TGZ")]
        chart: Option<Utf8PathBuf>,
        /// Folder to write the archive into.
        #[arg(
            short = 'd',
            long = "destination",
            value_name = "OUT",
            default_value = "."
        )]
        destination: Utf8PathBuf,
        /// Set the chart's version (SemVer 2), rewriting only that line of Chart.yaml.
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
        /// Set the chart's appVersion, rewriting only that line of Chart.yaml.
        #[arg(long, value_name = "VERSION")]
        app_version: Option<String>,
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

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
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
        Command::Package {
            chart,
            destination,
            version,
            app_version,
        } => {
            let options = PackageOptions {
                version,
                app_version,
                mtime: mtime_from_env().map_err(PackageError::Mtime)?,
            };
            let source = ChartSource::from_flag(chart.as_deref());
            let (package, notes) = package::package_source(&source, &options)?;
            print_notes(&notes);
            let path = package::write_package(&package, &destination)?;
            // sha256sum's format, so `sha256sum -c` can check it.
            write_stdout(&format!("{}  {path}\n", package.sha256))?;
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
