//! The Linkerd releases meshchart knows, the eras whose templates are compiled in, and which
//! release a command renders.
//!
//! `releases/releases.toml` holds a row for every release (stable-2.14.x, edge-24.10.2 ..
//! edge-26.8.3, and the 2021 line edge-21.4.4): its chart versions, Kubernetes range, images,
//! known issues, its chart state and its era. An era is served by one template set
//! (`templates/<set>/<chart>/` with `values/<set>/<chart>/`, written from the release it is
//! named after); a release renders its era's set with its own row put in
//! ([`release_chart`]), and the templates test `Chart.Version` for the lines a state changed.
//! Releases of eras without a template set are known but refused, naming the era.
//!
//! A command renders the release `--linkerd` names; without it, the one the user's own
//! `linkerdVersion` names; without that, [`DEFAULT_RELEASE`]. Versions are never mixed silently:
//! a `linkerdVersion` naming another release than `--linkerd` is an error, and one that names no
//! served release is an error unless `--linkerd` says which release's charts to use (then it is
//! only an image tag, and a warning says so).

mod release_chart;

use crate::chart::{Chart, ChartError};
use crate::yaml::Value;

/// Why a release line's chart could not be chosen or read.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// A release named by `--linkerd` or `linkerdVersion` is not in the release table.
    #[error(
        "{from} {release} is not a Linkerd release meshchart embeds{} (it renders {embedded}); \
         choose one with --linkerd, which also lets linkerdVersion set only the image tags",
        .nearest.as_ref().map(|n| format!(": did you mean {n}?")).unwrap_or_default()
    )]
    UnknownRelease {
        /// The release asked for.
        release: String,
        /// Where it was asked for: `--linkerd` or `linkerdVersion`.
        from: String,
        /// The served releases, as era ranges.
        embedded: String,
        /// The served release the user most likely meant, if one is close.
        nearest: Option<String>,
    },
    /// `linkerdVersion` names another embedded release than `--linkerd`.
    #[error(
        "linkerdVersion {version} is another release than --linkerd {line}: the {line} charts \
         with {version} images would mix two releases. Render --linkerd {version}, or drop \
         linkerdVersion"
    )]
    MixedReleases {
        /// The line `--linkerd` chose.
        line: String,
        /// The user's `linkerdVersion`.
        version: String,
    },
    /// No chart of that release line and name is compiled into this binary.
    #[error("meshchart has no chart {chart} for Linkerd {release} (it embeds: {embedded})")]
    NotEmbedded {
        /// The release line asked for.
        release: String,
        /// The chart name asked for.
        chart: String,
        /// The charts of its template set, comma-separated.
        embedded: String,
    },
    /// A release of the table whose era's templates this binary does not embed yet (or not
    /// for its chart state).
    #[error("{}", not_served_message(.0))]
    EraNotEmbedded(&'static ReleaseRow),
    /// A release's row does not fit its era's template set: a key the row sets is missing
    /// from the set's file (a bug of this build, named as such).
    #[error(
        "release table: Linkerd {release}'s row sets {key} in {file}, which template set {set} \
         lacks"
    )]
    RowDoesNotFit {
        /// The release.
        release: String,
        /// The template set.
        set: String,
        /// The chart file (`linkerd-control-plane/values/values.yaml`).
        file: String,
        /// The key, dotted.
        key: String,
    },
    /// The embedded chart itself does not read (a bug of this build, named as such).
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// One release of the table, as its `[[release]]` row in `releases/releases.toml` states it.
#[derive(Debug)]
pub struct ReleaseRow {
    /// The Linkerd release tag (`edge-24.10.2`).
    pub release: &'static str,
    /// The era it belongs to (`edge-24.10`), whose template set renders it.
    pub era: &'static str,
    /// Its chart state: the first release whose charts were the same as its own.
    pub state: &'static str,
    /// The Kubernetes versions it runs on, as a `kubeVersion` constraint.
    pub kubernetes: &'static str,
    /// The faults of this release a workload's shape runs into, by upstream issue
    /// (`linkerd/linkerd2#13247`); [`crate::proxy_support`] knows each.
    pub known_issues: &'static [&'static str],
    /// Its charts and their published versions, in name order.
    pub charts: &'static [(&'static str, &'static str)],
    /// The tag of its own proxy-init image (`v2.4.1`), when it ships one.
    pub proxy_init: Option<&'static str>,
    /// The images its control plane runs, by role (`controller`, `proxy`, `proxy_init`,
    /// `policy_controller`, `debug`), as the release ships them; empty for edge-21.4.4, whose
    /// row predates the table's image facts.
    pub images: &'static [(&'static str, &'static str)],
    /// Defaults its state had that differ from its era's template set: chart, dotted key
    /// path, and the YAML scalar, or `None` for a key its values.yaml did not have yet.
    pub state_values: &'static [(&'static str, &'static str, Option<&'static str>)],
}

/// A run of releases one template set renders (or will, once one is embedded).
#[derive(Debug)]
pub struct Era {
    /// The era's name (`edge-25.11`).
    pub name: &'static str,
    /// Its first release.
    pub first: &'static str,
    /// Its last release.
    pub last: &'static str,
    /// The template set serving it, named after the release it is written from; `None` when
    /// this binary does not embed the era yet.
    pub templates: Option<&'static str>,
    /// The chart states its template set serves so far, when not all of the era's: an era is
    /// wired from the state its set is written from, and grows state by state as the templates
    /// learn each state's lines.
    pub states_served: Option<&'static [&'static str]>,
}

/// The charts one era's releases render: written from the release the set is named after.
#[derive(Debug)]
pub struct TemplateSet {
    /// The release the set is written from (`edge-26.8.3`).
    pub name: &'static str,
    /// Its charts, in name order.
    pub charts: &'static [EmbeddedChart],
}

/// One chart of a template set, compiled into the binary.
#[derive(Debug)]
pub struct EmbeddedChart {
    /// The chart's name (`linkerd-control-plane`).
    pub name: &'static str,
    /// Its files: each path relative to the chart root, with its text.
    pub files: &'static [(&'static str, &'static str)],
}

// The table crates/linkerd/build.rs writes from releases/releases.toml: TEMPLATE_SETS,
// DEFAULT_RELEASE, ERAS and RELEASES.
include!(concat!(env!("OUT_DIR"), "/embedded_releases.rs"));

/// The row of `release`, if the table has it (served or not).
pub fn row(release: &str) -> Option<&'static ReleaseRow> {
    RELEASES.iter().find(|row| row.release == release)
}

/// The era named `name`.
pub fn era(name: &str) -> Option<&'static Era> {
    ERAS.iter().find(|era| era.name == name)
}

/// The template set serving `row`, if its era is embedded and its set serves the row's state.
pub fn template_set(row: &ReleaseRow) -> Option<&'static TemplateSet> {
    let era = era(row.era)?;
    if era
        .states_served
        .is_some_and(|states| !states.contains(&row.state))
    {
        return None;
    }
    let set = era.templates?;
    TEMPLATE_SETS.iter().find(|s| s.name == set)
}

/// The control-plane chart of the default release line, compiled into this binary.
pub fn default_control_plane() -> Result<Chart, ReleaseError> {
    embedded_line(DEFAULT_RELEASE, CONTROL_PLANE_CHART)
}

/// Chart `name` of release `release`: its era's template set with its own row put in.
pub fn embedded_line(release: &str, name: &str) -> Result<Chart, ReleaseError> {
    let Some(row) = row(release) else {
        return Err(ReleaseError::UnknownRelease {
            release: release.to_owned(),
            from: "the release".to_owned(),
            embedded: served_summary(),
            nearest: nearest_release(release),
        });
    };
    let Some(set) = template_set(row) else {
        return Err(not_served(row));
    };
    let files = release_chart::release_files(row, set, name)?;
    let chart = Chart::from_files(
        &format!("{EMBEDDED_ORIGIN}{name} of Linkerd {release}"),
        files,
    )?;
    // Our release lines are written in Jinja.
    chart.declare_go_templates(false);
    Ok(chart)
}

/// How an embedded chart's origin starts (`embedded chart linkerd-crds of Linkerd edge-26.8.3`).
const EMBEDDED_ORIGIN: &str = "embedded chart ";

/// The release `chart` was compiled in for (`edge-26.8.3`), when it is an embedded chart
/// ([`embedded_line`]); `None` for a user's chart.
pub fn embedded_release_of(chart: &Chart) -> Option<&str> {
    chart
        .origin
        .strip_prefix(EMBEDDED_ORIGIN)?
        .split_once(" of Linkerd ")
        .map(|(_, release)| release)
}

/// The error for a release of the table whose era this binary does not embed yet.
fn not_served(row: &'static ReleaseRow) -> ReleaseError {
    ReleaseError::EraNotEmbedded(row)
}

/// Why `row` is not served: its era, the era's releases, and what this binary renders.
fn not_served_message(row: &ReleaseRow) -> String {
    let era = era(row.era);
    let range = era
        .map(|e| format!(" ({} .. {})", e.first, e.last))
        .unwrap_or_default();
    let state_note = if era.is_some_and(|e| e.templates.is_some()) {
        format!(" for its chart state {}", row.state)
    } else {
        String::new()
    };
    format!(
        "Linkerd {} is a release of era {}{range}, whose templates this meshchart does not \
         embed yet{state_note}; it renders {}",
        row.release,
        row.era,
        served_summary()
    )
}

/// The served releases, as ranges (`edge-24.10.2 .. edge-25.2.2, ...`), for messages.
pub fn served_summary() -> String {
    let mut ranges: Vec<String> = Vec::new();
    let mut run: Option<(&str, &str)> = None;
    let mut run_era = "";
    for row in RELEASES {
        // A run stops at an era's end too: the table has no rows between eras (edge-21.4.4,
        // then edge-24.10.2), which a range across them would claim.
        if row.era != run_era {
            ranges.extend(run.take().map(range_text));
            run_era = row.era;
        }
        match (template_set(row).is_some(), run) {
            (true, Some((first, _))) => run = Some((first, row.release)),
            (true, None) => run = Some((row.release, row.release)),
            (false, Some(done)) => {
                ranges.push(range_text(done));
                run = None;
            }
            (false, None) => {}
        }
    }
    ranges.extend(run.map(range_text));
    ranges.join(", ")
}

fn range_text((first, last): (&str, &str)) -> String {
    if first == last {
        first.to_owned()
    } else {
        format!("{first} .. {last}")
    }
}

/// The name of a release line's control-plane chart.
pub const CONTROL_PLANE_CHART: &str = "linkerd-control-plane";
/// The name of a release line's CRD chart.
pub const CRDS_CHART: &str = "linkerd-crds";

/// One release of the table as `meshchart releases` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseLine {
    /// The Linkerd release tag (`edge-24.10.2`).
    pub release: &'static str,
    /// Its charts, with their versions, in name order.
    pub charts: Vec<(&'static str, String)>,
    /// The control plane's `kubeVersion` constraint (empty when it declares none).
    pub kube_version: String,
    /// Whether this is [`DEFAULT_RELEASE`].
    pub default: bool,
    /// Its era.
    pub era: &'static str,
    /// The template set rendering it; `None` when its era is not embedded yet.
    pub templates: Option<&'static str>,
}

/// Every release of the table, oldest first, served or not.
pub fn release_lines() -> Result<Vec<ReleaseLine>, ReleaseError> {
    Ok(RELEASES
        .iter()
        .map(|row| ReleaseLine {
            release: row.release,
            charts: row
                .charts
                .iter()
                .map(|(name, version)| (*name, (*version).to_owned()))
                .collect(),
            kube_version: row.kubernetes.to_owned(),
            default: row.release == DEFAULT_RELEASE,
            era: row.era,
            templates: template_set(row).map(|set| set.name),
        })
        .collect())
}

/// The releases this binary renders (those of eras with a template set), oldest first.
pub fn embedded_releases() -> Vec<&'static str> {
    RELEASES
        .iter()
        .filter(|row| template_set(row).is_some())
        .map(|row| row.release)
        .collect()
}

/// The releases the template sets are written from, oldest first: one per served era.
pub fn template_set_releases() -> Vec<&'static str> {
    RELEASES
        .iter()
        .filter(|row| TEMPLATE_SETS.iter().any(|set| set.name == row.release))
        .map(|row| row.release)
        .collect()
}

/// Whether the table has `release`, served or not.
fn is_known(release: &str) -> bool {
    row(release).is_some()
}

/// Refuses a release of the table whose era is not embedded.
fn served(release: &str) -> Result<(), ReleaseError> {
    match row(release) {
        Some(row) if template_set(row).is_none() => Err(not_served(row)),
        _ => Ok(()),
    }
}

/// The served release a user who typed `asked` most likely meant: the one it names without
/// its channel (`26.8.3`, `v26.8.3`), else one a typo or two away (`edge-26.8.2`, `egde-26.8.3`).
fn nearest_release(asked: &str) -> Option<String> {
    let bare = asked.trim().trim_start_matches(['v', 'V']);
    let served = || RELEASES.iter().filter(|row| template_set(row).is_some());
    if let Some(row) = served().find(|row| {
        row.release
            .split_once('-')
            .is_some_and(|(_, number)| number == bare)
    }) {
        return Some(row.release.to_owned());
    }
    served()
        .map(|row| {
            (
                crate::values::edit_distance(asked, row.release),
                row.release,
            )
        })
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, release)| release.to_owned())
}

/// The release line a command renders, and a warning to print when the choice deserves one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineChoice {
    /// The embedded release whose charts render.
    pub release: String,
    /// Said on stderr: the user's `linkerdVersion` only sets image tags inside this line.
    pub warning: Option<String>,
}

/// Chooses the release line from `--linkerd` (`explicit`) and the user's own values (their
/// `linkerdVersion`, from `-f`/`--set`, not the chart's default).
pub fn choose_line(
    explicit: Option<&str>,
    user_values: &Value,
) -> Result<LineChoice, ReleaseError> {
    let asked = user_values
        .get_path(&["linkerdVersion"])
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty());
    let unknown = |release: &str, from: &str| ReleaseError::UnknownRelease {
        release: release.to_owned(),
        from: from.to_owned(),
        embedded: served_summary(),
        nearest: nearest_release(release),
    };
    match (explicit, asked) {
        (Some(line), _) if !is_known(line) => Err(unknown(line, "--linkerd")),
        (Some(line), Some(version)) if version != line && is_known(version) => {
            Err(ReleaseError::MixedReleases {
                line: line.to_owned(),
                version: version.to_owned(),
            })
        }
        (Some(line), Some(version)) if version != line => {
            served(line)?;
            Ok(LineChoice {
                release: line.to_owned(),
                warning: Some(format!(
                    "warning: linkerdVersion {version} is not a release meshchart embeds: \
                     rendering the {line} charts with images tagged {version}"
                )),
            })
        }
        (Some(line), _) => {
            served(line)?;
            Ok(LineChoice {
                release: line.to_owned(),
                warning: None,
            })
        }
        (None, Some(version)) if is_known(version) => {
            served(version)?;
            Ok(LineChoice {
                release: version.to_owned(),
                warning: None,
            })
        }
        (None, Some(version)) => Err(unknown(version, "linkerdVersion")),
        (None, None) => Ok(LineChoice {
            release: DEFAULT_RELEASE.to_owned(),
            warning: None,
        }),
    }
}

#[cfg(test)]
mod tests;
