//! `meshchart inject` and `meshchart uninject`: the proxy added to workloads, or taken out.

use super::progress::{Progress, Ticking};
use super::{finish, print_notes};
use meshchart::flags::ReportKind;
use meshchart::flags::{InjectArgs, UninjectArgs};
use meshchart::inject::command::{
    check_stdin_readers, config_release as inject_config_release, held_back, run_inject_reporting,
    run_uninject_reporting, Run,
};
use meshchart::inject::SpooledReport;
use meshchart::render;
use meshchart::{ChartSource, Error};
use std::io::Read;
use std::process::ExitCode;

/// Injects the workloads `args` names with the proxy partials of the chosen release line.
pub fn inject(args: &InjectArgs) -> Result<ExitCode, Error> {
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
    // `--chart` names the chart outright (upstream's, of a release we may not embed).
    let release = match (&args.linkerd, &request.config) {
        _ if args.chart.is_some() => None,
        (Some(line), _) => Some(line.clone()),
        (None, Some(config)) => {
            let release = inject_config_release(config, &mut kept_stdin.as_slice())?;
            if let Some(release) = release.as_deref() {
                let row = meshchart::releases::row(release);
                if let Some(row) =
                    row.filter(|row| meshchart::releases::template_set(row).is_none())
                {
                    return Err(Error::Usage(format!(
                        "--config {config}: its control plane runs Linkerd {release}, a release \
                         of era {}, whose templates this meshchart does not embed yet (it \
                         renders {}); name the release to inject with --linkerd",
                        row.era,
                        meshchart::releases::served_summary()
                    )));
                }
                if row.is_none() {
                    return Err(Error::Usage(format!(
                        "--config {config}: its control plane runs Linkerd {release}, which \
                         meshchart does not embed (it renders {}); name the release to inject \
                         with --linkerd",
                        meshchart::releases::served_summary()
                    )));
                }
            }
            release
        }
        (None, None) => None,
    };
    let source = match &args.chart {
        Some(chart) => ChartSource::from_flag(Some(chart)),
        None => ChartSource::Embedded {
            release,
            crds: false,
        },
    };
    let stdin_used_by_config = request.config.as_deref() == Some("-");
    let mut live_stdin = std::io::stdin().lock();
    let stdin: &mut dyn Read = if stdin_used_by_config {
        &mut kept_stdin.as_slice()
    } else {
        &mut live_stdin
    };
    let chosen = render::choose_chart(&source, &request.overrides, stdin)?;
    // A JSON report carries the notes inside it; text ones are said now.
    let early = if args.report == ReportKind::Json {
        chosen.notes.clone()
    } else {
        print_notes(&chosen.notes);
        Vec::new()
    };
    request.overrides = chosen.overrides;
    let mut report = SpooledReport::for_inject(args.report.into(), request.quiet)?;
    // Nothing reaches stdout before the whole input went through: on a terminal, a count of
    // the resources done says the run is moving.
    let progress = Progress::on_stderr("resources", request.quiet);
    let mut ticking = Ticking {
        report: &mut report,
        progress: &progress,
    };
    let run = held_back(&mut std::io::stdout().lock(), |out| {
        let notes = run_inject_reporting(&chosen.chart, &request, stdin, out, &mut ticking)?;
        Ok(Run {
            notes,
            ..Run::default()
        })
    })?;
    progress.clear();
    Ok(finish(early, run, report))
}

/// Takes out of the workloads `args` names exactly what inject added.
pub fn uninject(args: &UninjectArgs) -> Result<ExitCode, Error> {
    let mut report = SpooledReport::new(args.report.into())?.without_entries(args.quiet);
    let progress = Progress::on_stderr("resources", args.quiet);
    let mut ticking = Ticking {
        report: &mut report,
        progress: &progress,
    };
    let run = held_back(&mut std::io::stdout().lock(), |out| {
        run_uninject_reporting(
            &args.inputs,
            &mut std::io::stdin().lock(),
            out,
            &mut ticking,
        )?;
        Ok(Run::default())
    })?;
    progress.clear();
    Ok(finish(Vec::new(), run, report))
}
