//! How an annotation's text becomes values: the parsers and setter builders the settings tables
//! are made of (ports, port lists, booleans, quantities, durations, words out of a list). Separate
//! from the tables so each table entry reads as one line of data.

use super::super::parse::{
    join_ports, parse_bool, parse_go_duration, parse_port, parse_port_list, parse_port_range,
    BOOL_ALLOWED, DURATION_ALLOWED, PORT_LIST_ALLOWED,
};
use super::super::quantity::{Quantity, QUANTITY_ALLOWED};
use super::super::report::Warning;
use super::super::workload::set_path;
use super::{Apply, PodFacts};
use crate::values::Value;

pub(super) const PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
pub(super) const LOG_FORMATS: &[&str] = &["plain", "json"];
pub(super) const AWAIT_VALUES: &[&str] = &["enabled", "disabled"];
pub(super) const INJECT_VALUES: &[&str] = &["enabled", "disabled", "ingress"];
/// The values of `config.linkerd.io/default-inbound-policy`.
pub(super) const INBOUND_POLICIES: &[&str] = &[
    "all-unauthenticated",
    "all-authenticated",
    "cluster-unauthenticated",
    "cluster-authenticated",
    "deny",
];

pub(super) fn one_of(allowed: &[&str]) -> String {
    allowed.join(", ")
}

pub(super) fn set(values: &mut Value, path: &str, value: Value) {
    let keys: Vec<&str> = path.split('.').collect();
    set_path(values, &keys, value);
}

pub(super) fn word(text: &str, what: &str) -> Result<(), String> {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        Err(format!("{what} (non-empty, without spaces)"))
    } else {
        Ok(())
    }
}

pub(super) fn image_tag(text: &str) -> Result<(), String> {
    let mut chars = text.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && text.len() <= 128;
    if ok {
        Ok(())
    } else {
        Err("an image tag (letters, digits, _, . and -, not starting with . or -)".into())
    }
}

pub(super) fn port_setter(
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let port = parse_port(text).ok_or_else(|| "a port number from 1 to 65535".to_owned())?;
        set(a.values, path, Value::Int(i64::from(port)));
        Ok(())
    }
}

pub(super) fn port_list(text: &str) -> Result<String, String> {
    parse_port_list(text)
        .map(|ranges| join_ports(&ranges))
        .map_err(|_| PORT_LIST_ALLOWED.to_owned())
}

pub(super) fn bool_setter(text: &str) -> Result<bool, String> {
    parse_bool(text).ok_or_else(|| BOOL_ALLOWED.to_owned())
}

pub(super) fn quantity(text: &str) -> Result<Quantity, String> {
    Quantity::parse(text).ok_or_else(|| QUANTITY_ALLOWED.to_owned())
}

pub(super) fn millis(text: &str) -> Result<String, String> {
    let nanos = parse_go_duration(text).ok_or_else(|| DURATION_ALLOWED.to_owned())?;
    Ok(format!("{}ms", nanos / 1_000_000))
}

/// A port list annotation (`opaque-ports`, `skip-inbound-ports`, `skip-outbound-ports`): ports,
/// ranges (kept as ranges) and names of the pod's container ports (turned into their numbers).
/// A name that no container port has is left out with a warning, as upstream logs it and keeps
/// the rest; anything else that is neither a port nor a name is an error.
fn ports_with_names(
    annotation: &'static str,
    text: &str,
    facts: &PodFacts,
    warnings: &mut Vec<Warning>,
) -> Result<String, String> {
    let allowed = || {
        let mut message = format!("{PORT_LIST_ALLOWED}, or names of the pod's container ports");
        if facts.named_ports().is_empty() {
            message.push_str(" (it has none)");
        } else {
            let names: Vec<&str> = facts
                .named_ports()
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            message.push_str(&format!(" ({})", names.join(", ")));
        }
        message
    };
    let trimmed = text.trim();
    let trimmed = trimmed.strip_suffix(',').unwrap_or(trimmed);
    if trimmed.trim().is_empty() {
        return Ok(String::new());
    }
    let mut out = Vec::new();
    for item in trimmed.split(',') {
        let item = item.trim();
        if let Some(port) = facts.port_named(item) {
            out.push(port.to_string());
        } else if let Some(range) = parse_port_range(item) {
            out.push(range.to_string());
        } else if is_port_name(item) {
            warnings.push(Warning::UnresolvedPortName {
                annotation,
                name: item.to_owned(),
            });
        } else {
            return Err(allowed());
        }
    }
    Ok(out.join(","))
}

/// Kubernetes' rule for a container port's name (IANA_SVC_NAME): 1 to 15 lowercase letters,
/// digits and single dashes, at least one letter, no dash at either end.
fn is_port_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=15).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.iter().any(u8::is_ascii_lowercase)
        && !text.starts_with('-')
        && !text.ends_with('-')
        && !text.contains("--")
}

/// The setter of a port list annotation that sets `path`.
pub(super) fn port_list_setter(
    annotation: &'static str,
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let ports = ports_with_names(annotation, text, a.facts, a.warnings)?;
        set(a.values, path, ports.into());
        Ok(())
    }
}

pub(super) fn one_of_setter(
    path: &'static str,
    allowed: &'static [&'static str],
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        if !allowed.contains(&text) {
            return Err(one_of(allowed));
        }
        set(a.values, path, text.into());
        Ok(())
    }
}

pub(super) fn bool_path_setter(
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        set(a.values, path, Value::Bool(bool_setter(text)?));
        Ok(())
    }
}

pub(super) fn quantity_setter(
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        set(a.values, path, quantity(text)?.canonical().into());
        Ok(())
    }
}

/// A duration in whole seconds (`90s`), as upstream writes the discovery cache timeouts.
pub(super) fn seconds_setter(
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let nanos = parse_go_duration(text).ok_or_else(|| DURATION_ALLOWED.to_owned())?;
        set(a.values, path, format!("{}s", nanos / 1_000_000_000).into());
        Ok(())
    }
}
