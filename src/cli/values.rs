//! `meshchart values`: the effective values, and with `--explain` where each came from.

use super::{print_notes, write_stdout};
use meshchart::flags::{ChartFlags, ValueFlags};
use meshchart::render;
use meshchart::Error;
use std::process::ExitCode;

/// Prints the values the chart `chart` names would render with.
pub fn run(chart: &ChartFlags, explain: bool, flags: &ValueFlags) -> Result<ExitCode, Error> {
    let overrides = flags.overrides();
    let chosen = render::choose_chart(&chart.source(), &overrides, &mut std::io::stdin().lock())?;
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
