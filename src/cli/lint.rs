//! `meshchart lint` and `meshchart schema`: a chart's checks, and its values.schema.json.

use super::{failed_if, print_notes, write_stdout};
use camino::Utf8PathBuf;
use meshchart::flags::{ChartFlags, RenderFlags};
use meshchart::lint;
use meshchart::{ChartSource, Error};
use std::process::ExitCode;

/// Lints the chart `chart` names with the render flags `flags`, printing Helm's lines or (`json`)
/// `{"chart", "findings": [{"severity", "location", "message"}], "failed"}`, without INFO findings
/// when `quiet` (`helm lint --quiet`); exit 1 on an error finding.
pub fn run(
    chart: &ChartFlags,
    meshed_by: Option<&str>,
    flags: &RenderFlags,
    quiet: bool,
    json: bool,
) -> Result<ExitCode, Error> {
    let source = chart.source();
    let mode = lint::LintMode {
        strict: flags.strict,
        quiet,
    };
    // A lint checks; it writes nothing, least of all private keys into --certs-dir.
    let request = meshchart::render::RenderRequest {
        certs_dir_read_only: true,
        ..flags.request()
    };
    if !json {
        // Printed as found: a report of a million findings is not kept whole.
        let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
        let failed = lint::lint_to(
            &source,
            &request,
            meshed_by,
            mode,
            &mut std::io::stdin().lock(),
            &mut stdout,
        )
        .and_then(|failed| std::io::Write::flush(&mut stdout).map(|()| failed))
        .map_err(Error::io("<stdout>"))?;
        return Ok(failed_if(failed));
    }
    let report = lint::lint_with(
        &source,
        &request,
        meshed_by,
        mode,
        &mut std::io::stdin().lock(),
    );
    let findings: Vec<serde_json::Value> = report
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "severity": match f.severity {
                    lint::Severity::Error => "error",
                    lint::Severity::Warning => "warning",
                    lint::Severity::Info => "info",
                },
                "location": f.location,
                "message": f.message,
            })
        })
        .collect();
    write_stdout(&super::json_text(&serde_json::json!({
        "chart": report.origin,
        "findings": findings,
        "failed": report.failed(),
    })))?;
    Ok(failed_if(report.failed()))
}

/// Prints (or, with `write`, writes into the chart folder) the chart's schema with every key of
/// its defaults declared; `linkerd`/`crds` name an embedded release line's chart, as render's
/// flags do.
pub fn schema(
    chart: Option<Utf8PathBuf>,
    linkerd: Option<String>,
    crds: bool,
    write: bool,
) -> Result<ExitCode, Error> {
    if write && chart.is_none() {
        return Err(Error::Usage(
            "schema --write needs a chart folder to write into: name it (CHART or \
             --chart DIR); the embedded charts cannot be written"
                .into(),
        ));
    }
    let source = match (&chart, linkerd, crds) {
        (None, release, crds) if release.is_some() || crds => {
            ChartSource::Embedded { release, crds }
        }
        _ => ChartSource::from_flag(chart.as_deref()),
    };
    let loaded = source.load()?;
    let write_to = chart.as_deref().filter(|_| write);
    let (text, notes) = lint::schema::schema_command(&loaded, write_to)?;
    print_notes(&notes);
    write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
