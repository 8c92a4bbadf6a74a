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
        "{from} {release} is not a Linkerd release meshchart embeds (it embeds {embedded}); \
         choose one with --linkerd, which also lets linkerdVersion set only the image tags"
    )]
    UnknownRelease {
        /// The release asked for.
        release: String,
        /// Where it was asked for: `--linkerd` or `linkerdVersion`.
        from: String,
        /// The embedded releases, comma-separated.
        embedded: String,
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

// The table build.rs writes: its type is spelled out there, once.
#[allow(clippy::type_complexity)]
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_charts.rs"));
}

/// The charts compiled into the binary, as `(release, chart name)`, in release order.
pub fn embedded_charts() -> impl Iterator<Item = (&'static str, &'static str)> {
    embedded::CHARTS
        .iter()
        .map(|(release, chart, _)| (*release, *chart))
}

/// The control-plane chart of the default release line, compiled into this binary.
pub fn default_control_plane() -> Result<Chart, ReleaseError> {
    embedded_line(DEFAULT_RELEASE, CONTROL_PLANE_CHART)
}

/// Chart `name` of release line `release`, compiled into this binary.
pub fn embedded_line(release: &str, name: &str) -> Result<Chart, ReleaseError> {
    let Some((_, _, files)) = embedded::CHARTS
        .iter()
        .find(|(r, c, _)| *r == release && *c == name)
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
    let files = files.iter().map(|(path, text)| ChartFile {
        path: (*path).to_owned(),
        text: (*text).to_owned(),
    });
    Ok(Chart::from_files(
        &format!("embedded chart {name} of Linkerd {release}"),
        files.collect(),
    )?)
}

/// The release line rendered when neither `--linkerd` nor the user's `linkerdVersion` names one.
pub const DEFAULT_RELEASE: &str = "edge-26.8.3";
/// The name of a release line's control-plane chart.
pub const CONTROL_PLANE_CHART: &str = "linkerd-control-plane";
/// The name of a release line's CRD chart.
pub const CRDS_CHART: &str = "linkerd-crds";

/// One embedded release line: its release tag, chart names and the Kubernetes versions its
/// control plane declares (`kubeVersion` of its Chart.yaml).
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

/// Every embedded release line, oldest first.
pub fn release_lines() -> Result<Vec<ReleaseLine>, ReleaseError> {
    let mut lines: Vec<ReleaseLine> = Vec::new();
    for (release, chart) in embedded_charts() {
        let loaded = embedded_line(release, chart)?;
        let index = match lines.iter().position(|l| l.release == release) {
            Some(i) => i,
            None => {
                lines.push(ReleaseLine {
                    release,
                    charts: Vec::new(),
                    kube_version: String::new(),
                    default: release == DEFAULT_RELEASE,
                });
                lines.len() - 1
            }
        };
        let line = &mut lines[index];
        if chart == CONTROL_PLANE_CHART {
            line.kube_version = loaded.metadata.kube_version.clone().unwrap_or_default();
        }
        line.charts
            .push((chart, loaded.metadata.version.to_string()));
    }
    lines.sort_by_key(|l| release_order(l.release));
    Ok(lines)
}

/// Sorts `edge-YY.M.P` tags by number rather than by text (`edge-24.10.2` after `edge-24.9.1`).
fn release_order(release: &str) -> Vec<u64> {
    release
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// The embedded releases, oldest first, for messages.
pub fn embedded_releases() -> Vec<&'static str> {
    let mut releases: Vec<&'static str> = embedded_charts().map(|(release, _)| release).collect();
    releases.sort_by_key(|r| release_order(r));
    releases.dedup();
    releases
}

fn is_embedded(release: &str) -> bool {
    embedded_charts().any(|(r, _)| r == release)
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
    fn releases_sort_by_number() {
        let mut tags = vec!["edge-24.10.2", "edge-24.9.1", "edge-21.4.4"];
        tags.sort_by_key(|t| release_order(t));
        assert_eq!(tags, ["edge-21.4.4", "edge-24.9.1", "edge-24.10.2"]);
    }
}
