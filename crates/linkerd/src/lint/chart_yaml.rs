//! Lint's checks of Chart.yaml beyond what loading it checks: icon, URLs, maintainers, and the
//! fields apiVersion v1 does not have.

use super::report::{Reporter, Severity};
use crate::chart::Chart;
use crate::values::Value;

pub(super) fn check_chart_yaml(chart: &Chart, report: &mut Reporter<'_>) {
    let fields = &chart.metadata.fields;
    if !fields.contains_key("icon") {
        report.push(Severity::Info, "Chart.yaml", "icon is recommended");
    }
    let is_url = |s: &str| s.starts_with("https://") || s.starts_with("http://");
    for field in ["icon", "home"] {
        match fields.get(field) {
            Some(Value::String(s)) if !is_url(s) => report.push(
                Severity::Error,
                "Chart.yaml",
                format!("{field}: {s:?} is not an http(s) URL"),
            ),
            Some(Value::String(_)) | None => {}
            Some(other) => report.push(
                Severity::Error,
                "Chart.yaml",
                format!("{field}: must be a string, found a {}", other.type_name()),
            ),
        }
    }
    if let Some(Value::Seq(sources)) = fields.get("sources") {
        for (i, s) in sources.iter().enumerate() {
            if !s.as_str().is_some_and(is_url) {
                report.push(
                    Severity::Error,
                    "Chart.yaml",
                    format!("sources[{i}]: is not an http(s) URL"),
                );
            }
        }
    }
    match fields.get("maintainers") {
        None | Some(Value::Null) => {}
        Some(Value::Seq(maintainers)) => {
            for (i, m) in maintainers.iter().enumerate() {
                let name = m
                    .as_map()
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str);
                if name.is_none_or(str::is_empty) {
                    report.push(
                        Severity::Error,
                        "Chart.yaml",
                        format!("maintainers[{i}]: name is required"),
                    );
                }
                if let Some(email) = m
                    .as_map()
                    .and_then(|m| m.get("email"))
                    .and_then(Value::as_str)
                {
                    if !email.contains('@') {
                        report.push(
                            Severity::Error,
                            "Chart.yaml",
                            format!("maintainers[{i}]: email {email:?} is not an address"),
                        );
                    }
                }
            }
        }
        Some(_) => report.push(Severity::Error, "Chart.yaml", "maintainers: must be a list"),
    }
    if chart.metadata.api_version == "v1" {
        for field in ["type", "dependencies"] {
            if fields.contains_key(field) {
                report.push(
                    Severity::Error,
                    "Chart.yaml",
                    format!("{field}: not valid in apiVersion \"v1\"; use \"v2\""),
                );
            }
        }
    }
}
