//! Unknown keys in user values, and "did you mean" suggestions by edit distance.
//!
//! A user key is known when the chart's defaults have it, or its `values.schema.json` declares
//! it under `properties`. Below an empty map, a list, a null or a scalar default the chart
//! leaves the shape open (`podAnnotations: {}` takes any key), and so does a schema level with
//! `additionalProperties` or `patternProperties`, and so does every Kubernetes map whose keys
//! are the user's by nature: node selectors, tolerations, labels and annotations (see
//! [`is_free_form`]), whatever the defaults or the schema list under them.

use crate::values::Value;
use serde_json::Value as Json;

/// The keys a chart knows.
pub struct KnownKeys<'a> {
    defaults: &'a Value,
    schema: Option<&'a Json>,
    /// Every key path, gathered on the first suggestion: a render checks every set of values,
    /// and most have no unknown key to suggest for.
    candidates: std::cell::OnceCell<Vec<Vec<String>>>,
}

impl<'a> KnownKeys<'a> {
    /// From the chart's defaults and its schema, if any.
    pub fn new(defaults: &'a Value, schema: Option<&'a Json>) -> Self {
        KnownKeys {
            defaults,
            schema,
            candidates: std::cell::OnceCell::new(),
        }
    }

    fn candidates(&self) -> &[Vec<String>] {
        self.candidates.get_or_init(|| {
            let mut candidates = super::schema::default_key_paths(self.defaults);
            if let Some(s) = self.schema {
                candidates.extend(super::schema::schema_key_paths(s));
            }
            candidates.sort();
            candidates.dedup();
            candidates
        })
    }

    /// The first key of `path` the chart does not know, as a prefix of `path`; `None` when the
    /// whole path is known or open.
    pub fn unknown_prefix(&self, path: &[String]) -> Option<Vec<String>> {
        let mut default = Some(self.defaults);
        let mut schema = self.schema;
        for (depth, key) in path.iter().enumerate() {
            if depth > 0 && is_free_form(&path[depth - 1]) {
                return None;
            }
            let schema_props = schema
                .and_then(|s| s.get("properties"))
                .and_then(Json::as_object);
            let schema_open = schema.is_some_and(|s| {
                s.get("patternProperties").is_some()
                    || s.get("additionalProperties")
                        .is_some_and(|a| a != &Json::Bool(false))
            });
            let default_map = match default {
                Some(Value::Map(m)) if !m.is_empty() => Some(m),
                // A scalar, list, null or empty map default: the shape is the user's.
                Some(_) => return None,
                None => None,
            };
            if default_map.is_none() && schema_props.is_none() {
                return None;
            }
            let in_defaults = default_map.and_then(|m| m.get(key));
            let in_schema = schema_props.and_then(|p| p.get(key));
            if in_defaults.is_none() && in_schema.is_none() {
                if schema_open {
                    return None;
                }
                return Some(path[..=depth].to_vec());
            }
            default = in_defaults;
            schema = in_schema;
            if default.is_none() && schema.is_none() {
                return None;
            }
        }
        None
    }

    /// The keys the chart knows beside `unknown` (same parent), in order: what a user who
    /// misplaced a key can choose from when no key is close to it.
    pub fn siblings(&self, unknown: &[String]) -> Vec<String> {
        let Some((_, parent)) = unknown.split_last() else {
            return Vec::new();
        };
        self.candidates()
            .iter()
            .filter(|c| c.len() == unknown.len() && c[..c.len() - 1] == *parent)
            .map(|c| c[c.len() - 1].clone())
            .collect()
    }

    /// Whether the chart's schema closes the map holding the last key of `path`
    /// (`additionalProperties: false` there): only then is a key it does not know an error.
    pub fn closed_at(&self, path: &[String]) -> bool {
        let Some((_, parents)) = path.split_last() else {
            return false;
        };
        let mut schema = self.schema;
        for key in parents {
            schema = schema
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(key));
        }
        schema.and_then(|s| s.get("additionalProperties")) == Some(&Json::Bool(false))
    }

    /// The known key closest to `unknown` (a path ending at the unknown key): same parent and
    /// a close last key first, else any key path within two edits of the whole dotted path.
    pub fn suggest(&self, unknown: &[String]) -> Option<String> {
        let (last, parent) = unknown.split_last()?;
        let close_enough = |d: usize, len: usize| d <= (len / 3).max(1);
        let sibling = self
            .candidates()
            .iter()
            .filter(|c| c.len() == unknown.len() && c[..c.len() - 1] == *parent)
            .map(|c| (edit_distance(last, &c[c.len() - 1]), c))
            .filter(|(d, _)| close_enough(*d, last.chars().count()))
            .min();
        if let Some((_, c)) = sibling {
            return Some(c.join("."));
        }
        let dotted = unknown.join(".");
        self.candidates()
            .iter()
            .map(|c| (edit_distance(&dotted, &c.join(".")), c))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, c)| c.join("."))
    }
}

/// Whether the map under `key` takes any key: Kubernetes' `nodeSelector` and `tolerations`, and
/// labels and annotations (`labels`, `podLabels`, `podAnnotations`, ...), whose keys are the
/// user's own (`nodeSelector.beta.kubernetes.io/os` is as valid as `kubernetes.io/os`).
pub fn is_free_form(key: &str) -> bool {
    matches!(
        key,
        "nodeSelector" | "tolerations" | "labels" | "annotations"
    ) || key.ends_with("Labels")
        || key.ends_with("Annotations")
        || key.ends_with("NodeSelector")
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring characters each cost one (`awiat` → `await` is one swap).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_document;
    use serde_json::json;

    fn p(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_owned).collect()
    }

    const DEFAULTS: &str =
        "proxy:\n  await: true\n  image: {name: x}\npodAnnotations: {}\nports: [1]\n";

    #[test]
    fn a_swapped_pair_of_letters_is_one_edit() {
        assert_eq!(edit_distance("awiat", "await"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_misspelt_key_is_unknown_and_the_right_one_suggested() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let known = KnownKeys::new(&defaults, None);
        let unknown = known.unknown_prefix(&p("proxy.awiat")).unwrap();
        assert_eq!(unknown, p("proxy.awiat"));
        assert_eq!(known.suggest(&unknown).as_deref(), Some("proxy.await"));
    }

    #[test]
    fn a_misspelt_parent_is_reported_at_the_parent() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let known = KnownKeys::new(&defaults, None);
        let unknown = known.unknown_prefix(&p("proxx.await")).unwrap();
        assert_eq!(unknown, p("proxx"));
        assert_eq!(known.suggest(&unknown).as_deref(), Some("proxy"));
    }

    #[test]
    fn empty_maps_lists_and_scalars_leave_the_shape_open() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let known = KnownKeys::new(&defaults, None);
        assert_eq!(known.unknown_prefix(&p("podAnnotations.anything")), None);
        assert_eq!(known.unknown_prefix(&p("ports.0")), None);
        assert_eq!(known.unknown_prefix(&p("proxy.await.x")), None);
    }

    #[test]
    fn schema_properties_make_keys_known() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let schema =
            json!({"properties": {"proxy": {"properties": {"isGateway": {"type": "boolean"}}}}});
        let known = KnownKeys::new(&defaults, Some(&schema));
        assert_eq!(known.unknown_prefix(&p("proxy.isGateway")), None);
        assert_eq!(
            known.suggest(&p("proxy.isGatewy")).as_deref(),
            Some("proxy.isGateway")
        );
    }

    #[test]
    fn keys_under_node_selectors_labels_and_annotations_are_never_unknown() {
        let defaults =
            parse_document("nodeSelector: {kubernetes.io/os: linux}\npodLabels: {a: b}\n").unwrap();
        let schema =
            json!({"properties": {"nodeSelector": {"properties": {"kubernetes.io/os": {}}}}});
        let known = KnownKeys::new(&defaults, Some(&schema));
        for key in ["nodeSelector.beta.kubernetes.io/os", "podLabels.team"] {
            assert_eq!(known.unknown_prefix(&p(key)), None, "{key}");
        }
        assert_eq!(
            known.unknown_prefix(&p("nodeSelectr.x")),
            Some(p("nodeSelectr"))
        );
    }

    #[test]
    fn only_a_schema_with_additional_properties_false_closes_a_map() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let schema = json!({"properties": {"proxy": {"additionalProperties": false}}});
        let known = KnownKeys::new(&defaults, Some(&schema));
        assert!(known.closed_at(&p("proxy.awiat")));
        assert!(!known.closed_at(&p("proxx")));
        assert!(!KnownKeys::new(&defaults, None).closed_at(&p("proxy.awiat")));
    }

    #[test]
    fn nothing_close_means_no_suggestion() {
        let defaults = parse_document(DEFAULTS).unwrap();
        let known = KnownKeys::new(&defaults, None);
        assert_eq!(known.suggest(&p("totally.different")), None);
    }
}
