//! The command line: clap's view of the commands, each turned into a library request and run.
//! Only the binary (this module and `main.rs`) knows clap.

pub mod certs;
pub mod flags;

use camino::Utf8PathBuf;
use clap::{Parser, Subcommand};
use flags::{ChartFlags, DiffChartFlags, InjectArgs, RenderFlags, UninjectArgs, ValueFlags};
use meshchart::chart::ChartSource;
use meshchart::golden;
use meshchart::inject::command::{
    check_stdin_readers, config_release as inject_config_release, held_back, run_inject_reporting,
    run_uninject_reporting, Run,
};
use meshchart::inject::SpooledReport;
use meshchart::package::{self, PackageOptions};
use meshchart::render::{self, Clock};
use meshchart::Error;
use meshchart::{diff, fleet, lint};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Render a Linkerd-compatible control plane (or any chart in our format) the way `helm template` does.
#[derive(Parser, Debug)]
#[command(name = "meshchart", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Render the chart to a multi-document YAML stream.
    Render {
        #[command(flatten)]
        chart: ChartFlags,
        /// Write one file per template under DIR instead of printing (all or nothing); with
        /// --fleet, one DIR/NAME.yaml per cluster.
        #[arg(long, value_name = "DIR")]
        output_dir: Option<Utf8PathBuf>,
        /// Render one control plane per cluster of DIR: each NAME.yaml (its values), or NAME/
        /// holding values.yaml and optionally certs/ (as --certs-dir keeps it). The other flags
        /// apply to every cluster; its values file comes after the shared -f files. A cluster
        /// whose values lack identity material needs its certs/ or --certs-dir to keep it.
        #[arg(long, value_name = "DIR", requires = "output_dir")]
        fleet: Option<Utf8PathBuf>,
        /// Clusters rendered at once (default: one per core).
        #[arg(long, value_name = "N", requires = "fleet", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Write the clusters that rendered even when some failed (still exit 1).
        #[arg(long, requires = "fleet")]
        keep_going: bool,
        #[command(flatten)]
        flags: Box<RenderFlags>,
    },
    /// Package a chart into `<name>-<version>.tgz` (Helm's layout, byte-for-byte reproducible).
    #[command(disable_version_flag = true)]
    Package {
        #[command(flatten)]
        chart: ChartFlags,
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
        /// Keep the chart folder's golden/ cases in the archive (left out by default).
        #[arg(long)]
        include_golden: bool,
    },
    /// Check a chart: Chart.yaml, values (schema, unknown keys, YAML 1.1 booleans), templates.
    Lint {
        #[command(flatten)]
        chart: ChartFlags,
        /// The Linkerd release that will inject the chart's workloads (`edge-24.10.2`): lint
        /// warns about its known issues they would hit (default: the chart's own linkerdVersion,
        /// else the default line).
        #[arg(long, value_name = "RELEASE")]
        meshed_by: Option<String>,
        /// (`--strict`, among the render flags, also fails the lint on warnings and on a
        /// `required` value left unset: an INFO otherwise, as in `helm lint`.)
        #[command(flatten)]
        flags: Box<RenderFlags>,
    },
    /// Print the effective values (chart defaults, then -f files, then --set flags).
    Values {
        #[command(flatten)]
        chart: ChartFlags,
        /// Annotate each value with where it came from (file:line or the flag).
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        flags: ValueFlags,
    },
    /// Print the chart's values.schema.json with every key of its defaults declared.
    Schema {
        /// The chart folder, as Helm takes it (the same as --chart).
        #[arg(value_name = "CHART", conflicts_with = "chart")]
        path: Option<Utf8PathBuf>,
        /// The chart folder (default: ./ when it holds a Chart.yaml, else the embedded control
        /// plane).
        #[arg(long, value_name = "DIR")]
        chart: Option<Utf8PathBuf>,
        /// Write the result to <chart>/values.schema.json instead of printing it.
        #[arg(long)]
        write: bool,
    },
    /// Compare two renders resource by resource (exit 1 when they differ, 2 on error).
    Diff {
        /// Two rendered streams to compare (`-` is stdin); without them, two renders of a chart.
        #[arg(value_name = "FILE", num_args = 0..=2)]
        files: Vec<String>,
        /// The chart both sides render (default: an embedded release line, as render chooses).
        #[command(flatten)]
        chart: DiffChartFlags,
        /// The chart side A renders (default: --chart or --linkerd).
        #[arg(long, value_name = "DIR|TGZ", conflicts_with = "linkerd_a")]
        chart_a: Option<Utf8PathBuf>,
        /// The chart side B renders (default: --chart or --linkerd).
        #[arg(long, value_name = "DIR|TGZ", conflicts_with = "linkerd_b")]
        chart_b: Option<Utf8PathBuf>,
        /// The embedded release line side A renders (an upgrade's from).
        #[arg(long, value_name = "RELEASE")]
        linkerd_a: Option<String>,
        /// The embedded release line side B renders (an upgrade's to).
        #[arg(long, value_name = "RELEASE")]
        linkerd_b: Option<String>,
        /// A values file for side A only (repeatable; after the shared -f files).
        #[arg(long = "values-a", value_name = "FILE")]
        values_a: Vec<String>,
        /// A values file for side B only.
        #[arg(long = "values-b", value_name = "FILE")]
        values_b: Vec<String>,
        /// A --set for side A only (repeatable; after the shared --set flags).
        #[arg(long = "set-a", value_name = "KEY=VALUE")]
        set_a: Vec<String>,
        /// A --set for side B only.
        #[arg(long = "set-b", value_name = "KEY=VALUE")]
        set_b: Vec<String>,
        /// Show Secret data and private keys as written (masked by default: a review diff
        /// shows that a secret changed, by its digest, not what it is).
        #[arg(long)]
        show_secrets: bool,
        #[command(flatten)]
        flags: Box<RenderFlags>,
    },
    /// Check (or rewrite) golden-file cases: folders of inputs and their exact expected output.
    Golden {
        /// The chart the cases render (default: an embedded release line).
        #[command(flatten)]
        chart: ChartFlags,
        /// The folder of cases (default: `<chart>/golden`, or tests/golden/control-plane-<release>).
        #[arg(long, value_name = "DIR")]
        cases: Option<Utf8PathBuf>,
        /// Rewrite each case's expected output instead of comparing.
        #[arg(long)]
        update: bool,
        /// With --update, let a case turn from an output case into an error case or back
        /// (refused otherwise, by name, with exit 1).
        #[arg(long, requires = "update")]
        accept_errors: bool,
        /// Run (or update) only this case, by its folder name (repeatable).
        #[arg(long = "case", value_name = "NAME")]
        only: Vec<String>,
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
    /// List the Linkerd release lines meshchart embeds: release, charts and versions, the
    /// Kubernetes versions each supports, and which is the default.
    Releases,
    /// The certificate lifecycle of a --certs-dir folder: create a root and issuer, renew the
    /// issuer (the root may be kept offline), rotate the root in phases, inspect.
    #[command(subcommand)]
    Certs(certs::CertsCommand),
    /// List the template functions: each with its arguments in Sprig's order, then Helm's
    /// functions refused on purpose (clock, randomness, cluster) or not supported yet, and why.
    Functions,
}

/// Prints notes on stderr in one write: stderr is unbuffered, and a fleet has a note or more
/// per cluster.
fn print_notes(notes: &[String]) {
    let text: String = notes
        .iter()
        .flat_map(|note| [note.as_str(), "\n"])
        .collect();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

fn write_stdout(text: &str) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(Error::io("<stdout>"))
}

/// Prints what a finished inject/uninject has to say: notes and the report on stderr (the
/// stream is already on stdout).
fn finish(run: Run, report: SpooledReport) -> ExitCode {
    print_notes(&run.notes);
    let _ = report.copy_to(&mut std::io::stderr().lock());
    ExitCode::SUCCESS
}

/// The exit code for "some of it failed" (lint findings, failed golden cases, fleet clusters).
fn failed_if(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `command` with its chart made explicit (see [`ChartFlags::resolved`]).
fn with_chart_resolved(command: Command) -> Command {
    match command {
        Command::Render {
            chart,
            output_dir,
            fleet,
            jobs,
            keep_going,
            flags,
        } => Command::Render {
            chart: chart.resolved(),
            output_dir,
            fleet,
            jobs,
            keep_going,
            flags,
        },
        Command::Package {
            chart,
            destination,
            version,
            app_version,
            include_golden,
        } => Command::Package {
            chart: chart.resolved(),
            destination,
            version,
            app_version,
            include_golden,
        },
        Command::Lint {
            chart,
            meshed_by,
            flags,
        } => Command::Lint {
            chart: chart.resolved(),
            meshed_by,
            flags,
        },
        Command::Values {
            chart,
            explain,
            flags,
        } => Command::Values {
            chart: chart.resolved(),
            explain,
            flags,
        },
        Command::Golden {
            chart,
            cases,
            update,
            accept_errors,
            only,
        } => Command::Golden {
            chart: chart.resolved(),
            cases,
            update,
            accept_errors,
            only,
        },
        Command::Schema { path, chart, write } => {
            let named = ChartFlags {
                path,
                chart,
                ..ChartFlags::default()
            }
            .resolved();
            Command::Schema {
                path: None,
                chart: named.chart,
                write,
            }
        }
        Command::Diff {
            files,
            chart,
            chart_a,
            chart_b,
            linkerd_a,
            linkerd_b,
            values_a,
            values_b,
            set_a,
            set_b,
            show_secrets,
            flags,
        } => {
            // Two streams compared need no chart: only a render of one is resolved.
            let chart = if files.is_empty() {
                let resolved = ChartFlags::from(chart).resolved();
                DiffChartFlags {
                    chart: resolved.chart,
                    linkerd: resolved.linkerd,
                    crds: resolved.crds,
                }
            } else {
                chart
            };
            Command::Diff {
                files,
                chart,
                chart_a,
                chart_b,
                linkerd_a,
                linkerd_b,
                values_a,
                values_b,
                set_a,
                set_b,
                show_secrets,
                flags,
            }
        }
        other => other,
    }
}

/// Runs one command; the caller prints the error and exits 1.
pub fn run(command: Command) -> Result<ExitCode, Error> {
    match with_chart_resolved(command) {
        Command::Inject(args) => inject(&args),
        Command::Certs(command) => {
            certs::run(command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Functions => {
            write_stdout(&meshchart::engine::functions::listing())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Releases => {
            write_stdout(&releases_table()?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Uninject(args) => {
            let mut report = SpooledReport::new(args.report.into())?;
            let run = held_back(&mut std::io::stdout().lock(), |out| {
                run_uninject_reporting(
                    &args.inputs,
                    &mut std::io::stdin().lock(),
                    out,
                    &mut report,
                )?;
                Ok(Run::default())
            })?;
            Ok(finish(run, report))
        }
        Command::Render {
            chart,
            output_dir: Some(out),
            fleet: Some(fleet_dir),
            jobs,
            keep_going,
            flags,
        } => render_fleet(&chart, &fleet_dir, &out, jobs, keep_going, &flags),
        Command::Render {
            chart,
            output_dir,
            flags,
            ..
        } => render(&chart, output_dir, &flags),
        Command::Package {
            chart,
            destination,
            version,
            app_version,
            include_golden,
        } => {
            let mut options = PackageOptions::from_env(version, app_version)?;
            options.include_golden = include_golden;
            let source = chart.source();
            let (package, notes) = package::package_source(&source, &options)?;
            print_notes(&notes);
            print_notes(&[format!(
                "packaged {source}: {} {}",
                package.name, package.version
            )]);
            let path = package::write_package(&package, &destination)?;
            write_stdout(&package::sha256sum_line(&package, &path))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Lint {
            chart,
            meshed_by,
            flags,
        } => {
            let source = chart.source();
            // Printed as found: a report of a million findings is not kept whole.
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let failed = lint::lint_to(
                &source,
                &flags.request(),
                meshed_by.as_deref(),
                flags.strict,
                &mut std::io::stdin().lock(),
                &mut stdout,
            )
            .map_err(Error::io("<stdout>"))?;
            Ok(failed_if(failed))
        }
        Command::Values {
            chart,
            explain,
            flags,
        } => {
            let overrides = flags.overrides();
            let chosen =
                render::choose_chart(&chart.source(), &overrides, &mut std::io::stdin().lock())?;
            print_notes(&chosen.notes);
            let (text, warnings) = render::show_values(
                &chosen.chart,
                &chosen.overrides,
                explain,
                &mut std::io::stdin().lock(),
            )?;
            print_notes(&warnings);
            write_stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Schema { chart, write, .. } => {
            if write && chart.is_none() {
                return Err(Error::Usage(
                    "schema --write needs a chart folder to write into: name it (CHART or \
                     --chart DIR); the embedded charts cannot be written"
                        .into(),
                ));
            }
            let loaded = ChartSource::from_flag(chart.as_deref()).load()?;
            let write_to = chart.as_deref().filter(|_| write);
            let (text, notes) = lint::schema::schema_command(&loaded, write_to)?;
            print_notes(&notes);
            write_stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff {
            files,
            chart,
            chart_a,
            chart_b,
            linkerd_a,
            linkerd_b,
            values_a,
            values_b,
            set_a,
            set_b,
            show_secrets,
            flags,
        } => {
            // A side's own chart: its --chart-X folder, or its --linkerd-X line (the shared
            // --crds choosing that line's chart).
            let side_chart =
                |path: Option<Utf8PathBuf>, release: Option<String>| match (path, release) {
                    (Some(path), _) => Some(ChartSource::from_flag(Some(&path))),
                    (None, Some(release)) => Some(ChartSource::Embedded {
                        release: Some(release),
                        crds: chart.crds,
                    }),
                    (None, None) => None,
                };
            let a = diff::SideRequest {
                chart: side_chart(chart_a, linkerd_a),
                values: values_a,
                set: set_a,
            };
            let b = diff::SideRequest {
                chart: side_chart(chart_b, linkerd_b),
                values: values_b,
                set: set_b,
            };
            let request = diff::DiffRequest {
                files,
                chart: ChartFlags::from(chart).source(),
                shared: flags.request(),
                a,
                b,
                secrets: if show_secrets {
                    diff::Secrets::Shown
                } else {
                    diff::Secrets::Masked
                },
            };
            let compared = diff::compare(&request, &mut std::io::stdin().lock(), Clock::FromEnv);
            match compared {
                // Exit 1 says "they differ": an error, writing the report included, is 2.
                Ok(report) => match write_stdout(&report.to_text()) {
                    Ok(()) => Ok(ExitCode::from(u8::from(!report.is_empty()))),
                    Err(e) if e.is_broken_pipe() => Err(e),
                    Err(e) => {
                        eprintln!("error: {e}");
                        Ok(ExitCode::from(2))
                    }
                },
                Err(e) => {
                    eprintln!(
                        "error: {}",
                        meshchart::redact::mask_private_keys(&e.to_string())
                    );
                    Ok(ExitCode::from(2))
                }
            }
        }
        Command::Golden {
            chart,
            cases,
            update,
            accept_errors,
            only,
        } => {
            let loaded = chart.source().load()?;
            let release = loaded.metadata.app_version.clone().unwrap_or_default();
            let cases = cases
                .unwrap_or_else(|| golden::default_cases_dir(chart.chart.as_deref(), &release));
            let options = golden::GoldenOptions {
                update,
                accept_errors,
                only,
            };
            let reports = golden::run(&loaded, &cases, &options)?;
            let named = match (&chart.chart, &chart.linkerd) {
                (Some(path), _) => format!("{path} "),
                (None, Some(line)) => format!("--linkerd {line} "),
                (None, None) => String::new(),
            };
            let update_command = format!("meshchart golden {named}--cases {cases} --update");
            write_stdout(&format!(
                "golden cases {cases} of chart {}\n{}",
                chart.source(),
                golden::summary(&reports, &update_command)
            ))?;
            Ok(failed_if(golden::failed_count(&reports) > 0))
        }
    }
}

/// What `meshchart releases` prints: one line per embedded release line.
fn releases_table() -> Result<String, Error> {
    let mut text = String::from("RELEASE\tCHARTS\tKUBERNETES\tDEFAULT\n");
    for line in meshchart::chart::releases::release_lines()? {
        let charts: Vec<String> = line
            .charts
            .iter()
            .map(|(name, version)| format!("{name}-{version}"))
            .collect();
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            line.release,
            charts.join(","),
            line.kube_version,
            if line.default { "yes" } else { "" }
        ));
    }
    Ok(text)
}

fn inject(args: &InjectArgs) -> Result<ExitCode, Error> {
    let mut request = args.request();
    check_stdin_readers(&request)?;
    // `--config -` is read twice (for its release, then for its values): keep standard input.
    let mut kept_stdin = Vec::new();
    if request.config.as_deref() == Some("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut kept_stdin)
            .map_err(Error::io("<stdin>"))?;
    }
    // The control plane's own release chooses the line, unless --linkerd does: a config from
    // a release meshchart does not embed is then an error, as a linkerdVersion would be.
    let release = match (&args.linkerd, &request.config) {
        (Some(line), _) => Some(line.clone()),
        (None, Some(config)) => {
            let release = inject_config_release(config, &mut kept_stdin.as_slice())?;
            let embedded = meshchart::chart::releases::embedded_releases();
            if let Some(release) = release.as_deref().filter(|r| !embedded.contains(r)) {
                return Err(Error::Usage(format!(
                    "--config {config}: its control plane runs Linkerd {release}, which \
                     meshchart does not embed (it embeds {}); name the line to inject with \
                     --linkerd",
                    embedded.join(", ")
                )));
            }
            release
        }
        (None, None) => None,
    };
    let source = ChartSource::Embedded {
        release,
        crds: false,
    };
    let stdin_used_by_config = request.config.as_deref() == Some("-");
    let mut live_stdin = std::io::stdin().lock();
    let stdin: &mut dyn Read = if stdin_used_by_config {
        &mut kept_stdin.as_slice()
    } else {
        &mut live_stdin
    };
    let chosen = render::choose_chart(&source, &request.overrides, stdin)?;
    print_notes(&chosen.notes);
    request.overrides = chosen.overrides;
    let mut report = SpooledReport::for_inject(args.report.into(), request.quiet)?;
    let run = held_back(&mut std::io::stdout().lock(), |out| {
        let notes = run_inject_reporting(&chosen.chart, &request, stdin, out, &mut report)?;
        Ok(Run {
            notes,
            ..Run::default()
        })
    })?;
    Ok(finish(run, report))
}

fn render(
    chart: &ChartFlags,
    output_dir: Option<Utf8PathBuf>,
    flags: &RenderFlags,
) -> Result<ExitCode, Error> {
    let request = flags.request();
    if let Some(dir) = &output_dir {
        render::refuse_output_overlap(dir, chart.chart.as_deref(), &request, None)?;
    }
    let chosen = render::choose_chart(
        &chart.source(),
        request.overrides(),
        &mut std::io::stdin().lock(),
    )?;
    print_notes(&chosen.notes);
    let request = chosen.request(&request)?;
    let outcome = render::render(
        &chosen.chart,
        &request,
        &mut std::io::stdin().lock(),
        Clock::FromEnv,
    )?;
    print_notes(&outcome.notes);
    match output_dir {
        Some(dir) => {
            // A --show-only render leaves the other templates' files (as Helm does).
            let removal = match request.show_only.is_empty() {
                true => meshchart::output::Removal::Stale,
                false => meshchart::output::Removal::None,
            };
            render::write_output_dir(&dir, &outcome.rendered, removal)?;
            write_stdout(&render::output_dir_listing(&dir, &outcome.rendered))?;
        }
        None => write_stdout(&outcome.rendered.to_stream())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn render_fleet(
    chart: &ChartFlags,
    fleet_dir: &camino::Utf8Path,
    out: &camino::Utf8Path,
    jobs: Option<u16>,
    keep_going: bool,
    flags: &RenderFlags,
) -> Result<ExitCode, Error> {
    let request = flags.request();
    render::refuse_output_overlap(out, chart.chart.as_deref(), &request, Some(fleet_dir))?;
    let options = fleet::FleetOptions {
        jobs: jobs.map(usize::from),
        keep_going,
    };
    let report = fleet::run(
        &chart.source(),
        fleet_dir,
        out,
        &request,
        options,
        &mut std::io::stdin().lock(),
        Clock::FromEnv,
    )?;
    print_notes(&report.notes);
    write_stdout(&report.listing())?;
    let mut last_words = String::new();
    if !report.failures.is_empty() {
        last_words.push_str(&report.failure_text(keep_going));
    }
    if let Some(error) = &report.not_put_in_place {
        last_words.push_str(&format!(
            "error: the clusters' outputs could not be put in place, so nothing was written: \
             {error}\n"
        ));
    }
    // One line that sums the run up, always the last.
    last_words.push_str(&report.summary());
    last_words.push('\n');
    let _ = std::io::stderr().lock().write_all(last_words.as_bytes());
    Ok(failed_if(report.failed()))
}
