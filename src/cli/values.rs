//! `meshchart values`: the effective values, and with `--explain` where each came from.

use super::{print_notes, write_stdout};
use meshchart::flags::{ChartFlags, ValueFlags};
use meshchart::render;
use meshchart::Error;
use std::process::ExitCode;

/// Prints the values the chart `chart` names would render with: `namespace` and `ha` as
/// render's `-n` and `--ha` give them, under the user's own values.
pub fn run(
    chart: &ChartFlags,
    explain: bool,
    namespace: Option<&str>,
    ha: bool,
    flags: &ValueFlags,
) -> Result<ExitCode, Error> {
    let overrides = flags.overrides();
    let chosen = render::choose_chart(&chart.source(), &overrides, &mut std::io::stdin().lock())?;
    print_notes(&chosen.notes);
    let mut overrides = chosen.overrides.clone();
    if ha {
        render::with_ha_overlay(&chosen.chart, &mut overrides)?;
    }
    // Render gives -n to a chart's top-level `namespace` value only when the defaults have one,
    // beneath the user's values: an in-memory values file first in line does the same.
    let declared = matches!(
        chosen.chart.default_values_read()?,
        meshchart::values::Value::Map(map) if map.contains_key("namespace")
    );
    if let Some(namespace) = namespace.filter(|_| declared) {
        let name = format!("--namespace {namespace}");
        let text = meshchart::yaml::to_yaml(&meshchart::values::Value::Map(
            [(
                "namespace".to_owned(),
                meshchart::values::Value::String(namespace.to_owned()),
            )]
            .into_iter()
            .collect(),
        ));
        overrides.already_read.insert(name.clone(), text);
        overrides.files.insert(0, name);
    }
    let (text, warnings) = render::show_values(
        &chosen.chart,
        &overrides,
        explain,
        &mut std::io::stdin().lock(),
    )?;
    print_notes(&warnings);
    write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
