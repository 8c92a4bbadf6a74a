//! `--output-dir`: a render written as one file per template through the output door, its
//! listing, and the folders it may not overlap.

use super::*;

/// Writes one file per template under `dir/<chart>/`, as Helm's `--output-dir` does, through
/// the output door ([`crate::output`]): the chart's folder is switched whole, under `dir`'s
/// lock. Files an earlier run wrote there that this render no longer makes are removed, unless
/// `removal` is [`Removal::None`] (a `--show-only` render leaves the other templates' files);
/// files meshchart did not write are never touched, and one where a template's file goes is an
/// error naming it. Returns every file of the render.
pub fn write_output_dir(
    dir: &Utf8Path,
    rendered: &Rendered,
    removal: Removal,
) -> Result<Vec<Utf8PathBuf>, Error> {
    write_output_dir_as(dir, rendered, removal, |path, text| {
        std::fs::write(path, text)
    })
}

/// What each file of `rendered` holds under `dir` now (`None`: absent or unreadable), in
/// [`Rendered::files`]' order: read before a write, so that [`output_dir_listing`] can tell the
/// files a render changed from those it left as they were.
pub fn output_dir_contents(dir: &Utf8Path, rendered: &Rendered) -> Vec<Option<String>> {
    rendered
        .files()
        .iter()
        .map(|(relative, _)| std::fs::read_to_string(dir.join(relative)).ok())
        .collect()
}

/// What `render --output-dir` prints: one line per file, `wrote DIR/CHART/TEMPLATE`, or
/// `unchanged DIR/CHART/TEMPLATE` when `before` (see [`output_dir_contents`]) held the same
/// text. Helm prints `wrote` once per document (a file of two documents twice), whatever the
/// file held; a listing of what changed serves a GitOps review better.
pub fn output_dir_listing(
    dir: &Utf8Path,
    rendered: &Rendered,
    before: &[Option<String>],
) -> String {
    rendered
        .files()
        .iter()
        .enumerate()
        .map(|(i, (relative, text))| {
            let same = before.get(i).and_then(Option::as_deref) == Some(text.as_str());
            let verb = if same { "unchanged" } else { "wrote" };
            format!("{verb} {dir}/{relative}\n")
        })
        .collect()
}

/// [`write_output_dir`] of a whole render with the file writer supplied (tests use it to fail
/// midway): it gets each file's staging path (beside `dir`, never inside it, so a run killed
/// midway leaves nothing in `dir` that `kubectl apply -R dir` would read), where the output door
/// has already created the file empty with its final mode (0600 for a Secret's).
pub fn write_output_dir_with(
    dir: &Utf8Path,
    rendered: &Rendered,
    write: impl FnMut(&Utf8Path, &str) -> std::io::Result<()>,
) -> Result<Vec<Utf8PathBuf>, Error> {
    write_output_dir_as(dir, rendered, Removal::Stale, write)
}

fn write_output_dir_as(
    dir: &Utf8Path,
    rendered: &Rendered,
    removal: Removal,
    mut write: impl FnMut(&Utf8Path, &str) -> std::io::Result<()>,
) -> Result<Vec<Utf8PathBuf>, Error> {
    let set = OutputSet::begin(dir, Some(&rendered.chart_name))?;
    let files = rendered.files();
    let prefix = format!("{}/", rendered.chart_name);
    let inside = |relative: &str| {
        relative
            .strip_prefix(&prefix)
            .unwrap_or(relative)
            .to_owned()
    };
    let names: Vec<String> = files.iter().map(|(relative, _)| inside(relative)).collect();
    let mut written = Vec::with_capacity(files.len());
    for ((relative, text), name) in files.iter().zip(&names) {
        set.write_with(name, text.as_bytes(), false, |path, _| write(path, text))?;
        written.push(dir.join(relative));
    }
    set.commit(removal)?;
    Ok(written)
}

/// Refuses an output folder that overlaps what the render reads: the chart (`--chart`), the
/// shared `--certs-dir`, the `-f` files, and a fleet's folder. Writing into any of them would
/// overwrite or delete an input (`--fleet DIR --output-dir DIR` turned every cluster's values
/// into its render).
pub fn refuse_output_overlap(
    out: &Utf8Path,
    chart: Option<&Utf8Path>,
    request: &RenderRequest,
    fleet: Option<&Utf8Path>,
) -> Result<(), Error> {
    let mut inputs: Vec<(&str, &Utf8Path)> = Vec::new();
    if let Some(fleet) = fleet {
        inputs.push(("fleet folder", fleet));
    }
    if let Some(chart) = chart {
        inputs.push(("chart", chart));
    }
    if let Some(certs) = &request.certs_dir {
        inputs.push(("--certs-dir", certs));
    }
    for file in &request.values.files {
        // Standard input and URLs are not files here.
        if file != "-" && !file.contains("://") {
            inputs.push(("values file", Utf8Path::new(file)));
        }
    }
    let inputs: Vec<output::Input<'_>> = inputs
        .into_iter()
        .map(|(what, path)| output::Input { what, path })
        .collect();
    output::refuse_overlap("--output-dir", out, &inputs)?;
    Ok(())
}
