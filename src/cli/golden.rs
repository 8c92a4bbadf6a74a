//! `meshchart golden`: a chart's golden cases checked (or rewritten).

use super::{failed_if, write_stdout};
use camino::Utf8PathBuf;
use meshchart::flags::ChartFlags;
use meshchart::golden;
use meshchart::Error;
use std::process::ExitCode;

/// Runs the cases under `cases` (by default the chart's own) against the chart `chart` names,
/// printing a summary or (`json`) `{"chart", "cases", "results": [{"name", "outcome",
/// "detail"}], "failed", "update"}`.
pub fn run(
    chart: &ChartFlags,
    cases: Option<Utf8PathBuf>,
    update: bool,
    accept_errors: bool,
    only: Vec<String>,
    json: bool,
) -> Result<ExitCode, Error> {
    let loaded = chart.source().load()?;
    let release = loaded.metadata.app_version.clone().unwrap_or_default();
    let cases = match cases {
        Some(cases) => cases,
        None => {
            let default = golden::default_cases_dir(chart.chart.as_deref(), &release);
            // An embedded line's cases are in meshchart's source tree, which an installed
            // binary run elsewhere does not have: say what to name instead of a missing path.
            if chart.chart.is_none() && !default.is_dir() {
                return Err(Error::Usage(format!(
                    "no golden cases to run: the embedded Linkerd line {release}'s cases are \
                     kept with meshchart's source, not in the binary; run it there, or name a \
                     chart folder holding golden/ (`meshchart golden CHART`) or a folder of \
                     cases (`--cases DIR`)"
                )));
            }
            default
        }
    };
    let options = golden::GoldenOptions {
        update,
        accept_errors,
        only,
    };
    let reports = golden::run(
        &loaded,
        &cases,
        &options,
        &meshchart::flags::CommandLineCaseArgs,
    )?;
    let named = match (&chart.chart, &chart.linkerd) {
        (Some(path), _) => format!("{path} "),
        (None, Some(line)) => format!("--linkerd {line} "),
        (None, None) => String::new(),
    };
    let update_command = format!("meshchart golden {named}--cases {cases} --update");
    if json {
        let results: Vec<serde_json::Value> = reports
            .iter()
            .map(|report| {
                let (outcome, detail) = match &report.outcome {
                    golden::CaseOutcome::Passed => ("passed", None),
                    golden::CaseOutcome::Updated => ("updated", None),
                    golden::CaseOutcome::Retyped(now) => ("retyped", Some(now)),
                    golden::CaseOutcome::Failed(diff) => ("failed", Some(diff)),
                    golden::CaseOutcome::Refused(why) => ("refused", Some(why)),
                };
                serde_json::json!({"name": report.name, "outcome": outcome, "detail": detail})
            })
            .collect();
        write_stdout(&super::json_text(&serde_json::json!({
            "chart": chart.source().to_string(),
            "cases": cases.as_str(),
            "results": results,
            "failed": golden::failed_count(&reports),
            "update": update_command,
        })))?;
        return Ok(failed_if(golden::failed_count(&reports) > 0));
    }
    write_stdout(&format!(
        "golden cases {cases} of chart {}\n{}",
        chart.source(),
        golden::summary(&reports, &update_command)
    ))?;
    Ok(failed_if(golden::failed_count(&reports) > 0))
}
