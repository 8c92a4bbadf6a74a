//! The values a render uses: the chart's defaults under the user's files and flags, with
//! the release namespace; the keys the chart does not read; and what `meshchart values` prints.

use super::*;

/// The values a render uses: chart defaults, then the user's flags, as Helm merges them, then
/// any identity material the chart asks for and the values lack.
pub fn values_for(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<(Value, Vec<String>), Error> {
    values_with_kept(chart, request, stdin, clock, KeptFiles::new())
}

/// [`values_for`], taking files named in `kept` from there instead of reading them.
pub(super) fn values_with_kept(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
    kept: KeptFiles,
) -> Result<(Value, Vec<String>), Error> {
    let defaults = chart.default_values_read()?;
    let mut notes = Vec::new();
    let mut user = user_values_noting(request.overrides(), stdin, kept, &mut notes)?;
    // The 2021 line's `namespace` value is our Jinja charts' habit; a Go chart's values are
    // Helm's, untouched by -n.
    if !meshchart_helm::gotpl::is_go_template_chart(chart) {
        if let Some(note) = namespace_value(defaults, request, &mut user) {
            notes.push(note);
        }
    }
    let schema = match chart.file(SCHEMA_FILE) {
        Some(file) => Some(
            SchemaCheck::remembered(&file.text)
                .map_err(|reason| Error::Usage(format!("{}: {reason}", file.path)))?,
        ),
        None => None,
    };
    notes.extend(unknown_keys(
        chart,
        defaults,
        schema.as_deref(),
        &user,
        request.strict,
    )?);
    let values = coalesce(defaults, user, &mut notes);
    if let Some(schema) = schema.as_ref().filter(|_| !request.skip_schema_validation) {
        let violations = schema.check(&values);
        if !violations.is_empty() {
            return Err(ValuesError::Schema {
                chart: chart.metadata.name.clone(),
                violations,
            }
            .into());
        }
    }
    let mut values = values;
    notes.extend(complete_chart_material(chart, &mut values, request, clock)?);
    Ok((values, notes))
}

/// Sets the 2021 line's `namespace` value from `-n`: its chart puts every resource in the
/// `namespace` value (default `linkerd`), not in the release namespace, so `-n` alone would
/// change nothing. Only when `-n` was given, the chart's defaults have a top-level `namespace`
/// and the user's values do not set it; when they set another, they win, and the note says so.
fn namespace_value(defaults: &Value, request: &RenderRequest, user: &mut Value) -> Option<String> {
    let declared = matches!(defaults, Value::Map(map) if map.contains_key("namespace"));
    if !request.namespace_given || !declared {
        return None;
    }
    let Value::Map(map) = user else {
        return None;
    };
    match map.get("namespace") {
        None | Some(Value::Null) => {
            map.insert(
                "namespace".to_owned(),
                Value::String(request.namespace.clone()),
            );
            None
        }
        Some(given) if given.as_str() == Some(request.namespace.as_str()) => None,
        Some(given) => Some(format!(
            "warning: the values set namespace to {}, which this chart puts its resources in; \
             -n {} only names the release",
            crate::yaml::to_json(given),
            request.namespace
        )),
    }
}

/// Warnings for the keys of the user's values that the chart does not read (not in its
/// defaults, not declared by its schema; see [`crate::values::KnownKeys`]; for a Go chart,
/// not named by its templates either), each naming the nearest key it knows; with `strict`,
/// the same keys are an error. Helm's `global` is every chart's.
fn unknown_keys(
    chart: &Chart,
    defaults: &Value,
    schema: Option<&SchemaCheck>,
    user: &Value,
    strict: bool,
) -> Result<Vec<String>, Error> {
    let known = KnownKeys::new(defaults, schema.map(SchemaCheck::schema));
    let mut unknown: Vec<Vec<String>> = Vec::new();
    let mut path = Vec::new();
    collect_unknown(&known, user, &mut path, &mut unknown);
    unknown.dedup();
    // A Go chart reads keys its values.yaml leaves out, and Helm takes any key: one its
    // templates name, or a subchart's section, is not unknown.
    if !unknown.is_empty() && meshchart_helm::gotpl::is_go_template_chart(chart) {
        let read = meshchart_helm::gotpl::keys_templates_mention(chart);
        let sections = meshchart_helm::gotpl::subchart_sections(chart);
        unknown.retain(|keys| {
            let read_by_a_template = keys.last().is_some_and(|k| read.contains(k));
            let in_a_subcharts_section = keys.first().is_some_and(|k| sections.contains(k));
            !read_by_a_template && !in_a_subcharts_section
        });
    }
    let found: Vec<String> = unknown
        .iter()
        .map(|keys| {
            let hint = match known.suggest(keys) {
                Some(near) => format!(" (did you mean {near}?)"),
                None => String::new(),
            };
            format!("{}{hint}", keys.join("."))
        })
        .collect();
    let reader = match &chart.metadata.app_version {
        Some(release) => format!("{} {release}", chart.metadata.name),
        None => chart.metadata.name.clone(),
    };
    if strict && !found.is_empty() {
        return Err(ValuesError::UnknownKeys {
            chart: reader,
            keys: found,
        }
        .into());
    }
    Ok(found
        .into_iter()
        .map(|key| format!("warning: unknown key {key}: {reader} does not read it"))
        .collect())
}

/// The first unknown key on each path of `value` (depth first, in key order).
fn collect_unknown(
    known: &KnownKeys<'_>,
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    let Value::Map(map) = value else {
        return;
    };
    for (key, child) in map {
        if path.is_empty() && key == "global" {
            continue;
        }
        path.push(key.clone());
        match known.unknown_prefix(path) {
            Some(unknown) => out.push(unknown),
            None => collect_unknown(known, child, path, out),
        }
        path.pop();
    }
}

/// What `meshchart values` prints: the effective values as `toYaml` writes them, each leaf
/// annotated with its origin when `explain` is set; and the coalescing warnings.
pub fn show_values(
    chart: &Chart,
    overrides: &crate::values::ValueOverrides,
    explain: bool,
    stdin: &mut dyn Read,
) -> Result<(String, Vec<String>), Error> {
    use crate::values::{annotate, explain as explain_values, DefaultsFile};
    let defaults = chart.default_values()?;
    let to_yaml = |values: &Value| {
        crate::yaml::try_to_yaml(values)
            .map(|yaml| yaml + "\n")
            .map_err(|e| Error::Usage(format!("the values cannot be printed as YAML: {e}")))
    };
    let duplicate = chart
        .duplicate_default_key()
        .map(|duplicate| format!("warning: {duplicate}"));
    if !explain {
        // Where each value came from is not shown: not worked out either (it costs several
        // times the values' own memory).
        let (values, warnings) = crate::values::effective_values(&defaults, overrides, stdin)?;
        return Ok((
            to_yaml(&values)?,
            duplicate.into_iter().chain(warnings).collect(),
        ));
    }
    // An embedded chart's defaults file is meshchart's, not one the user can open: its values
    // are named by the chart and release the user chose, the key being on the line.
    let embedded = crate::releases::embedded_release_of(chart)
        .map(|release| format!("default of {} {release}", chart.metadata.name));
    let file = match embedded {
        Some(_) => None,
        None => chart.default_values.as_ref().map(|f| DefaultsFile {
            name: &f.path,
            text: &f.text,
        }),
    };
    let mut explained = explain_values(file, &defaults, overrides, stdin)?;
    // The files' texts serve lint; here they would only add to the peak.
    explained.files = Vec::new();
    let yaml = to_yaml(&explained.values)?;
    let annotated = annotate(&yaml, |path| {
        let origin = explained.origin_of(path)?;
        Some(match &embedded {
            Some(label) if origin == crate::values::CHART_DEFAULTS => label.clone(),
            _ => origin,
        })
    });
    Ok((
        annotated,
        duplicate.into_iter().chain(explained.warnings).collect(),
    ))
}
