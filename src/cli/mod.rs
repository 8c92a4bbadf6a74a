//! The command line: clap's view of the commands, each turned into a library request and run,
//! one file per command (`render.rs`, `inject.rs`, ...). Only the binary and `meshchart-cli`
//! (crates/cli: the flag groups, which golden cases are read with too) know clap.

pub mod certs;
mod diff;
mod golden;
mod inject;
mod lint;
mod package;
mod progress;
mod releases;
mod render;
mod values;

use meshchart::flags;

use camino::Utf8PathBuf;
use clap::{Args, Parser, Subcommand};
use flags::helm::{HelmPackageFlags, HelmTemplateFlags, IgnoredFlags, LINT};
use flags::FormatFlag;
use flags::{
    ChartFlags, DiffChartFlags, InjectArgs, RenderChartFlags, RenderFlags, UninjectArgs, ValueFlags,
};
use meshchart::inject::command::Run;
use meshchart::inject::SpooledReport;
use meshchart::Error;
use std::ffi::OsString;
use std::io::Write;
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
    /// Render the chart to a multi-document YAML stream, as `helm template [NAME] [CHART]`.
    ///
    /// Helm's flags work as in `helm template`; those that only matter against a cluster or a
    /// repository (--wait, --kube-context, ...) are accepted and ignored with a note.
    #[command(name = RENDER, disable_version_flag = true)]
    Render(RenderArgs),
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
        #[command(flatten)]
        helm: HelmPackageFlags,
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
        /// Print only warnings and errors (INFO findings left out), as `helm lint --quiet`.
        #[arg(long)]
        quiet: bool,
        #[command(flatten)]
        format: FormatFlag,
        /// (`--strict`, among the render flags, also fails the lint on warnings and on a
        /// `required` value left unset: an INFO otherwise, as in `helm lint`.)
        #[command(flatten)]
        flags: Box<RenderFlags>,
        #[command(flatten)]
        helm: IgnoredFlags<LINT>,
    },
    /// Print the effective values (chart defaults, then -f files, then --set flags).
    Values {
        #[command(flatten)]
        chart: ChartFlags,
        /// Annotate each value with where it came from (file:line or the flag).
        #[arg(long)]
        explain: bool,
        /// As render's -n: on a chart whose defaults have a top-level `namespace` value (the
        /// 2021 line's), that value, under your own -f and --set values.
        #[arg(short = 'n', long)]
        namespace: Option<String>,
        /// As render's --ha: the chart's values-ha.yaml under your own -f and --set values.
        #[arg(long)]
        ha: bool,
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
        /// The Linkerd release whose embedded chart's schema to print (as render's --linkerd).
        #[arg(long, value_name = "RELEASE", conflicts_with_all = ["path", "chart", "write"])]
        linkerd: Option<String>,
        /// The release line's CRD chart (linkerd-crds).
        #[arg(long, conflicts_with_all = ["path", "chart", "write"])]
        crds: bool,
        /// Write the result to <chart>/values.schema.json instead of printing it.
        #[arg(long)]
        write: bool,
    },
    /// Compare two renders resource by resource (exit 1 when they differ, 2 on error).
    Diff(Box<diff::DiffArgs>),
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
        #[command(flatten)]
        format: FormatFlag,
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
    Releases {
        #[command(flatten)]
        format: FormatFlag,
    },
    /// The certificate lifecycle of a --certs-dir folder: create a root and issuer, renew the
    /// issuer (the root may be kept offline), rotate the root in phases, inspect.
    #[command(subcommand)]
    Certs(certs::CertsCommand),
    /// List the template functions: each with its arguments in Sprig's order, then Helm's
    /// functions refused on purpose (clock, randomness, cluster) or not supported yet, and why.
    Functions,
    /// Print a shell completion script: `meshchart completions bash > /etc/bash_completion.d/meshchart`
    /// (or zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print meshchart's man page (roff): `meshchart man > meshchart.1; man ./meshchart.1`.
    Man,
}

/// The name of the command that renders, which [`parse`] reads on its own.
const RENDER: &str = "render";

/// `meshchart render`'s flags.
#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub chart: RenderChartFlags,
    /// The chart's version must satisfy this constraint (`1.2.3`, `^2.0.0`, `>=1.2 <2`),
    /// as `helm template --version` asks of a repository's chart; else an error.
    #[arg(long = "version", value_name = "CONSTRAINT")]
    pub chart_version: Option<String>,
    /// Write one file per template under DIR instead of printing (all or nothing); with
    /// --fleet, one DIR/NAME.yaml per cluster.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<Utf8PathBuf>,
    /// Render one control plane per cluster of DIR: each NAME.yaml (its values), or NAME/
    /// holding values.yaml and optionally certs/ (as --certs-dir keeps it). The other flags
    /// apply to every cluster; its values file comes after the shared -f files. A cluster
    /// whose values lack identity material needs its certs/ or --certs-dir to keep it.
    #[arg(long, value_name = "DIR", requires = "output_dir")]
    pub fleet: Option<Utf8PathBuf>,
    /// Clusters rendered at once (default: one per core).
    #[arg(long, value_name = "N", requires = "fleet", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Write the clusters that rendered even when some failed (still exit 1).
    #[arg(long, requires = "fleet")]
    pub keep_going: bool,
    /// Say only warnings and errors on stderr: no notes, no progress bar, and with
    /// --output-dir no listing of the files on stdout (a fleet's one-line summary stays).
    #[arg(short = 'q', long)]
    pub quiet: bool,
    #[command(flatten)]
    pub flags: Box<RenderFlags>,
    #[command(flatten)]
    pub helm: Box<HelmTemplateFlags>,
}

/// What `meshchart --version` prints after the version: the default release, and the
/// releases compiled in, era by era (`meshchart releases` lists each).
fn long_version() -> String {
    let mut text = format!(
        "{}\nLinkerd releases embedded (meshchart releases lists each):",
        env!("CARGO_PKG_VERSION")
    );
    let lines = match meshchart::releases::release_lines() {
        Ok(lines) => lines,
        Err(e) => return format!("{text} unreadable ({e})"),
    };
    if let Some(default) = lines.iter().find(|line| line.default) {
        let charts: Vec<String> = default
            .charts
            .iter()
            .map(|(name, version)| format!("{name} {version}"))
            .collect();
        text.push_str(&format!(
            "\n  {}  {}  (default)",
            default.release,
            charts.join(", ")
        ));
    }
    let mut waiting = Vec::new();
    for era in meshchart::releases::ERAS.iter().rev() {
        let served: Vec<&str> = lines
            .iter()
            .filter(|line| line.era == era.name && line.templates.is_some())
            .map(|line| line.release)
            .collect();
        let count = served.len();
        let (Some(first), Some(last)) = (served.first(), served.last()) else {
            waiting.push(era.name);
            continue;
        };
        let range = if first == last {
            (*first).to_owned()
        } else {
            format!("{first} .. {last}")
        };
        text.push_str(&format!(
            "\n  era {}: {range} ({count} release{})",
            era.name,
            if count == 1 { "" } else { "s" }
        ));
    }
    if !waiting.is_empty() {
        waiting.reverse();
        text.push_str(&format!(
            "\n  known, not embedded yet: eras {}",
            waiting.join(", ")
        ));
    }
    text
}

/// The command line's clap definition, with `--version` listing the embedded releases.
pub fn definition() -> clap::Command {
    use clap::CommandFactory;
    // Clap keeps a version as a 'static str; this one is made once per process.
    let version: &'static str = Box::leak(long_version().into_boxed_str());
    Cli::command().long_version(version)
}

/// Parses the process's arguments against [`definition`] (exits with clap's message when they
/// do not parse, as `Cli::parse` would).
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(render) = parse_render_alone(&args) {
        return Cli {
            command: Command::Render(render),
        };
    }
    definition()
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .unwrap_or_else(|e| e.exit())
}

/// `meshchart render ...` read against a command line that has only `render`: building the
/// whole definition (every command's flags, and the release list `--version` shows) is 0.2 ms
/// of a 3 ms render, twice that on a cold start. `None` for anything else, and for whatever
/// this definition refuses or answers itself (a mistake, `--help`), so that the whole
/// definition reads it again and says exactly what clap says of it.
fn parse_render_alone(args: &[OsString]) -> Option<RenderArgs> {
    use clap::FromArgMatches;
    if args.get(1)? != RENDER {
        return None;
    }
    let matches = render_alone().try_get_matches_from(args).ok()?;
    let (_, render) = matches.subcommand()?;
    RenderArgs::from_arg_matches(render).ok()
}

/// A command line with only `render`, its flags as the whole [`definition`] has them.
fn render_alone() -> clap::Command {
    clap::Command::new("meshchart").subcommand(RenderArgs::augment_args(clap::Command::new(RENDER)))
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

/// `value` as the one JSON document a command prints: pretty, keys in the order built, a newline
/// at the end.
fn json_text(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn write_stdout(text: &str) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(Error::io("<stdout>"))
}

/// Prints what a finished inject/uninject has to say: notes and the report on stderr (the
/// stream is already on stdout); a JSON report holds the notes, `early` ones (said before the
/// run) first, so stderr is one JSON document.
fn finish(early: Vec<String>, run: Run, report: SpooledReport) -> ExitCode {
    let mut notes = early;
    notes.extend(run.notes);
    let _ = report.copy_with_notes(&notes, &mut std::io::stderr().lock());
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
        Command::Package {
            chart,
            destination,
            version,
            app_version,
            include_golden,
            helm,
        } => Command::Package {
            chart: chart.resolved(),
            destination,
            version,
            app_version,
            include_golden,
            helm,
        },
        Command::Lint {
            chart,
            meshed_by,
            quiet,
            format,
            flags,
            helm,
        } => Command::Lint {
            chart: chart.resolved(),
            meshed_by,
            quiet,
            format,
            flags,
            helm,
        },
        Command::Values {
            chart,
            explain,
            namespace,
            ha,
            flags,
        } => Command::Values {
            chart: chart.resolved(),
            explain,
            namespace,
            ha,
            flags,
        },
        Command::Golden {
            chart,
            cases,
            update,
            accept_errors,
            only,
            format,
        } => Command::Golden {
            chart: chart.resolved(),
            cases,
            update,
            accept_errors,
            only,
            format,
        },
        Command::Schema {
            path,
            chart,
            linkerd,
            crds,
            write,
        } => {
            let named = ChartFlags {
                path,
                chart,
                linkerd,
                crds,
            }
            .resolved();
            Command::Schema {
                path: None,
                chart: named.chart,
                linkerd: named.linkerd,
                crds: named.crds,
                write,
            }
        }
        Command::Diff(mut args) => {
            // Two streams compared need no chart: only a render of one is resolved.
            if args.files.is_empty() {
                let resolved = ChartFlags::from(args.chart).resolved();
                args.chart = DiffChartFlags {
                    chart: resolved.chart,
                    linkerd: resolved.linkerd,
                    crds: resolved.crds,
                };
            }
            Command::Diff(args)
        }
        other => other,
    }
}

/// Runs one command; the caller prints the error and exits 1.
pub fn run(command: Command) -> Result<ExitCode, Error> {
    match with_chart_resolved(command) {
        Command::Inject(args) => inject::inject(&args),
        Command::Certs(command) => {
            certs::run(command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut definition(), "meshchart", &mut text);
            write_stdout(&String::from_utf8_lossy(&text))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let mut text = Vec::new();
            clap_mangen::Man::new(definition())
                .render(&mut text)
                .map_err(Error::io("<man page>"))?;
            write_stdout(&String::from_utf8_lossy(&text))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Functions => {
            write_stdout(&meshchart::engine::functions::listing())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Releases { format } => {
            write_stdout(&releases::table(format.json())?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Uninject(args) => inject::uninject(&args),
        Command::Render(RenderArgs {
            chart,
            chart_version,
            output_dir,
            fleet,
            jobs,
            keep_going,
            quiet,
            flags,
            helm,
        }) => {
            let (chart, mut flags) = render::helm_grammar(chart, *flags, &helm)?;
            let output_dir = render::release_output_dir(output_dir, &helm, &mut flags);
            let chart = chart.resolved();
            match (output_dir, fleet) {
                (Some(out), Some(fleet_dir)) => render::fleet(
                    &chart,
                    &fleet_dir,
                    &out,
                    jobs,
                    keep_going,
                    quiet,
                    &flags,
                    chart_version.as_deref(),
                ),
                (output_dir, _) => render::one(
                    &chart,
                    output_dir,
                    quiet,
                    &flags,
                    &helm,
                    chart_version.as_deref(),
                ),
            }
        }
        Command::Package {
            chart,
            destination,
            version,
            app_version,
            include_golden,
            helm,
        } => {
            if let Some(reason) = helm.refusal() {
                return Err(Error::Usage(reason));
            }
            print_notes(&helm.note().into_iter().collect::<Vec<_>>());
            package::run(&chart, &destination, version, app_version, include_golden)
        }
        Command::Lint {
            chart,
            meshed_by,
            quiet,
            format,
            flags,
            helm,
        } => {
            print_notes(&helm.note().into_iter().collect::<Vec<_>>());
            lint::run(&chart, meshed_by.as_deref(), &flags, quiet, format.json())
        }
        Command::Values {
            chart,
            explain,
            namespace,
            ha,
            flags,
        } => values::run(&chart, explain, namespace.as_deref(), ha, &flags),
        Command::Schema {
            chart,
            linkerd,
            crds,
            write,
            ..
        } => lint::schema(chart, linkerd, crds, write),
        Command::Diff(args) => diff::run(*args),
        Command::Golden {
            chart,
            cases,
            update,
            accept_errors,
            only,
            format,
        } => golden::run(&chart, cases, update, accept_errors, only, format.json()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    fn read_whole(args: &[OsString]) -> Result<Cli, clap::Error> {
        definition()
            .try_get_matches_from(args)
            .and_then(|matches| Cli::from_arg_matches(&matches))
    }

    fn render_flags(command: &clap::Command) -> Vec<String> {
        let render = command
            .find_subcommand(RENDER)
            .expect("the definition has render");
        render
            .get_arguments()
            .map(|arg| format!("{arg:?}"))
            .collect()
    }

    #[test]
    fn render_alone_has_every_render_flag_of_the_whole_definition_unchanged() {
        let alone = render_flags(&render_alone());
        assert!(alone.len() > 40, "render has {} flags", alone.len());
        assert_eq!(alone, render_flags(&definition()));
        let version_flag_off = |command: &clap::Command| {
            command
                .find_subcommand(RENDER)
                .map(clap::Command::is_disable_version_flag_set)
        };
        assert_eq!(version_flag_off(&render_alone()), Some(true));
        assert_eq!(version_flag_off(&definition()), Some(true));
    }

    #[test]
    fn a_render_read_alone_is_what_the_whole_definition_reads() {
        for line in [
            "meshchart render",
            "meshchart render --crds --linkerd edge-24.10.2 --namespace linkerd",
            "meshchart render -f a.yaml -f b.yaml --set x=1,y=2 --set-string z=3 -q",
            "meshchart render --ha --output-dir out --fleet clusters --jobs 2 --keep-going",
            "meshchart render my-release ./chart --version ^1.2 --show-only templates/a.yaml",
            "meshchart render --set-file identityTrustAnchorsPEM=ca.crt --kube-version 1.32.0",
        ] {
            let args = words(line);
            let alone = parse_render_alone(&args).unwrap_or_else(|| panic!("{line}: not read"));
            let whole = read_whole(&args).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(
                format!("{:?}", Command::Render(alone)),
                format!("{:?}", whole.command),
                "{line}"
            );
        }
    }

    #[test]
    fn help_mistakes_and_other_commands_are_left_to_the_whole_definition() {
        for line in [
            "meshchart render --help",
            "meshchart render -h",
            "meshchart render --no-such-flag",
            "meshchart render --jobs 0 --fleet f --output-dir o",
            "meshchart render --fleet f",
            "meshchart render a b c d",
            "meshchart --version",
            "meshchart releases",
            "meshchart",
        ] {
            let args = words(line);
            assert!(parse_render_alone(&args).is_none(), "{line}");
        }
    }
}
