//! One release's chart from its era's template set: the set's files as written for the release
//! it is named after, with the release's own row put in. Chart.yaml gets the release's chart
//! version, appVersion and kubeVersion; values.yaml its linkerdVersion, its proxy-init image tag
//! (when it ships one) and its state's defaults. Everything else a state changed, the templates
//! decide from `Chart.Version`.
//!
//! The edits are made to the text, not to parsed values, so that what `meshchart show` and the
//! packaged chart hold reads like the release's own files, comments and all.

use super::{ReleaseError, ReleaseRow, TemplateSet, CONTROL_PLANE_CHART};
use crate::chart::{ChartFile, SharedText};

/// The files of chart `chart` of `set` for release `row`.
pub(super) fn release_files(
    row: &ReleaseRow,
    set: &TemplateSet,
    chart: &str,
) -> Result<Vec<ChartFile>, ReleaseError> {
    let Some(embedded) = set.charts.iter().find(|c| c.name == chart) else {
        return Err(ReleaseError::NotEmbedded {
            release: row.release.to_owned(),
            chart: chart.to_owned(),
            embedded: set
                .charts
                .iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let version = row
        .charts
        .iter()
        .find(|(name, _)| *name == chart)
        .map(|(_, version)| *version)
        .unwrap_or_default();
    let set_version = set_chart_version(set, chart);
    let misfit = |file: &str, key: String| ReleaseError::RowDoesNotFit {
        release: row.release.to_owned(),
        set: set.name.to_owned(),
        file: format!("{chart}/{file}"),
        key,
    };
    let mut files = Vec::with_capacity(embedded.files.len());
    for (path, text) in embedded.files {
        let text: SharedText = match *path {
            "Chart.yaml" => {
                let mut text = retag_header(text, "description:", set.name, row.release, None);
                for (key, value) in [
                    ("version", version.to_owned()),
                    ("appVersion", row.release.to_owned()),
                    ("kubeVersion", format!("{:?}", row.kubernetes)),
                ] {
                    text = set_scalar(&text, &[key], &value)
                        .ok_or_else(|| misfit(path, key.into()))?;
                }
                text.into()
            }
            "values/values.yaml" => {
                let mut text = retag_header(
                    text,
                    "",
                    set.name,
                    row.release,
                    Some((set_version, version)),
                );
                if chart == CONTROL_PLANE_CHART {
                    text = set_scalar(&text, &["linkerdVersion"], row.release)
                        .ok_or_else(|| misfit(path, "linkerdVersion".into()))?;
                }
                if let (Some(tag), CONTROL_PLANE_CHART) = (row.proxy_init, chart) {
                    text = set_scalar(&text, &["proxyInit", "image", "version"], tag)
                        .ok_or_else(|| misfit(path, "proxyInit.image.version".into()))?;
                }
                for (_, key, value) in row.state_values.iter().filter(|(c, _, _)| *c == chart) {
                    let keys: Vec<&str> = key.split('.').collect();
                    let edited = match value {
                        Some(value) => set_scalar(&text, &keys, value)
                            .or_else(|| add_scalar(&text, &keys, value)),
                        None => remove_key(&text, &keys),
                    };
                    text = edited.ok_or_else(|| misfit(path, (*key).into()))?;
                }
                text.into()
            }
            // The templates as compiled in: no copy of a hundred kilobytes of CRD text.
            _ => SharedText::from_static(text),
        };
        files.push(ChartFile {
            path: (*path).to_owned(),
            text,
        });
    }
    Ok(files)
}

/// The version of `chart` in the row of the release `set` is written for.
fn set_chart_version(set: &TemplateSet, chart: &str) -> &'static str {
    super::row(set.name)
        .and_then(|row| row.charts.iter().find(|(name, _)| *name == chart))
        .map(|(_, version)| *version)
        .unwrap_or_default()
}

/// `text` with the set's release tag (and chart version) replaced by the release's in its
/// leading comment block, or, when `line_start` is not empty, in the line starting with it: the
/// words that say which release the file is for.
fn retag_header(
    text: &str,
    line_start: &str,
    set_release: &str,
    release: &str,
    versions: Option<(&str, &str)>,
) -> String {
    if set_release == release {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_header = true;
    for line in text.split_inclusive('\n') {
        let retag = if line_start.is_empty() {
            in_header = in_header && (line.starts_with('#') || line.trim().is_empty());
            in_header
        } else {
            line.starts_with(line_start)
        };
        if retag {
            let mut line = line.replace(set_release, release);
            if let Some((from, to)) = versions.filter(|(from, _)| !from.is_empty()) {
                line = line.replace(from, to);
            }
            out.push_str(&line);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The line index and indentation of the key at `path` in `text` (block-style YAML).
fn find_key(lines: &[&str], path: &[&str]) -> Option<(usize, usize)> {
    let mut start = 0;
    let mut parent_indent: Option<usize> = None;
    let mut target = None;
    for (depth, key) in path.iter().enumerate() {
        let mut block_indent = None;
        let mut found = None;
        for (index, line) in lines.iter().enumerate().skip(start) {
            let trimmed = line.trim_start();
            if trimmed.trim().is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indent = line.len() - trimmed.len();
            if parent_indent.is_some_and(|parent| indent <= parent) {
                break;
            }
            if indent != *block_indent.get_or_insert(indent) {
                continue;
            }
            if trimmed
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with(':'))
            {
                found = Some((index, indent));
                break;
            }
        }
        let (index, indent) = found?;
        if depth + 1 == path.len() {
            target = Some((index, indent));
        }
        start = index + 1;
        parent_indent = Some(indent);
    }
    target
}

/// The index of the last line of the value of the key at line `key_index` (indented `indent`):
/// the key's own line for a scalar, the last more-indented line for a block.
fn value_end(lines: &[&str], key_index: usize, indent: usize) -> usize {
    let mut end = key_index;
    for (below, line) in lines.iter().enumerate().skip(key_index + 1) {
        let trimmed = line.trim_start();
        if trimmed.trim().is_empty() {
            continue;
        }
        if line.len() - trimmed.len() <= indent {
            break;
        }
        end = below;
    }
    end
}

/// `text` (block-style YAML) with the value at `path` replaced by `scalar`, keeping the line's
/// indentation and trailing comment; a block value (a mapping, a list or a `|` string) goes
/// with its lines. `None` when no line holds that key.
pub(super) fn set_scalar(text: &str, path: &[&str], scalar: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (index, indent) = find_key(&lines, path)?;
    let end = value_end(&lines, index, indent);
    let line = lines[index];
    let key = path[path.len() - 1];
    let after = &line.trim_start()[key.len() + 1..];
    let ending = if line.ends_with('\n') { "\n" } else { "" };
    let value_and_comment = after.trim_end_matches('\n');
    let comment = value_and_comment
        .find(" #")
        .map(|at| {
            let value_end = value_and_comment[..at].trim_end().len();
            &value_and_comment[value_end..]
        })
        .unwrap_or("");
    let mut out = String::with_capacity(text.len() + scalar.len());
    for (i, l) in lines.iter().enumerate() {
        if i == index {
            out.push_str(&format!(
                "{}{key}: {scalar}{comment}{ending}",
                " ".repeat(indent)
            ));
        } else if i < index || i > end {
            out.push_str(l);
        }
    }
    Some(out)
}

/// `text` with the key at `path`, which it lacks, added as `key: scalar` right under its
/// parent mapping (at the parent's children's indentation), or at the end for a top-level key:
/// a state's values.yaml had keys the template set's release no longer has. `None` when the
/// parent is missing too.
pub(super) fn add_scalar(text: &str, path: &[&str], scalar: &str) -> Option<String> {
    let (key, parent) = path.split_last()?;
    if parent.is_empty() {
        let mut out = text.to_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("{key}: {scalar}\n"));
        return Some(out);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (parent_index, parent_indent) = find_key(&lines, parent)?;
    let child_indent = lines
        .iter()
        .skip(parent_index + 1)
        .map(|line| (line, line.trim_start()))
        .find(|(_, trimmed)| !trimmed.trim().is_empty() && !trimmed.starts_with('#'))
        .map(|(line, trimmed)| line.len() - trimmed.len())
        .filter(|indent| *indent > parent_indent)
        .unwrap_or(parent_indent + 2);
    let mut out = String::with_capacity(text.len() + key.len() + scalar.len() + 8);
    for (i, l) in lines.iter().enumerate() {
        out.push_str(l);
        if i == parent_index {
            if !l.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("{}{key}: {scalar}\n", " ".repeat(child_indent)));
        }
    }
    Some(out)
}

/// `text` without the key at `path`: its line, the lines of its value below it (more indented),
/// and the comment lines right above it (its documentation); `None` when no line holds that key.
pub(super) fn remove_key(text: &str, path: &[&str]) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (key_index, indent) = find_key(&lines, path)?;
    let index = value_end(&lines, key_index, indent);
    let mut first = key_index;
    while first > 0 {
        let above = lines[first - 1];
        let trimmed = above.trim_start();
        if trimmed.starts_with('#') && above.len() - trimmed.len() == indent {
            first -= 1;
        } else {
            break;
        }
    }
    let mut out = String::with_capacity(text.len());
    for (i, l) in lines.iter().enumerate() {
        if i < first || i > index {
            out.push_str(l);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{add_scalar, remove_key, set_scalar};

    const VALUES: &str = "# header\nlinkerdVersion: edge-26.8.3\nproxy:\n  image:\n    name: p\n    version: \"\"  # the tag\n  nativeSidecar: true\nproxyInit:\n  image:\n    version: v1\n";

    #[test]
    fn a_nested_scalar_is_replaced_in_place_keeping_its_comment() {
        let text = set_scalar(VALUES, &["proxy", "image", "version"], "v9").unwrap();
        assert!(text.contains("    version: v9  # the tag\n"), "{text}");
        assert!(
            text.contains("proxyInit:\n  image:\n    version: v1\n"),
            "{text}"
        );
    }

    #[test]
    fn the_key_is_looked_for_only_inside_its_parent() {
        let text = set_scalar(VALUES, &["proxyInit", "image", "version"], "v2").unwrap();
        assert!(text.contains("    version: \"\"  # the tag\n"), "{text}");
        assert!(text.ends_with("    version: v2\n"), "{text}");
    }

    #[test]
    fn a_top_level_scalar_is_replaced() {
        let text = set_scalar(VALUES, &["linkerdVersion"], "edge-25.11.3").unwrap();
        assert!(text.contains("\nlinkerdVersion: edge-25.11.3\n"), "{text}");
    }

    #[test]
    fn a_removed_key_takes_its_comment_lines_and_its_value_with_it() {
        let text = remove_key(VALUES, &["proxy", "image", "version"]).unwrap();
        assert!(
            text.contains("    name: p\n  nativeSidecar: true\n"),
            "{text}"
        );
        let text = remove_key(VALUES, &["linkerdVersion"]).unwrap();
        assert!(text.starts_with("proxy:\n"), "{text}");
        assert!(remove_key(VALUES, &["proxy", "nope"]).is_none());
        let text = remove_key(VALUES, &["proxy"]).unwrap();
        assert_eq!(
            text,
            "# header\nlinkerdVersion: edge-26.8.3\nproxyInit:\n  image:\n    version: v1\n"
        );
    }

    #[test]
    fn a_block_value_is_replaced_with_its_lines() {
        let text = set_scalar(VALUES, &["proxy", "image"], "\"x\"").unwrap();
        assert!(
            text.contains("proxy:\n  image: \"x\"\n  nativeSidecar: true\n"),
            "{text}"
        );
    }

    #[test]
    fn a_key_the_set_lacks_is_added_under_its_parent() {
        let text = add_scalar(VALUES, &["proxy", "image", "tag"], "v3").unwrap();
        assert!(
            text.contains("  image:\n    tag: v3\n    name: p\n"),
            "{text}"
        );
        let text = add_scalar(VALUES, &["controlPlaneTracing"], "false").unwrap();
        assert!(
            text.ends_with("    version: v1\ncontrolPlaneTracing: false\n"),
            "{text}"
        );
        let text = add_scalar(VALUES, &["proxy", "tracing", "enable"], "false");
        assert!(text.is_none(), "the parent must exist");
    }

    #[test]
    fn a_missing_key_is_none() {
        assert!(set_scalar(VALUES, &["proxy", "nope"], "1").is_none());
        assert!(set_scalar(VALUES, &["image"], "1").is_none());
        assert!(set_scalar(VALUES, &["proxy", "nativeSidecar", "x"], "1").is_none());
    }
}
