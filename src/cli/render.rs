//! `meshchart render`: one render to stdout or `--output-dir`, or a fleet of clusters.

use super::progress::Progress;
use super::{failed_if, print_notes, write_stdout};
use camino::Utf8PathBuf;
use meshchart::chart::{version_constraint, Chart};
use meshchart::flags::helm::HelmTemplateFlags;
use meshchart::flags::{ChartFlags, RenderChartFlags, RenderFlags};
use meshchart::fleet;
use meshchart::manifest::{Rendered, RenderedDocument};
use meshchart::render::{self, Clock};
use meshchart::Error;
use std::io::Write;
use std::process::ExitCode;

/// `helm template [NAME] [CHART]`'s words and Helm's flags turned into meshchart's: the chart
/// flags, and the render flags with the release's name; a Helm flag meshchart refuses is the
/// error, and the ignored ones are said on stderr.
pub fn helm_grammar(
    chart: RenderChartFlags,
    mut flags: RenderFlags,
    helm: &HelmTemplateFlags,
) -> Result<(ChartFlags, RenderFlags), Error> {
    if let Some(reason) = helm.refusal() {
        return Err(Error::Usage(reason));
    }
    let (chart, name) = chart.split(&flags).map_err(Error::Usage)?;
    if name.is_some() {
        flags.name = name;
    }
    print_notes(&helm.note().into_iter().collect::<Vec<_>>());
    Ok((chart, flags))
}

/// Where `--output-dir` writes: with Helm's `--release-name` switch, under the release's name
/// (`DIR/NAME/CHART/...`), as `helm template --release-name --output-dir DIR` does.
pub fn release_output_dir(
    output_dir: Option<Utf8PathBuf>,
    helm: &HelmTemplateFlags,
    flags: &mut RenderFlags,
) -> Option<Utf8PathBuf> {
    match (&helm.release_name, output_dir) {
        (Some(_), Some(dir)) => Some(dir.join(flags.release_name())),
        (_, dir) => dir,
    }
}

/// Refuses a chart whose version does not satisfy `--version`.
fn check_version(chart: &Chart, constraint: Option<&str>) -> Result<(), Error> {
    let Some(constraint) = constraint else {
        return Ok(());
    };
    let version = &chart.metadata.version;
    match version_constraint::satisfies(constraint, version) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::Usage(format!(
            "--version {constraint}: chart {} is version {version}, which does not satisfy it",
            chart.metadata.name
        ))),
        Err(reason) => Err(Error::Usage(format!("--version: {reason}"))),
    }
}

/// Files under `crds/` that Helm treats as CRDs (`.yaml`, `.yml`, `.json`), in path order.
fn crd_files(chart: &Chart) -> Vec<&meshchart::chart::ChartFile> {
    let mut files: Vec<_> = chart
        .other_files
        .iter()
        .filter(|f| {
            f.path.starts_with("crds/")
                && [".yaml", ".yml", ".json"]
                    .iter()
                    .any(|ext| f.path.ends_with(ext))
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Applies `helm template`'s document flags to a render: `--include-crds` puts the chart's
/// crds/ files first (each whole, unrendered, as Helm prints them; a note says so when they are
/// left out), `--skip-tests` drops test hooks and `--no-hooks` every hook.
fn apply_helm_flags(
    chart: &Chart,
    rendered: &mut Rendered,
    helm: &HelmTemplateFlags,
    show_only: &[String],
) -> Vec<String> {
    let mut notes = Vec::new();
    if helm.no_hooks {
        rendered.documents.retain(|d| d.hook.is_none());
    } else if helm.skip_tests {
        rendered.documents.retain(|d| {
            !d.hook
                .as_deref()
                .is_some_and(|events| events.split(',').any(|e| e.trim().starts_with("test")))
        });
    }
    let crds = crd_files(chart);
    if crds.is_empty() {
        return notes;
    }
    if !helm.include_crds {
        notes.push(format!(
            "note: the chart's crds/ folder ({} file{}) is not rendered: helm template leaves it \
             out too; --include-crds prints it first",
            crds.len(),
            if crds.len() == 1 { "" } else { "s" }
        ));
        return notes;
    }
    let shown = |path: &str| {
        show_only.is_empty()
            || show_only
                .iter()
                .any(|p| meshchart::manifest::glob_match(p, path))
    };
    let documents = crds.into_iter().filter(|f| shown(&f.path)).map(|f| {
        let field = |key: &str| {
            f.text
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_owned())
                .unwrap_or_default()
        };
        RenderedDocument {
            template: f.path.clone(),
            text: f.text.trim().to_owned(),
            kind: field("kind:"),
            name: field("  name:"),
            namespace: String::new(),
            hook: None,
        }
    });
    let mut all: Vec<RenderedDocument> = documents.collect();
    all.append(&mut rendered.documents);
    rendered.documents = all;
    notes
}

/// The first line on stderr of a render that made a trust root nothing keeps.
pub const NEW_TRUST_ROOT_WARNING: &str = "warning: this render made a new identity trust root, \
     and every render without --certs-dir makes another: proxies of different renders do not \
     trust each other, and a GitOps tool that renders at each sync would rotate the mesh's \
     root every time. Keep it with --certs-dir DIR (the README's GitOps recipe shows how)";

/// What `--quiet` keeps of a run's notes: warnings and errors (a fleet's are `CLUSTER: warning:
/// ...`), not notes.
fn kept(notes: &[String], quiet: bool) -> Vec<String> {
    let says = |note: &str, what: &str| {
        note.starts_with(what)
            || note
                .split_once(": ")
                .is_some_and(|(_, rest)| rest.starts_with(what))
    };
    notes
        .iter()
        .filter(|note| !quiet || says(note, "warning") || says(note, "error"))
        .cloned()
        .collect()
}

/// Renders the chart `chart` names once: to stdout, or one file per template under `output_dir`
/// (listed on stdout unless `quiet`, which also leaves out notes).
pub fn one(
    chart: &ChartFlags,
    output_dir: Option<Utf8PathBuf>,
    quiet: bool,
    flags: &RenderFlags,
    helm: &HelmTemplateFlags,
    chart_version: Option<&str>,
) -> Result<ExitCode, Error> {
    let request = flags.request();
    if let Some(dir) = &output_dir {
        render::refuse_output_overlap(dir, chart.chart.as_deref(), &request, None)?;
    }
    // This process renders one chart and exits: what the render built (templates, engine,
    // values) is left to the exit, not freed node by node.
    meshchart_helm::process::keep_until_exit();
    let chosen = render::choose_chart(
        &chart.source(),
        request.overrides(),
        &mut std::io::stdin().lock(),
    )?;
    let chosen_notes = kept(&chosen.notes, quiet);
    check_version(&chosen.chart, chart_version).inspect_err(|_| print_notes(&chosen_notes))?;
    let request = chosen.request(&request)?;
    let rendered = render::render(
        &chosen.chart,
        &request,
        &mut std::io::stdin().lock(),
        Clock::FromEnv,
    );
    // A new trust root nothing keeps leads stderr: the choice's notes wait until the render is
    // done, so that this line comes first.
    let mut outcome = rendered.inspect_err(|_| print_notes(&chosen_notes))?;
    let new_root = outcome
        .notes
        .iter()
        .any(|n| n.starts_with(meshchart::identity::NEW_TRUST_ROOT_NOTE));
    if new_root && request.certs_dir.is_none() {
        print_notes(&[NEW_TRUST_ROOT_WARNING.to_owned()]);
    }
    print_notes(&chosen_notes);
    print_notes(&kept(&outcome.notes, quiet));
    let helm_notes = apply_helm_flags(
        &chosen.chart,
        &mut outcome.rendered,
        helm,
        &request.show_only,
    );
    print_notes(&kept(&helm_notes, quiet));
    match output_dir {
        Some(dir) => {
            // A --show-only render leaves the other templates' files (as Helm does).
            let removal = match request.show_only.is_empty() {
                true => meshchart::output::Removal::Stale,
                false => meshchart::output::Removal::None,
            };
            let before = render::output_dir_contents(&dir, &outcome.rendered);
            render::write_output_dir(&dir, &outcome.rendered, removal)?;
            if !quiet {
                write_stdout(&render::output_dir_listing(
                    &dir,
                    &outcome.rendered,
                    &before,
                ))?;
            }
        }
        None => {
            // Through a buffer of its own (std's stdout flushes at every newline it holds),
            // small enough to come from the arena's chunks.
            let mut stdout = std::io::BufWriter::with_capacity(32 << 10, std::io::stdout().lock());
            outcome
                .rendered
                .write_stream(&mut stdout)
                .and_then(|()| stdout.flush())
                .map_err(Error::io("<stdout>"))?;
        }
    }
    // The process exits next: the chart, its values and the rendered documents go with it.
    std::mem::forget(outcome);
    std::mem::forget(chosen);
    Ok(ExitCode::SUCCESS)
}

/// Renders one control plane per cluster of `fleet_dir` into `out`: a progress bar on stderr
/// while it runs when stderr is a terminal, then the files on stdout and one line summing the
/// run up, last on stderr. `quiet` leaves out the bar, the notes and the listing.
#[allow(clippy::too_many_arguments)]
pub fn fleet(
    chart: &ChartFlags,
    fleet_dir: &camino::Utf8Path,
    out: &camino::Utf8Path,
    jobs: Option<u16>,
    keep_going: bool,
    quiet: bool,
    flags: &RenderFlags,
    chart_version: Option<&str>,
) -> Result<ExitCode, Error> {
    let request = flags.request();
    if chart_version.is_some() {
        check_version(&chart.source().load()?, chart_version)?;
    }
    render::refuse_output_overlap(out, chart.chart.as_deref(), &request, Some(fleet_dir))?;
    let options = fleet::FleetOptions {
        jobs: jobs.map(usize::from),
        keep_going,
    };
    let progress = Progress::on_stderr("clusters", quiet);
    let report = fleet::run_with_progress(
        &chart.source(),
        fleet_dir,
        out,
        &request,
        options,
        &mut std::io::stdin().lock(),
        Clock::FromEnv,
        &progress,
    )?;
    progress.clear();
    print_notes(&kept(&report.notes, quiet));
    if !quiet {
        write_stdout(&report.listing())?;
    }
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
