//! Lint's checks of the values: YAML 1.1 booleans, unknown keys with a "did you mean", types
//! against the defaults or the schema, each naming where the value came from.

use super::report::{Reporter, Severity};
use super::{schema, yaml11};
use crate::chart::Chart;
use crate::render::RenderRequest;
use crate::values::Value;
use crate::values::{explain, DefaultsFile};
use std::io::Read;

/// The source of a value's origin: `prod.yaml` for `prod.yaml:12`, flags as they are.
fn source_of(origin: &str) -> &str {
    match origin.rsplit_once(':') {
        Some((file, line))
            if !origin.starts_with("--") && line.bytes().all(|b| b.is_ascii_digit()) =>
        {
            file
        }
        _ => origin,
    }
}

/// Checks values; returns the effective values when they could be built.
pub(super) fn check_values(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    report: &mut Reporter<'_>,
) -> Option<Value> {
    let overrides = request.overrides();
    let defaults = match chart.default_values() {
        Ok(v) => v,
        Err(e) => {
            report.push(Severity::Error, "values", e.to_string());
            return None;
        }
    };
    if let Some(duplicate) = chart.duplicate_default_key() {
        let (location, message) = duplicate.split_once(": ").unwrap_or(("values", &duplicate));
        report.push(Severity::Error, location, message);
    }
    let defaults_file = chart.default_values.as_ref().map(|f| DefaultsFile {
        name: &f.path,
        text: &f.text,
    });
    // Each values file is read once, by `explain`; its kept text serves the checks below.
    let explained = explain(defaults_file, &defaults, overrides, stdin);
    // YAML 1.1 booleans in the chart's defaults and in each values file.
    let mut texts: Vec<(&str, &str)> = Vec::new();
    if let Some(file) = &chart.default_values {
        texts.push((&file.path, &file.text));
    }
    if let Ok(explained) = &explained {
        texts.extend(
            explained
                .files
                .iter()
                .map(|f| (f.name.as_str(), f.text.as_str())),
        );
    }
    for (name, text) in texts {
        for found in yaml11::find(text) {
            report.push(
                Severity::Warning,
                format!("{name}:{}", found.line),
                found.describe(),
            );
        }
    }
    let explained = match explained {
        Ok(e) => e,
        Err(e) => {
            report.push(Severity::Error, "values", e.to_string());
            return None;
        }
    };
    for warning in &explained.warnings {
        let warning = warning.strip_prefix("warning: ").unwrap_or(warning);
        report.push(Severity::Warning, "values", warning.to_owned());
    }
    let schema_file = chart.file(schema::SCHEMA_FILE);
    let schema_json =
        schema_file.and_then(|f| serde_json::from_str::<serde_json::Value>(&f.text).ok());
    let known = crate::values::KnownKeys::new(&defaults, schema_json.as_ref());
    // One report per unknown key and source (a file's thousand leaves under one unknown key
    // are one mistake), so the suggestion search runs once per key, not once per leaf. The
    // paths come in order, so those under one unknown key come together: only the sources of
    // the current one are remembered.
    let mut reported: (Vec<String>, std::collections::BTreeSet<String>) = Default::default();
    for (path, origin) in explained.user_origins() {
        if let Some(unknown) = known.unknown_prefix(&path) {
            if reported.0 != unknown {
                reported = (unknown.clone(), Default::default());
            }
            if !reported.1.insert(source_of(&origin).to_owned()) {
                continue;
            }
            let hint = match known.suggest(&unknown) {
                Some(s) => format!(" (did you mean {s}?)"),
                None => {
                    // Nothing close: the keys the chart knows there are the nearest ones.
                    let siblings = known.siblings(&unknown);
                    let shown: Vec<&str> = siblings.iter().take(6).map(String::as_str).collect();
                    match shown.len() {
                        0 => String::new(),
                        n if n < siblings.len() => {
                            format!(" (the chart has {}, ...)", shown.join(", "))
                        }
                        _ => format!(" (the chart has {})", shown.join(", ")),
                    }
                }
            };
            // Maps are open unless the schema closes them: a key the defaults lack may be one
            // the templates read all the same (`resources.limits.cpu` beside a default memory).
            let (severity, why) = if known.closed_at(&unknown) {
                (Severity::Error, "the schema allows no other key there")
            } else {
                (Severity::Warning, "the chart's defaults do not have it")
            };
            report.push(
                severity,
                origin,
                format!("unknown key {}: {why}{hint}", unknown.join(".")),
            );
        }
    }
    if schema_file.is_none() {
        for (path, origin) in explained.user_origins() {
            if let Some(warning) = type_mismatch(&defaults, &explained.values, &path) {
                report.push(Severity::Warning, origin, warning);
            }
        }
    }
    if let Some(file) = schema_file {
        match schema::validate(&file.text, &explained.values) {
            Err(reason) => report.push(Severity::Error, file.path.clone(), reason),
            Ok(violations) => {
                for v in violations {
                    let from = explained
                        .first_origin_under(&v.path)
                        .map(|o| format!(" (from {o})"))
                        .unwrap_or_default();
                    report.push(Severity::Error, "values", format!("{}{from}", v.describe()));
                }
            }
        }
    }
    Some(explained.values)
}

/// Go's name for the kind of a value, for a message.
fn type_word(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) | Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a map",
    })
}

/// Without a schema, the chart's defaults are all it says about types: a user value of another
/// kind than the default at its path (`enabled: "false"` where the default is `false`) is worth
/// a warning; `None` when they agree or either is null.
fn type_mismatch(defaults: &Value, values: &Value, path: &[String]) -> Option<String> {
    let default = defaults.get_path(path)?;
    let value = values.get_path(path)?;
    let (want, got) = (type_word(default)?, type_word(value)?);
    if want == got {
        return None;
    }
    let shown = |v: &Value| match v {
        Value::String(s) => format!("{s:?}"),
        Value::Seq(_) | Value::Map(_) => String::new(),
        other => crate::yaml::to_json(other),
    };
    let with = |v: &Value| match shown(v) {
        text if text.is_empty() => String::new(),
        text => format!(" ({text})"),
    };
    Some(format!(
        "{} is {got}{}, but the chart's default is {want}{}: a template testing or computing \
         with it may not do what you mean",
        path.join("."),
        with(value),
        with(default)
    ))
}
