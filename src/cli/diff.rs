//! `meshchart diff`: two renders (or streams) compared resource by resource.

use super::write_stdout;
use camino::Utf8PathBuf;
use meshchart::diff;
use meshchart::flags::{ChartFlags, DiffChartFlags, RenderFlags};
use meshchart::render::Clock;
use meshchart::{ChartSource, Error};
use std::process::ExitCode;

/// `diff`'s flags, as the command line gave them.
pub struct DiffCommand {
    /// Streams to compare instead of renders (none, one against a render, or two).
    pub files: Vec<String>,
    /// The chart both sides render.
    pub chart: DiffChartFlags,
    /// Side A's own chart folder or archive.
    pub chart_a: Option<Utf8PathBuf>,
    /// Side B's own chart folder or archive.
    pub chart_b: Option<Utf8PathBuf>,
    /// Side A's own release line.
    pub linkerd_a: Option<String>,
    /// Side B's own release line.
    pub linkerd_b: Option<String>,
    /// Values files for side A only.
    pub values_a: Vec<String>,
    /// Values files for side B only.
    pub values_b: Vec<String>,
    /// `--set` for side A only.
    pub set_a: Vec<String>,
    /// `--set` for side B only.
    pub set_b: Vec<String>,
    /// Print Secret data instead of its digests.
    pub show_secrets: bool,
    /// Print one JSON document instead of unified diffs.
    pub json: bool,
    /// The render flags both sides share.
    pub flags: RenderFlags,
}

/// Compares the two sides: exit 0 when they agree, 1 when they differ, 2 on an error.
pub fn run(command: DiffCommand) -> Result<ExitCode, Error> {
    let DiffCommand {
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
        json,
        flags,
    } = command;
    // A side's own chart: its --chart-X folder, or its --linkerd-X line (the shared
    // --crds choosing that line's chart).
    let side_chart = |path: Option<Utf8PathBuf>, release: Option<String>| match (path, release) {
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
        Ok(report) => match write_stdout(&if json {
            report_json(&report)
        } else {
            report.to_text()
        }) {
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

/// The report as one JSON document: `{"changed": [{"kind", "namespace", "name", "occurrence",
/// "diff"}], "added": [...], "removed": [...], "unreadKeys": [{"key", "a", "b"}], "same"}`.
fn report_json(report: &diff::DiffReport) -> String {
    let key = |key: &diff::ResourceKey| {
        serde_json::json!({
            "kind": key.kind,
            "namespace": key.namespace,
            "name": key.name,
            "occurrence": key.occurrence,
        })
    };
    let changed: Vec<serde_json::Value> = report
        .changed
        .iter()
        .map(|(k, diff)| {
            let mut entry = key(k);
            entry["diff"] = serde_json::Value::from(diff.as_str());
            entry
        })
        .collect();
    let unread: Vec<serde_json::Value> = report
        .unread_keys
        .iter()
        .map(|(k, a, b)| serde_json::json!({"key": k, "a": a, "b": b}))
        .collect();
    super::json_text(&serde_json::json!({
        "changed": changed,
        "added": report.added.iter().map(key).collect::<Vec<_>>(),
        "removed": report.removed.iter().map(key).collect::<Vec<_>>(),
        "unreadKeys": unread,
        "same": report.is_empty(),
    }))
}
