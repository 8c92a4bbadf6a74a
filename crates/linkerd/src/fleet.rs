//! `render --fleet`: one control plane per cluster, many clusters in one run.
//!
//! A fleet folder holds one cluster per `NAME.yaml` (its values) or per `NAME/` folder (its
//! `values.yaml` and, optionally, a `certs/` folder as `render --certs-dir` keeps it). Each
//! cluster renders exactly as `meshchart render` would with the shared flags plus
//! `-f <its values> [--certs-dir <its certs>]`: its values file comes after the shared `-f`
//! files, so the shared `--set` family still applies over it (Helm's precedence by flag type).
//! The chart is compiled once; clusters render in parallel on rayon's pool. Output goes through
//! the output door ([`crate::output`]): the whole set of `OUT/NAME.yaml` files is staged and
//! switched into place in one step under OUT's lock, only when every cluster rendered (or, with
//! `--keep-going`, the ones that did; a failed cluster keeps its last output). Outputs of
//! clusters that left the fleet are removed, as the record of the last run names them; files
//! meshchart did not write are never touched. An output whose file already holds its bytes is
//! left as it is (a re-render of an unchanged fleet, the common case in a GitOps loop, touches
//! nothing: no new file, no new mtime).
//!
//! What counts as a cluster: a folder, or a file whose name ends in `.yaml` or `.yml` in any
//! case (`prod.YAML` is cluster `prod`). Hidden entries (a leading dot) are passed by, and
//! named in a warning when they would otherwise be clusters (`.prod.yaml`, `...yaml`, a
//! `.name/` folder with `values.yaml`); anything else is named in a warning. A special file (a FIFO, a device, a socket) that would be read as a cluster is
//! refused by name before any work: reading it could block forever.

mod discover;
pub use discover::{discover, discover_noting};

use crate::chart::Chart;
use crate::chart_source::ChartSource;
use crate::engine::Engine;
use crate::error::Error;
use crate::manifest::DocumentReader;
use crate::output::{FileOutcome, OutputSet, Removal};
use crate::releases::{choose_line, CONTROL_PLANE_CHART, CRDS_CHART};
use crate::render::{read_inputs, render_inputs, Clock, RenderInputs, RenderRequest};
use crate::values::{Assembler, KeptFiles};
use camino::{Utf8Path, Utf8PathBuf};
use rayon::prelude::*;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};

/// The values file inside a cluster folder.
pub const CLUSTER_VALUES: &str = "values.yaml";
/// The certificate folder inside a cluster folder (the layout `render --certs-dir` keeps).
pub const CLUSTER_CERTS: &str = "certs";

/// One cluster of a fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Its name: the file's stem or the folder's name; the output is `NAME.yaml`.
    pub name: String,
    /// Its values file.
    pub values: Utf8PathBuf,
    /// Its certificate folder, when it has one.
    pub certs_dir: Option<Utf8PathBuf>,
}

/// How a fleet run writes its output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FleetOptions {
    /// Threads to render on (`None`: one per core).
    pub jobs: Option<usize>,
    /// Write the clusters that rendered even when others failed.
    pub keep_going: bool,
}

/// Told how a fleet run goes, from any of its render threads: how many clusters it found, then
/// each cluster as its render is done. The command line draws a progress bar with it.
pub trait FleetProgress: Sync {
    /// The fleet has `total` clusters.
    fn clusters(&self, total: usize);
    /// One more cluster is rendered (or failed).
    fn cluster_done(&self);
}

/// No one watching.
impl FleetProgress for () {
    fn clusters(&self, _: usize) {}
    fn cluster_done(&self) {}
}

/// A cluster that could not be rendered, and why.
#[derive(Debug)]
pub struct ClusterFailure {
    /// The cluster's values file (what the user should look at).
    pub file: Utf8PathBuf,
    /// What went wrong.
    pub error: Error,
}

/// What a fleet run did.
#[derive(Debug, Default)]
pub struct FleetReport {
    /// The output files, in cluster order, each written or left as it was.
    pub outputs: Vec<(Utf8PathBuf, Output)>,
    /// Notes for stderr, each prefixed with its cluster's name.
    pub notes: Vec<String>,
    /// The clusters that failed, in cluster order.
    pub failures: Vec<ClusterFailure>,
    /// How many clusters the fleet has.
    pub clusters: usize,
    /// Outputs of clusters that left the fleet, removed.
    pub removed: Vec<Utf8PathBuf>,
    /// Why the set could not be put in place although clusters rendered (a full disk): then
    /// nothing was written, and the run fails naming it.
    pub not_put_in_place: Option<crate::output::OutputError>,
}

impl FleetReport {
    /// The listing printed on stdout, in cluster order: `wrote PATH` for each file written,
    /// `unchanged PATH` for each left as it was; then `removed PATH` for each output of a
    /// cluster that left the fleet.
    pub fn listing(&self) -> String {
        let mut text: String = self
            .outputs
            .iter()
            .map(|(path, output)| match output {
                Output::Changed => format!("wrote {path}\n"),
                Output::Unchanged => format!("unchanged {path}\n"),
            })
            .collect();
        for path in &self.removed {
            text.push_str(&format!("removed {path}\n"));
        }
        text
    }

    /// The run in one line, the last one a fleet prints on stderr, whatever happened: how many
    /// clusters rendered, how many outputs were written, left unchanged and removed, and how
    /// many clusters failed (`5 clusters: 4 rendered, 1 written, 3 unchanged, 0 removed, 1
    /// failed`). A failed run without `--keep-going` writes nothing, and says so.
    pub fn summary(&self) -> String {
        let written = self
            .outputs
            .iter()
            .filter(|(_, output)| *output == Output::Changed)
            .count();
        format!(
            "{} clusters: {} rendered, {written} written, {} unchanged, {} removed, {} failed",
            self.clusters,
            self.clusters - self.failures.len(),
            self.outputs.len() - written,
            self.removed.len(),
            self.failures.len()
        )
    }

    /// The failures as stderr lines (`FILE: error`), and what became of the output.
    pub fn failure_text(&self, keep_going: bool) -> String {
        let mut text = format!(
            "{} of {} clusters failed{}:\n",
            self.failures.len(),
            self.clusters,
            if keep_going && self.not_put_in_place.is_none() {
                ", the others were written"
            } else {
                "; nothing was written"
            }
        );
        for failure in &self.failures {
            // A message of several lines (a schema's violations) stays under its file.
            let error = failure.error.to_string().replace('\n', "\n    ");
            text.push_str(&format!("  {}: {error}\n", failure.file));
        }
        text
    }

    /// Whether the run failed: a cluster failed, or the set could not be put in place.
    pub fn failed(&self) -> bool {
        !self.failures.is_empty() || self.not_put_in_place.is_some()
    }
}

fn fleet_error(dir: &Utf8Path, message: impl std::fmt::Display) -> Error {
    Error::Usage(format!("--fleet {dir}: {message}"))
}

/// The request a single `render` of `cluster` would get: the shared ones, its values file last
/// among the `-f` files, its certificate folder instead of the shared one. Unlike a single
/// render, it refuses to generate identity material without a folder to keep it in: a fleet is
/// re-rendered again and again (a GitOps loop), and material made afresh each time would give
/// every cluster a new trust root at every run.
pub fn cluster_request(shared: &RenderRequest, cluster: &Cluster) -> RenderRequest {
    let mut request = shared.clone();
    request.values.files.push(cluster.values.to_string());
    request.require_kept_material = true;
    if let Some(certs) = &cluster.certs_dir {
        request.certs_dir = Some(certs.clone());
    }
    request
}

/// What a fleet renders: the chart, the flags every cluster shares, the clusters.
#[derive(Clone, Copy)]
pub struct Fleet<'a> {
    /// The chart, compiled once per run.
    pub chart: &'a Chart,
    /// The `-f`/`--set` flags that apply under each cluster's own values.
    pub shared: &'a RenderRequest,
    /// The clusters, in name order.
    pub clusters: &'a [Cluster],
    /// Told of each cluster as it is done.
    pub progress: &'a dyn FleetProgress,
}

/// What became of a cluster's output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// New bytes: staged, then moved into place (`wrote PATH`).
    Changed,
    /// The file already held these bytes and is left as it is (`unchanged PATH`).
    Unchanged,
}

/// One cluster's render: its output (staged when changed) and the notes to print.
pub struct ClusterOutput {
    /// Whether its file changes.
    pub output: Output,
    /// What a single `render` would print on stderr.
    pub notes: Vec<String>,
}

/// Compiles the chart once and renders every cluster with it, in parallel on `pool`'s threads;
/// the results come back in cluster order whatever the scheduling.
///
/// The first cluster renders on the thread that compiled the chart, and meanwhile another thread
/// reads the next clusters' values, in cluster order. Compiling is serial (about 1.5 ms here)
/// and the first render fills the remembered outputs (3 to 6 ms, against under 1 ms for the
/// renders after it): threads that started rendering at once all paid for that first render,
/// each its own. A chart that does not compile fails the run, as a single render would.
/// Standard input (for `-f -` or `--set-file key=-`) is read once and given to every cluster.
/// Clusters that share the flags' `--certs-dir` would race to fill it, so the first of them
/// reads its values alone (filling the folder) before the others, which then only read it.
/// Each worker stages its cluster's `NAME.yaml` in `set` as soon as it is rendered, so the
/// files are written on all cores while other clusters render; unless `OUT/NAME.yaml` already
/// holds those bytes.
pub fn render_clusters(
    fleet: &Fleet<'_>,
    stdin: &mut dyn Read,
    clock: Clock,
    pool: &rayon::ThreadPool,
    set: &OutputSet,
) -> Result<Vec<Result<ClusterOutput, Error>>, Error> {
    let Fleet {
        chart,
        shared,
        clusters,
        progress,
    } = *fleet;
    let mut input = Vec::new();
    if shared.values.reads_stdin() {
        stdin
            .read_to_end(&mut input)
            .map_err(Error::io("<stdin>"))?;
    }
    // One instant for the whole fleet (schedules agree); an unreadable clock is left for each
    // cluster to report, as its single render would.
    let clock = clock.now().map_or(clock, Clock::Fixed);
    let kept = shared_files(shared, &input);
    let read_one = |cluster: &Cluster| {
        read_inputs(
            chart,
            &cluster_request(shared, cluster),
            &mut input.as_slice(),
            clock,
            kept.clone(),
        )
    };
    // Remembers the documents it checked: most of a cluster's are another's, byte for byte.
    let reader = DocumentReader::new().remembering_checked_documents();
    let render_one =
        |engine: &Engine<'_>, cluster: &Cluster, inputs: Option<Result<RenderInputs, Error>>| {
            let done: Result<ClusterOutput, Error> = (|| {
                let inputs = inputs.unwrap_or_else(|| read_one(cluster))?;
                let outcome = render_inputs(engine, &reader, chart, inputs)?;
                let file = format!("{}.yaml", cluster.name);
                let stream = outcome.rendered.to_stream();
                let output = match set.write(&file, stream.as_bytes(), false)? {
                    FileOutcome::Unchanged => Output::Unchanged,
                    FileOutcome::Written => Output::Changed,
                };
                Ok(ClusterOutput {
                    output,
                    notes: outcome.notes,
                })
            })();
            progress.cluster_done();
            done
        };
    let mut read_ahead: Vec<Option<Result<RenderInputs, Error>>> =
        clusters.iter().map(|_| None).collect();
    // The first cluster sharing the flags' certificate folder fills it before any other reads it.
    let first_sharing = clusters
        .iter()
        .position(|c| c.certs_dir.is_none() && shared.certs_dir.is_some());
    if let Some(i) = first_sharing {
        read_ahead[i] = Some(read_one(&clusters[i]));
    }
    let (Some(first_cluster), Some((first_inputs, rest_inputs))) =
        (clusters.first(), read_ahead.split_first_mut())
    else {
        return Ok(Vec::new());
    };
    let warm = AtomicBool::new(false);
    let ((engine, first), ()) = pool.install(|| {
        rayon::join(
            || {
                let engine = Engine::new(chart).map(Engine::remembering_template_outputs);
                let first = engine
                    .as_ref()
                    .ok()
                    .map(|engine| render_one(engine, first_cluster, first_inputs.take()));
                warm.store(true, Ordering::Release);
                (engine, first)
            },
            || {
                for (slot, cluster) in rest_inputs.iter_mut().zip(&clusters[1..]) {
                    if warm.load(Ordering::Acquire) {
                        break;
                    }
                    if slot.is_none() {
                        *slot = Some(read_one(cluster));
                    }
                }
            },
        )
    });
    let engine = engine?;
    let rest: Vec<Result<ClusterOutput, Error>> = pool.install(|| {
        // One cluster per job, so an idle thread can always take the next one. Rayon's default
        // stops splitting after a few halvings; the last unsplit run of clusters was then
        // rendered by one thread while the other sat idle (a fifth of a 200-cluster run, perf).
        clusters[1..]
            .par_iter()
            .zip(rest_inputs.par_iter_mut())
            .with_max_len(1)
            .map(|(cluster, inputs)| render_one(&engine, cluster, inputs.take()))
            .collect()
    });
    Ok(first.into_iter().chain(rest).collect())
}

/// The files the shared flags read (their `-f` files and `--set-file` paths), read once for all
/// clusters. A file that cannot be read is left out: each cluster then reports it, as its single
/// render would.
fn shared_files(shared: &RenderRequest, stdin: &[u8]) -> KeptFiles {
    let mut stdin = stdin;
    let mut assembler = Assembler::for_sources(shared.overrides(), &mut stdin, Default::default());
    for source in shared.overrides().sources() {
        // Errors are each cluster's to report.
        let _ = assembler.apply(&source);
    }
    assembler.into_kept()
}

/// Puts the staged clusters in place in one step: all or nothing unless `keep_going` (then a
/// failed cluster keeps its last output). Outputs the record names that no cluster wrote (the
/// cluster left the fleet) are removed.
pub fn write_clusters(
    set: OutputSet,
    clusters: &[Cluster],
    results: Vec<Result<ClusterOutput, Error>>,
    keep_going: bool,
) -> Result<FleetReport, Error> {
    let mut report = FleetReport {
        clusters: clusters.len(),
        ..FleetReport::default()
    };
    let mut good = Vec::new();
    for (cluster, result) in clusters.iter().zip(results) {
        match result {
            Ok(rendered) => {
                report.notes.extend(
                    rendered
                        .notes
                        .iter()
                        .map(|note| format!("{}: {note}", cluster.name)),
                );
                good.push((cluster, rendered.output));
            }
            Err(error) => {
                set.keep(&format!("{}.yaml", cluster.name));
                report.failures.push(ClusterFailure {
                    file: cluster.values.clone(),
                    error,
                })
            }
        }
    }
    if !report.failures.is_empty() && !keep_going {
        // Dropped uncommitted: nothing changes.
        return Ok(report);
    }
    let out = set.folder().to_owned();
    let committed = match set.commit(Removal::Stale) {
        Ok(committed) => committed,
        // A full disk: the clusters' failures (their own writes may have hit it first) are
        // reported with it, and nothing is written.
        Err(error) => {
            report.not_put_in_place = Some(error);
            return Ok(report);
        }
    };
    report.outputs = good
        .into_iter()
        .map(|(cluster, output)| (out.join(format!("{}.yaml", cluster.name)), output))
        .collect();
    report.removed = committed.removed;
    Ok(report)
}

/// A chart a fleet renders (or why a cluster's chart could not be had), with the clusters it
/// renders, as indexes into the fleet's clusters.
type ChartGroup = (Result<Chart, Error>, Vec<usize>);

/// Each chart a fleet renders, with the clusters (indexes into `clusters`) it renders: a
/// folder or archive renders them all; an embedded line renders the clusters whose own values
/// (the shared flags', then the cluster's) choose it, as a single render of that cluster
/// would, so one fleet can hold clusters on several releases (an upgrade wave). A cluster
/// whose values cannot be read or name no embedded release gets the error in place of a
/// chart, for its own failure; charts come in the order of their first cluster.
fn charts_of(
    source: &ChartSource,
    shared: &RenderRequest,
    clusters: &[Cluster],
    input: &[u8],
    warnings: &mut Vec<String>,
) -> Result<Vec<ChartGroup>, Error> {
    if !matches!(source, ChartSource::Embedded { .. }) {
        return Ok(vec![(Ok(source.load()?), (0..clusters.len()).collect())]);
    }
    let ChartSource::Embedded { release, crds } = source else {
        unreachable!("matched above");
    };
    let kept = shared_files(shared, input);
    // The line the shared values alone choose: a cluster whose values file does not mention
    // linkerdVersion renders it, without its values being read twice.
    let shared_line =
        crate::values::user_values_with(shared.overrides(), &mut &input[..], kept.clone())
            .ok()
            .and_then(|user| choose_line(release.as_deref(), &user).ok());
    // Each cluster's line, from its values; each line's chart is loaded once.
    let mut lines: Vec<(Result<String, String>, Vec<usize>)> = Vec::new();
    for (index, cluster) in clusters.iter().enumerate() {
        let mentions_version = crate::input::read_path(&cluster.values)
            .map_or(true, |file| file.text.contains("linkerdVersion"));
        if let (Some(choice), false) = (&shared_line, mentions_version) {
            let line = Ok(choice.release.clone());
            match lines.iter_mut().find(|(l, _)| *l == line) {
                Some((_, members)) => members.push(index),
                None => lines.push((line, vec![index])),
            }
            continue;
        }
        let request = cluster_request(shared, cluster);
        let line = crate::values::user_values_with(&request.values, &mut &input[..], kept.clone())
            .map_err(Error::from)
            .and_then(|user| Ok(choose_line(release.as_deref(), &user)?))
            .map(|choice| {
                if let Some(warning) = choice.warning {
                    warnings.push(format!("{}: {warning}", cluster.name));
                }
                choice.release
            })
            .map_err(|e| e.to_string());
        match lines.iter_mut().find(|(l, _)| *l == line) {
            Some((_, members)) => members.push(index),
            None => lines.push((line, vec![index])),
        }
    }
    let name = if *crds {
        CRDS_CHART
    } else {
        CONTROL_PLANE_CHART
    };
    Ok(lines
        .into_iter()
        .map(|(line, members)| {
            let chart = line
                .map_err(Error::Usage)
                .and_then(|line| Ok(crate::releases::embedded_line(&line, name)?));
            (chart, members)
        })
        .collect())
}

/// `render --fleet DIR --output-dir OUT`: discovers the clusters, compiles the chart once,
/// renders them all and writes what may be written. The report lists what was written and what
/// failed; the caller exits 1 when anything failed. A file meshchart did not write where a
/// cluster's output goes (and holding other bytes) is an error naming it; nothing is written.
pub fn run(
    source: &ChartSource,
    dir: &Utf8Path,
    out: &Utf8Path,
    shared: &RenderRequest,
    options: FleetOptions,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<FleetReport, Error> {
    run_with_progress(source, dir, out, shared, options, stdin, clock, &())
}

/// [`run`], telling `progress` how it goes.
#[allow(clippy::too_many_arguments)]
pub fn run_with_progress(
    source: &ChartSource,
    dir: &Utf8Path,
    out: &Utf8Path,
    shared: &RenderRequest,
    options: FleetOptions,
    stdin: &mut dyn Read,
    clock: Clock,
    progress: &dyn FleetProgress,
) -> Result<FleetReport, Error> {
    let mut warnings = Vec::new();
    let clusters = discover_noting(dir, &mut warnings)?;
    progress.clusters(clusters.len());
    let pool =
        crate::parallel::pool(options.jobs).map_err(|e| Error::Usage(format!("--jobs: {e}")))?;
    // Standard input is read once, for every line's clusters.
    let mut input = Vec::new();
    if shared.values.reads_stdin() {
        stdin
            .read_to_end(&mut input)
            .map_err(Error::io("<stdin>"))?;
    }
    // A file meshchart did not write where a cluster's output goes is refused at the commit,
    // once its bytes are known: one that already holds them is adopted (an output of a version
    // without the record), any other named in the error.
    let set = OutputSet::begin(out, None)?;
    let mut results: Vec<Option<Result<ClusterOutput, Error>>> =
        clusters.iter().map(|_| None).collect();
    for (chart, members) in charts_of(source, shared, &clusters, &input, &mut warnings)? {
        let chart = match chart {
            Ok(chart) => chart,
            Err(e) => {
                // Each cluster that names a release meshchart cannot render fails alone.
                let message = e.to_string();
                for index in members {
                    results[index] = Some(Err(Error::Usage(message.clone())));
                    progress.cluster_done();
                }
                continue;
            }
        };
        let mut with_ha = shared.clone();
        if shared.ha {
            crate::render::with_ha_overlay(&chart, &mut with_ha.values)?;
        }
        let group: Vec<Cluster> = members.iter().map(|&i| clusters[i].clone()).collect();
        let fleet = Fleet {
            chart: &chart,
            shared: &with_ha,
            clusters: &group,
            progress,
        };
        let rendered = render_clusters(&fleet, &mut input.as_slice(), clock, &pool, &set)?;
        for (index, result) in members.into_iter().zip(rendered) {
            results[index] = Some(result);
        }
    }
    let results = results
        .into_iter()
        .map(|result| result.unwrap_or_else(|| Err(Error::Usage("not rendered".into()))))
        .collect();
    let mut report = write_clusters(set, &clusters, results, options.keep_going)?;
    warnings.append(&mut report.notes);
    report.notes = warnings;
    Ok(report)
}
