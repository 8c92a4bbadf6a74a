//! `meshchart diff`: two renders (or streams) compared resource by resource.

use super::write_stdout;
use camino::Utf8PathBuf;
use meshchart::diff;
use meshchart::flags::{ChartFlags, DiffChartFlags, FormatFlag, RenderFlags};
use meshchart::render::Clock;
use meshchart::{ChartSource, Error};
use std::process::ExitCode;

/// `diff`'s flags.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// Two rendered streams to compare (`-` is stdin); without them, two renders of a chart.
    #[arg(value_name = "FILE", num_args = 0..=2)]
    pub files: Vec<String>,
    /// The chart both sides render (default: an embedded release line, as render chooses).
    #[command(flatten)]
    pub chart: DiffChartFlags,
    /// The chart side A renders (default: --chart or --linkerd).
    #[arg(long, value_name = "DIR|TGZ", conflicts_with = "linkerd_a")]
    pub chart_a: Option<Utf8PathBuf>,
    /// The chart side B renders (default: --chart or --linkerd).
    #[arg(long, value_name = "DIR|TGZ", conflicts_with = "linkerd_b")]
    pub chart_b: Option<Utf8PathBuf>,
    /// The embedded release line side A renders (an upgrade's from).
    #[arg(long, value_name = "RELEASE")]
    pub linkerd_a: Option<String>,
    /// The embedded release line side B renders (an upgrade's to).
    #[arg(long, value_name = "RELEASE")]
    pub linkerd_b: Option<String>,
    /// A values file for side A only (repeatable; after the shared -f files).
    #[arg(long = "values-a", value_name = "FILE")]
    pub values_a: Vec<String>,
    /// A values file for side B only.
    #[arg(long = "values-b", value_name = "FILE")]
    pub values_b: Vec<String>,
    /// A --set for side A only (repeatable; after the shared --set flags).
    #[arg(long = "set-a", value_name = "KEY=VALUE")]
    pub set_a: Vec<String>,
    /// A --set for side B only.
    #[arg(long = "set-b", value_name = "KEY=VALUE")]
    pub set_b: Vec<String>,
    /// Show Secret data and private keys as written (masked by default: a review diff
    /// shows that a secret changed, by its digest, not what it is).
    #[arg(long)]
    pub show_secrets: bool,
    #[command(flatten)]
    pub format: FormatFlag,
    #[command(flatten)]
    pub flags: Box<RenderFlags>,
}

/// Compares the two sides: exit 0 when they agree, 1 when they differ, 2 on an error.
pub fn run(args: DiffArgs) -> Result<ExitCode, Error> {
    let DiffArgs {
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
        format,
        flags,
    } = args;
    let json = format.json();
    let flags = *flags;
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
