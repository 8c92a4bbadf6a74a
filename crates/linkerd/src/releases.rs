//! The Linkerd release lines compiled into the binary, and which one a command renders.
//!
//! A release line is one Linkerd release's charts (`linkerd-control-plane`, and `linkerd-crds`
//! from edge-22 on), embedded from `templates/<release>/<chart>/` and `values/<release>/<chart>/`.
//! A command renders the line `--linkerd` names; without it, the line the user's own
//! `linkerdVersion` names; without that, [`DEFAULT_RELEASE`]. Versions are never mixed silently:
//! a `linkerdVersion` naming another embedded release than `--linkerd` is an error, and one that
//! names no embedded release is an error unless `--linkerd` says which line's charts to use
//! (then it is only an image tag, and a warning says so).

use crate::chart::{Chart, ChartError, ChartFile};
use crate::yaml::Value;

/// Why a release line's chart could not be chosen or read.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// A release named by `--linkerd` or `linkerdVersion` has no line in this binary.
    #[error(
        "{from} {release} is not a Linkerd release meshchart embeds{} (it embeds {embedded}); \
         choose one with --linkerd, which also lets linkerdVersion set only the image tags",
        .nearest.as_ref().map(|n| format!(": did you mean {n}?")).unwrap_or_default()
    )]
    UnknownRelease {
        /// The release asked for.
        release: String,
        /// Where it was asked for: `--linkerd` or `linkerdVersion`.
        from: String,
        /// The embedded releases, comma-separated.
        embedded: String,
        /// The embedded release the user most likely meant, if one is close.
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
        /// The embedded charts, `release/chart`, comma-separated.
        embedded: String,
    },
    /// The embedded chart itself does not read (a bug of this build, named as such).
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// One release of the table, as `releases/<release>/release.toml` states it.
#[derive(Debug)]
pub struct ReleaseRow {
    /// The Linkerd release tag (`edge-24.10.2`).
    pub release: &'static str,
    /// The Kubernetes versions it runs on, as a `kubeVersion` constraint.
    pub kubernetes: &'static str,
    /// The faults of this release a workload's shape runs into, by upstream issue
    /// (`linkerd/linkerd2#13247`); [`crate::proxy_support`] knows each.
    pub known_issues: &'static [&'static str],
    /// Its charts, in name order.
    pub charts: &'static [EmbeddedChart],
}

/// One chart of a release, compiled into the binary.
#[derive(Debug)]
pub struct EmbeddedChart {
    /// The chart's name (`linkerd-control-plane`).
    pub name: &'static str,
    /// Its version as upstream publishes it.
    pub version: &'static str,
    /// Its files: each path relative to the chart root, with its text.
    pub files: &'static [(&'static str, &'static str)],
}

// The table crates/linkerd/build.rs writes from releases/*/release.toml: DEFAULT_RELEASE and
// RELEASES.
include!(concat!(env!("OUT_DIR"), "/embedded_releases.rs"));

/// The row of `release`, if meshchart embeds it.
pub fn row(release: &str) -> Option<&'static ReleaseRow> {
    RELEASES.iter().find(|row| row.release == release)
}

/// The charts compiled into the binary, as `(release, chart name)`, in release order.
pub fn embedded_charts() -> impl Iterator<Item = (&'static str, &'static str)> {
    RELEASES
        .iter()
        .flat_map(|row| row.charts.iter().map(|chart| (row.release, chart.name)))
}

/// The control-plane chart of the default release line, compiled into this binary.
pub fn default_control_plane() -> Result<Chart, ReleaseError> {
    embedded_line(DEFAULT_RELEASE, CONTROL_PLANE_CHART)
}

/// Chart `name` of release line `release`, compiled into this binary.
pub fn embedded_line(release: &str, name: &str) -> Result<Chart, ReleaseError> {
    let Some(chart) = row(release).and_then(|row| row.charts.iter().find(|c| c.name == name))
    else {
        return Err(ReleaseError::NotEmbedded {
            release: release.to_owned(),
            chart: name.to_owned(),
            embedded: embedded_charts()
                .map(|(r, c)| format!("{r}/{c}"))
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let files = chart.files.iter().map(|(path, text)| ChartFile {
        path: (*path).to_owned(),
        text: (*text).to_owned(),
    });
    Ok(Chart::from_files(
        &format!("{EMBEDDED_ORIGIN}{name} of Linkerd {release}"),
        files.collect(),
    )?)
}

/// How an embedded chart's origin starts (`embedded chart linkerd-crds of Linkerd edge-26.8.3`).
const EMBEDDED_ORIGIN: &str = "embedded chart ";

/// The release line `chart` was compiled in for (`edge-26.8.3`), when it is an embedded chart
/// ([`embedded_line`]); `None` for a user's chart.
pub fn embedded_release_of(chart: &Chart) -> Option<&str> {
    chart
        .origin
        .strip_prefix(EMBEDDED_ORIGIN)?
        .split_once(" of Linkerd ")
        .map(|(_, release)| release)
}

/// The name of a release line's control-plane chart.
pub const CONTROL_PLANE_CHART: &str = "linkerd-control-plane";
/// The name of a release line's CRD chart.
pub const CRDS_CHART: &str = "linkerd-crds";

/// One embedded release line: its release tag, chart names and the Kubernetes versions it runs
/// on (its row's `kubernetes`, which its charts' `kubeVersion` must match).
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
}

/// Every embedded release line: stable lines first, then edge releases, each oldest first.
pub fn release_lines() -> Result<Vec<ReleaseLine>, ReleaseError> {
    Ok(RELEASES
        .iter()
        .map(|row| ReleaseLine {
            release: row.release,
            charts: row
                .charts
                .iter()
                .map(|chart| (chart.name, chart.version.to_owned()))
                .collect(),
            kube_version: row.kubernetes.to_owned(),
            default: row.release == DEFAULT_RELEASE,
        })
        .collect())
}

/// The embedded releases (stable lines first, then edge releases, each oldest first), for
/// messages.
pub fn embedded_releases() -> Vec<&'static str> {
    RELEASES.iter().map(|row| row.release).collect()
}

fn is_embedded(release: &str) -> bool {
    row(release).is_some()
}

/// The embedded release a user who typed `asked` most likely meant: the one it names without
/// its line (`26.8.3`, `v26.8.3`), else one a typo or two away (`edge-26.8.2`, `egde-26.8.3`).
fn nearest_release(asked: &str) -> Option<String> {
    let bare = asked.trim().trim_start_matches(['v', 'V']);
    if let Some(row) = RELEASES.iter().find(|row| {
        row.release
            .split_once('-')
            .is_some_and(|(_, number)| number == bare)
    }) {
        return Some(row.release.to_owned());
    }
    RELEASES
        .iter()
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
    let embedded = || embedded_releases().join(", ");
    match (explicit, asked) {
        (Some(line), _) if !is_embedded(line) => Err(ReleaseError::UnknownRelease {
            release: line.to_owned(),
            from: "--linkerd".to_owned(),
            embedded: embedded(),
            nearest: nearest_release(line),
        }),
        (Some(line), Some(version)) if version != line && is_embedded(version) => {
            Err(ReleaseError::MixedReleases {
                line: line.to_owned(),
                version: version.to_owned(),
            })
        }
        (Some(line), Some(version)) if version != line => Ok(LineChoice {
            release: line.to_owned(),
            warning: Some(format!(
                "warning: linkerdVersion {version} is not a release meshchart embeds: rendering \
                 the {line} line's charts with images tagged {version}"
            )),
        }),
        (Some(line), _) => Ok(LineChoice {
            release: line.to_owned(),
            warning: None,
        }),
        (None, Some(version)) if is_embedded(version) => Ok(LineChoice {
            release: version.to_owned(),
            warning: None,
        }),
        (None, Some(version)) => Err(ReleaseError::UnknownRelease {
            release: version.to_owned(),
            from: "linkerdVersion".to_owned(),
            embedded: embedded(),
            nearest: nearest_release(version),
        }),
        (None, None) => Ok(LineChoice {
            release: DEFAULT_RELEASE.to_owned(),
            warning: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(version: Option<&str>) -> Value {
        let mut map = crate::yaml::Map::new();
        if let Some(v) = version {
            map.insert("linkerdVersion".into(), Value::from(v));
        }
        Value::Map(map)
    }

    #[test]
    fn without_a_choice_the_default_line_renders() {
        let choice = choose_line(None, &values(None)).unwrap();
        assert_eq!(choice.release, DEFAULT_RELEASE);
        assert_eq!(choice.warning, None);
    }

    #[test]
    fn the_users_linkerd_version_chooses_an_embedded_line() {
        let choice = choose_line(None, &values(Some("edge-24.10.2"))).unwrap();
        assert_eq!(choice.release, "edge-24.10.2");
    }

    #[test]
    fn a_linkerd_version_of_another_embedded_line_than_linkerd_is_an_error() {
        let error = choose_line(Some("edge-26.8.3"), &values(Some("edge-24.10.2"))).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("--linkerd edge-26.8.3"), "{text}");
        assert!(text.contains("edge-24.10.2"), "{text}");
    }

    #[test]
    fn an_unknown_linkerd_version_names_the_embedded_lines() {
        let text = choose_line(None, &values(Some("stable-2.14.1")))
            .unwrap_err()
            .to_string();
        assert!(text.contains("stable-2.14.1"), "{text}");
        assert!(text.contains("edge-24.10.2"), "{text}");
        assert!(text.contains("--linkerd"), "{text}");
    }

    #[test]
    fn an_unknown_linkerd_version_under_linkerd_is_an_image_tag_with_a_warning() {
        let choice = choose_line(Some("edge-24.10.2"), &values(Some("edge-24.10.3"))).unwrap();
        assert_eq!(choice.release, "edge-24.10.2");
        assert!(choice.warning.unwrap().contains("edge-24.10.3"));
    }

    #[test]
    fn an_unknown_linkerd_line_is_an_error() {
        let text = choose_line(Some("edge-99.1.1"), &values(None))
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("edge-99.1.1") && text.contains("edge-21.4.4"),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_release_suggests_the_embedded_one_meant() {
        let suggested = |asked: &str| {
            choose_line(Some(asked), &values(None))
                .unwrap_err()
                .to_string()
        };
        assert!(
            suggested("26.8.3").contains("did you mean edge-26.8.3?"),
            "{}",
            suggested("26.8.3")
        );
        assert!(suggested("v24.10.2").contains("did you mean edge-24.10.2?"));
        assert!(suggested("egde-26.8.3").contains("did you mean edge-26.8.3?"));
        assert!(!suggested("stable-2.9.0").contains("did you mean"));
    }

    /// Stable lines before edge releases; `edge-YY.M.P` as numbers, so `edge-24.10.2` comes
    /// after `edge-24.9.1`.
    fn release_order(release: &str) -> (bool, Vec<u64>) {
        let numbers = release
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .split('.')
            .map(|part| part.parse().unwrap_or(0))
            .collect();
        (!release.starts_with("stable-"), numbers)
    }

    #[test]
    fn the_table_lists_stable_lines_then_edge_releases_oldest_first_by_number() {
        let listed = embedded_releases();
        let mut sorted = listed.clone();
        sorted.sort_by_key(|release| release_order(release));
        assert_eq!(listed, sorted);
        assert!(listed.len() >= 3, "{listed:?}");
    }

    #[test]
    fn exactly_the_default_row_is_the_default_release() {
        let lines = release_lines().unwrap();
        let defaults: Vec<_> = lines
            .iter()
            .filter(|l| l.default)
            .map(|l| l.release)
            .collect();
        assert_eq!(defaults, [DEFAULT_RELEASE]);
    }

    #[test]
    fn every_row_names_known_issues_the_code_knows_and_agrees_with_their_rule() {
        for row in RELEASES {
            for issue in row.known_issues {
                assert!(
                    crate::proxy_support::known_issue(issue).is_some(),
                    "releases/{}/release.toml names {issue}, which proxy_support does not know",
                    row.release
                );
            }
            for known in crate::proxy_support::KNOWN_ISSUES {
                assert_eq!(
                    row.known_issues.contains(&known.issue),
                    crate::proxy_support::issue_rule(row.release, known),
                    "releases/{}/release.toml and the rule of {} disagree",
                    row.release,
                    known.issue
                );
            }
        }
    }
}
