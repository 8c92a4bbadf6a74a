//! `meshchart render`: one render to stdout or `--output-dir`, or a fleet of clusters.

use super::{failed_if, print_notes, write_stdout};
use camino::Utf8PathBuf;
use meshchart::flags::{ChartFlags, RenderFlags};
use meshchart::fleet;
use meshchart::render::{self, Clock};
use meshchart::Error;
use std::io::Write;
use std::process::ExitCode;

/// Renders the chart `chart` names once: to stdout, or one file per template under `output_dir`.
pub fn one(
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

/// Renders one control plane per cluster of `fleet_dir` into `out`.
pub fn fleet(
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
