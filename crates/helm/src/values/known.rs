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
    candidates: std::cell::OnceCell<Candidates>,
}

/// The key paths a chart knows, in order, with what the suggestion search asks of each: kept
/// once, not worked out again for each of a million unknown keys.
struct Candidates {
    paths: Vec<Vec<String>>,
    /// Each path dotted (`proxy.await`), as characters.
    dotted: Vec<Vec<char>>,
    /// The last key of each path, as characters.
    last: Vec<Vec<char>>,
    /// The paths by their parent's path (`["proxy"]` for `proxy.await`), as indices.
    by_parent: std::collections::HashMap<Vec<String>, Vec<usize>>,
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

    fn candidates(&self) -> &Candidates {
        self.candidates.get_or_init(|| {
            let mut paths = super::schema::default_key_paths(self.defaults);
            if let Some(s) = self.schema {
                paths.extend(super::schema::schema_key_paths(s));
            }
            paths.sort();
            paths.dedup();
            let dotted = paths
                .iter()
                .map(|c| c.join(".").chars().collect())
                .collect();
            let last = paths
                .iter()
                .map(|c| c.last().map_or_else(Vec::new, |k| k.chars().collect()))
                .collect();
            let mut by_parent: std::collections::HashMap<Vec<String>, Vec<usize>> =
                std::collections::HashMap::new();
            for (i, c) in paths.iter().enumerate() {
                if let Some((_, parent)) = c.split_last() {
                    by_parent.entry(parent.to_vec()).or_default().push(i);
                }
            }
            Candidates {
                paths,
                dotted,
                last,
                by_parent,
            }
        })
    }

    /// The indices of the known paths with the same parent as `unknown` (and so its length),
    /// in order.
    fn beside(&self, unknown: &[String]) -> &[usize] {
        unknown
            .split_last()
            .and_then(|(_, parent)| self.candidates().by_parent.get(parent))
            .map_or(&[][..], Vec::as_slice)
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
        let paths = &self.candidates().paths;
        self.beside(unknown)
            .iter()
            .map(|&i| paths[i][paths[i].len() - 1].clone())
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
        let (last, _) = unknown.split_last()?;
        let candidates = self.candidates();
        let last: Vec<char> = last.chars().collect();
        let most = (last.len() / 3).max(1);
        // Two texts whose lengths differ by more than `most` are more than `most` edits apart:
        // the distance is worked out only for keys of a length within reach.
        let sibling = self
            .beside(unknown)
            .iter()
            .filter(|&&i| candidates.last[i].len().abs_diff(last.len()) <= most)
            .map(|&i| {
                (
                    char_distance(&last, &candidates.last[i]),
                    &candidates.paths[i],
                )
            })
            .filter(|(d, _)| *d <= most)
            .min();
        if let Some((_, c)) = sibling {
            return Some(c.join("."));
        }
        let dotted: Vec<char> = unknown.join(".").chars().collect();
        candidates
            .paths
            .iter()
            .zip(&candidates.dotted)
            .filter(|(_, text)| text.len().abs_diff(dotted.len()) <= 2)
            .map(|(c, text)| (char_distance(&dotted, text), c))
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
    char_distance(&a, &b)
}

/// [`edit_distance`] of texts already split into characters. The table is kept three rows at
/// a time (a swap looks two rows back), on the stack for keys of up to 63 characters: the
/// search for a suggestion runs it for every known key of a close length, for each of maybe a
/// million unknown keys.
fn char_distance(a: &[char], b: &[char]) -> usize {
    const ON_STACK: usize = 64;
    let width = b.len() + 1;
    let mut stack = [0usize; 3 * ON_STACK];
    let mut heap = Vec::new();
    let rows: &mut [usize] = if width <= ON_STACK {
        &mut stack[..3 * width]
    } else {
        heap.resize(3 * width, 0);
        &mut heap
    };
    // Row i of the table is at (i % 3) * width. Plain loops and comparisons: this crate is
    // built at opt-level 1 for release, where `min` and range iterators stay calls.
    let mut j = 0;
    while j < width {
        rows[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        let current = (i % 3) * width;
        let previous = ((i - 1) % 3) * width;
        // Two rows back is the row three ahead, modulo three.
        let before = ((i + 1) % 3) * width;
        rows[current] = i;
        let mut j = 1;
        while j < width {
            let substitution = rows[previous + j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = rows[previous + j] + 1;
            if rows[current + j - 1] + 1 < best {
                best = rows[current + j - 1] + 1;
            }
            if substitution < best {
                best = substitution;
            }
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                let swap = rows[before + j - 2] + 1;
                if swap < best {
                    best = swap;
                }
            }
            rows[current + j] = best;
            j += 1;
        }
        i += 1;
    }
    rows[(a.len() % 3) * width + b.len()]
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
    fn keys_longer_than_the_stack_table_are_measured_alike() {
        let long = "a".repeat(70) + "bc";
        let swapped = "a".repeat(70) + "cb";
        assert_eq!(edit_distance(&long, &swapped), 1);
        assert_eq!(edit_distance(&long, "abc"), 69);
        assert_eq!(edit_distance("ca", "abc"), 3);
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
