//! Lint's checks of the templates and of what they render: file extensions, a render with the
//! effective values, and each document's shape (a map with apiVersion, kind and a valid name)
//! and API version (one the `--kube-version` deprecated or no longer serves).

use super::api_removals;
use super::report::{Reporter, Severity};
use crate::chart::Chart;
use crate::engine::Engine;
use crate::render::RenderRequest;
use crate::values::Value;

const TEMPLATE_EXTENSIONS: &[&str] = &[".yaml", ".yml", ".tpl", ".txt"];

/// Checks the templates and what they render; returns the rendered documents that are maps,
/// each with its location (`chart/template`).
pub(super) fn check_templates(
    chart: &Chart,
    request: &RenderRequest,
    values: &Value,
    report: &mut Reporter<'_>,
) -> Vec<(String, crate::values::Map)> {
    for template in &chart.templates {
        if !TEMPLATE_EXTENSIONS
            .iter()
            .any(|e| template.path.ends_with(e))
        {
            report.push(
                Severity::Error,
                format!("templates/{}", template.path),
                "file extension must be .yaml, .yml, .tpl or .txt",
            );
        }
    }
    if let Err(e) = chart.refuse_subcharts() {
        report.push(Severity::Error, "charts/", e.to_string());
        return Vec::new();
    }
    let options = match request.render_options() {
        Ok(o) => o,
        Err(e) => {
            report.push(Severity::Error, "flags", e);
            return Vec::new();
        }
    };
    // As `helm lint` does, a `required` value left unset is noted and the render goes on.
    let (rendered, missing) = crate::engine::functions::noting_missing_required(|| {
        Engine::new(chart).and_then(|engine| {
            crate::manifest::render(
                &engine,
                values,
                &options,
                &crate::manifest::DocumentReader::new(),
            )
        })
    });
    let severity = if report.strict() {
        Severity::Error
    } else {
        Severity::Info
    };
    for message in missing {
        report.push(
            severity,
            "templates/",
            format!("missing required value: {message}"),
        );
    }
    let rendered = match rendered {
        Ok(r) => r,
        Err(e) => {
            report.push(Severity::Error, "templates/", e.to_string());
            return Vec::new();
        }
    };
    let mut documents = Vec::new();
    for doc in &rendered.documents {
        let location = format!("{}/{}", rendered.chart_name, doc.template);
        let parsed = match crate::yaml::parse_document(&doc.text) {
            Ok(v) => v,
            Err(e) => {
                report.push(
                    Severity::Error,
                    location,
                    format!("rendered YAML does not parse: {e}"),
                );
                continue;
            }
        };
        let Value::Map(map) = parsed else {
            if parsed != Value::Null {
                report.push(
                    Severity::Error,
                    location,
                    "a rendered document must be a map",
                );
            }
            continue;
        };
        for field in ["apiVersion", "kind"] {
            if map
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                report.push(
                    Severity::Error,
                    location.clone(),
                    format!("document has no {field}"),
                );
            }
        }
        let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
        if let Some(message) = api_removals::finding(api_version, kind, &options.kube_version) {
            report.push(Severity::Warning, location.clone(), message);
        }
        let metadata = map.get("metadata").and_then(Value::as_map);
        let named = |field: &str| {
            metadata
                .and_then(|m| m.get(field))
                .and_then(Value::as_str)
                .is_some_and(|name| !name.is_empty())
        };
        // An object the API server names itself from `generateName` needs no name (Helm warns
        // about it all the same).
        if !named("name") && !named("generateName") {
            report.push(
                Severity::Warning,
                location.clone(),
                format!(
                    "{} has no metadata.name: the API server refuses an object without one (or \
                     a metadata.generateName)",
                    if kind.is_empty() {
                        "the document"
                    } else {
                        kind
                    }
                ),
            );
        }
        if !doc.name.is_empty() && !is_dns1123_subdomain(&doc.name) {
            report.push(
                Severity::Warning,
                location.clone(),
                format!(
                    "{} {:?}: metadata.name must be lowercase letters, digits, '-' and '.', start and end with a letter or digit, at most 253 characters",
                    doc.kind, doc.name
                ),
            );
        }
        documents.push((location, map));
    }
    documents
}

/// Kubernetes' DNS-1123 subdomain rule for object names.
pub fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns1123_names() {
        assert!(is_dns1123_subdomain("linkerd-identity"));
        assert!(is_dns1123_subdomain("a.b-c"));
        assert!(!is_dns1123_subdomain("Bad_Name"));
        assert!(!is_dns1123_subdomain("-x"));
        assert!(!is_dns1123_subdomain(""));
    }
}
