//! Annotations that look like configuration but that no setting reads: the report's warnings for
//! them, with the nearest known key. Separate because it only reads the tables, after the fact.

use super::super::report::Warning;
use super::settings::{CHART_KEYED_SETTINGS, SETTINGS};
use super::{Layers, Setting};

/// Every setting, each with whether it is one of [`CHART_KEYED_SETTINGS`], in the order they
/// are applied.
pub(super) fn all_settings() -> impl Iterator<Item = (&'static Setting, bool)> {
    SETTINGS
        .iter()
        .map(|s| (s, false))
        .chain(CHART_KEYED_SETTINGS.iter().map(|s| (s, true)))
}

/// The values key a setting is known by: the first path of its description.
pub(super) fn setting_values_key(setting: &Setting) -> Option<&'static str> {
    setting
        .values_key
        .split([',', ' '])
        .next()
        .filter(|k| k.contains('.'))
}

/// The prefixes of Linkerd's configuration annotations (`linkerd.io/inject` is not one).
pub(super) const CONFIG_PREFIXES: [&str; 3] = [
    "config.linkerd.io/",
    "config.alpha.linkerd.io/",
    "config.beta.linkerd.io/",
];

/// Configuration annotations upstream's injectors (edge-21.4.4 to edge-26.8.3,
/// `pkg/k8s/labels.go`) read that no setting here applies: warned about as such, not as
/// unknown.
const NOT_APPLIED: &[&str] = &[
    "config.linkerd.io/debug-image",
    "config.linkerd.io/debug-image-pull-policy",
    "config.linkerd.io/debug-image-version",
    "config.linkerd.io/proxy-additional-env",
];

/// Names upstream gives under the prefixes that are not settings of a pod: the namespace label
/// that exempts it from the webhooks, and the inbound ports upstream's injector records.
const NOT_SETTINGS: &[&str] = &[
    "config.linkerd.io/admission-webhooks",
    "config.linkerd.io/pod-inbound-ports",
];

/// The configuration annotations of `layers` that no setting has: each a warning naming the
/// closest annotation of a setting that `applies` to this chart (a misspelling, most often),
/// once per key whatever the layers that carry it.
pub(super) fn unknown_annotations(
    layers: &Layers<'_>,
    applies: &dyn Fn(&Setting, bool) -> bool,
) -> Vec<Warning> {
    let mut keys: Vec<&str> = [
        layers.namespace.map(|(_, a)| a),
        layers.workload,
        layers.pod,
    ]
    .into_iter()
    .flatten()
    .flat_map(|map| map.keys().map(String::as_str))
    .filter(|key| CONFIG_PREFIXES.iter().any(|p| key.starts_with(p)))
    .collect();
    keys.sort_unstable();
    keys.dedup();
    let known = |key: &str| {
        all_settings().any(|(s, _)| s.key == key || s.aliases.contains(&key))
            || NOT_SETTINGS.contains(&key)
    };
    let mut warnings = Vec::new();
    for key in keys {
        if known(key) {
            continue;
        }
        if let Some(annotation) = NOT_APPLIED.iter().find(|a| **a == key) {
            warnings.push(Warning::NotApplied { annotation });
            continue;
        }
        warnings.push(Warning::UnknownAnnotation {
            annotation: key.to_owned(),
            nearest: nearest_annotation(key, applies),
        });
    }
    warnings
}

/// The annotation of an applicable setting closest to `key`: by the edit distance of the name
/// after the prefix, plus one when the prefix differs (`config.alpha.linkerd.io/proxy-await`
/// is one from `config.linkerd.io/proxy-await`); within a third of the name's length.
fn nearest_annotation(key: &str, applies: &dyn Fn(&Setting, bool) -> bool) -> Option<&'static str> {
    let split = |k: &str| {
        let prefix = CONFIG_PREFIXES
            .iter()
            .find(|p| k.starts_with(*p))
            .copied()
            .unwrap_or_default();
        (prefix, k[prefix.len()..].to_owned())
    };
    let (prefix, name) = split(key);
    let limit = (name.chars().count() / 3).max(1);
    all_settings()
        .filter(|(s, keyed)| applies(s, *keyed))
        .flat_map(|(s, _)| std::iter::once(s.key).chain(s.aliases.iter().copied()))
        .map(|candidate| {
            let (their_prefix, their_name) = split(candidate);
            let distance = crate::values::edit_distance(&name, &their_name)
                + usize::from(their_prefix != prefix);
            (distance, candidate)
        })
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}
