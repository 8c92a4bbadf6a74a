//! Template outputs remembered across the renders of a fleet.
//!
//! A fleet's clusters differ in a few values, and most templates read none of them: the CRDs,
//! most RBAC, the webhook configurations. While a template renders, its `Values` notes which
//! top-level keys it reads; a later render whose values hold the same thing under each of
//! those keys (and the same release, chart and capabilities) gets the output remembered, not a
//! new render. A template that reads the values whole (iterates them, passes them to a
//! function such as `toYaml` or `mergeOverwrite`) is rendered every time from then on, without
//! the notes. Every function a template can call depends on its arguments only (the clock,
//! randomness and the cluster are refused: `functions::offline`), so the same reads give the
//! same output.

use super::context::KubeVersion;
use super::{RenderOptions, RenderedDocument};
use crate::values::Value;
use minijinja::value::{Enumerator, Object, ObjectExt, Value as JValue, ValueKind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

/// How much document text is remembered at most, all templates together.
const KEPT_BYTES: usize = 8 << 20;
/// How many outputs are remembered per template (for templates whose reads differ by cluster).
const KEPT_PER_TEMPLATE: usize = 4;

/// A render's top-level values as template values, sorted by key.
#[derive(Debug)]
pub struct TopLevel {
    entries: Vec<(JValue, JValue)>,
}

impl TopLevel {
    /// The top level of `values`; `None` when they are not a map.
    pub fn of(values: &Value, to_jinja: impl Fn(&Value) -> JValue) -> Option<Arc<TopLevel>> {
        let Value::Map(map) = values else {
            return None;
        };
        Some(Arc::new(TopLevel {
            entries: map
                .iter()
                .map(|(key, value)| (JValue::from(key.as_str()), to_jinja(value)))
                .collect(),
        }))
    }

    /// The plain `Values` map the templates see when nothing is noted.
    pub fn plain(&self) -> JValue {
        JValue::from_pairs(self.entries.iter().cloned())
    }

    fn find(&self, key: &str) -> Option<&JValue> {
        self.entries
            .binary_search_by(|(k, _)| k.as_str().unwrap_or_default().cmp(key))
            .ok()
            .map(|at| &self.entries[at].1)
    }
}

/// What one render read of its `Values`.
#[derive(Debug, Default)]
struct Reads {
    keys: Vec<Box<str>>,
    whole: bool,
}

/// `Values` as one template render sees it: the same map, noting the keys looked up.
#[derive(Debug)]
struct NotingReads {
    top: Arc<TopLevel>,
    reads: Mutex<Reads>,
}

impl NotingReads {
    fn note(&self, change: impl FnOnce(&mut Reads)) {
        change(&mut self.reads.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

impl Object for NotingReads {
    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        // Keys are strings: any other key finds nothing, whatever the values hold.
        self.get_value_by_str(key.as_str()?)
    }

    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<JValue> {
        self.note(|reads| reads.keys.push(key.into()));
        self.top.find(key).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.note(|reads| reads.whole = true);
        self.mapped_rev_key_value_enumerator(|this| Box::new(this.top.entries.iter().cloned()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.note(|reads| reads.whole = true);
        Some(self.top.entries.len())
    }
}

/// A template value that notes the keys read, and how to get the notes back.
pub struct Noted {
    /// The `Values` to give the template.
    pub values: JValue,
    noting: Arc<NotingReads>,
}

/// What a render's templates see besides `Values` (these must match too).
#[derive(Clone, Debug, PartialEq)]
struct OtherObjects {
    release_name: String,
    namespace: String,
    is_upgrade: bool,
    kube_version: KubeVersion,
    api_versions: Vec<String>,
}

impl OtherObjects {
    fn of(opts: &RenderOptions) -> Self {
        OtherObjects {
            release_name: opts.release_name.clone(),
            namespace: opts.namespace.clone(),
            is_upgrade: opts.is_upgrade,
            kube_version: opts.kube_version.clone(),
            api_versions: opts.api_versions.clone(),
        }
    }
}

/// One template's output with what it read.
struct Remembered {
    reads: Vec<(Box<str>, Option<JValue>)>,
    outcome: (u64, Vec<RenderedDocument>),
}

/// Outputs remembered per template (by the engine's template index).
pub struct RememberedRenders {
    outputs: Vec<RwLock<Vec<Remembered>>>,
    reads_whole: Vec<AtomicBool>,
    objects: OnceLock<OtherObjects>,
    kept_bytes: AtomicUsize,
}

impl RememberedRenders {
    /// Room for `templates` templates.
    pub fn new(templates: usize) -> Self {
        RememberedRenders {
            outputs: (0..templates).map(|_| RwLock::default()).collect(),
            reads_whole: (0..templates).map(|_| AtomicBool::new(false)).collect(),
            objects: OnceLock::new(),
            kept_bytes: AtomicUsize::new(0),
        }
    }

    /// Whether renders with `opts` may use what was remembered: the first render's release,
    /// chart and capabilities are the only ones remembered for.
    pub fn serves(&self, opts: &RenderOptions) -> bool {
        let objects = OtherObjects::of(opts);
        *self.objects.get_or_init(|| objects.clone()) == objects
    }

    /// The output remembered for `template` under values whose top level is `top`.
    pub fn recall(&self, template: usize, top: &TopLevel) -> Option<(u64, Vec<RenderedDocument>)> {
        let outputs = self
            .outputs
            .get(template)?
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        outputs
            .iter()
            .find(|kept| {
                kept.reads
                    .iter()
                    .all(|(key, value)| match (top.find(key), value) {
                        (Some(now), Some(then)) => identical(now, then),
                        (None, None) => true,
                        _ => false,
                    })
            })
            .map(|kept| kept.outcome.clone())
    }

    /// `Values` for a render of `template` that notes its reads; `None` when the template was
    /// seen reading the values whole.
    pub fn noting(&self, template: usize, top: &Arc<TopLevel>) -> Option<Noted> {
        if self.reads_whole.get(template)?.load(Ordering::Relaxed) {
            return None;
        }
        let values = JValue::from_object(NotingReads {
            top: top.clone(),
            reads: Mutex::default(),
        });
        let noting = values.downcast_object::<NotingReads>()?;
        Some(Noted { values, noting })
    }

    /// Remembers `outcome`, the output of `template` rendered with `noted`.
    pub fn remember(&self, template: usize, noted: Noted, outcome: &(u64, Vec<RenderedDocument>)) {
        let reads = std::mem::take(
            &mut *noted
                .noting
                .reads
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        if reads.whole {
            if let Some(flag) = self.reads_whole.get(template) {
                flag.store(true, Ordering::Relaxed);
            }
            return;
        }
        let Some(slot) = self.outputs.get(template) else {
            return;
        };
        let mut keys = reads.keys;
        keys.sort_unstable();
        keys.dedup();
        let size: usize = outcome.1.iter().map(|doc| doc.text.len()).sum();
        let mut outputs = slot.write().unwrap_or_else(PoisonError::into_inner);
        if outputs.len() >= KEPT_PER_TEMPLATE
            || self.kept_bytes.fetch_add(size, Ordering::Relaxed) + size > KEPT_BYTES
        {
            return;
        }
        let top = &noted.noting.top;
        outputs.push(Remembered {
            reads: keys
                .into_iter()
                .map(|key| {
                    let value = top.find(&key).cloned();
                    (key, value)
                })
                .collect(),
            outcome: outcome.clone(),
        });
    }
}

/// Whether two template values are the same data: same kinds, integers apart from floats,
/// floats bit for bit, strings with the same safety. Looser equality (`1 == 1.0 == true`)
/// would hand a render another value's output.
fn identical(a: &JValue, b: &JValue) -> bool {
    if a.kind() != b.kind() {
        return false;
    }
    match a.kind() {
        ValueKind::Undefined | ValueKind::None => true,
        ValueKind::Bool => a.is_true() == b.is_true(),
        ValueKind::Number => match (a.is_integer(), b.is_integer()) {
            (true, true) => a.to_string() == b.to_string(),
            (false, false) => {
                let bits = |v: &JValue| f64::try_from(v.clone()).ok().map(f64::to_bits);
                bits(a).is_some() && bits(a) == bits(b)
            }
            _ => false,
        },
        ValueKind::String => a.as_str() == b.as_str() && a.is_safe() == b.is_safe(),
        ValueKind::Seq => match (a.try_iter(), b.try_iter()) {
            (Ok(xs), Ok(ys)) => a.len() == b.len() && xs.zip(ys).all(|(x, y)| identical(&x, &y)),
            _ => false,
        },
        ValueKind::Map => match (a.try_iter(), b.try_iter()) {
            (Ok(xs), Ok(ys)) => {
                a.len() == b.len()
                    && xs.zip(ys).all(|(x, y)| {
                        identical(&x, &y)
                            && matches!(
                                (a.get_item(&x), b.get_item(&y)),
                                (Ok(v), Ok(w)) if identical(&v, &w)
                            )
                    })
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jinja(yaml: &str) -> JValue {
        super::super::convert::to_jinja(&crate::yaml::load::parse_document(yaml).expect("valid"))
    }

    #[test]
    fn identical_values_are_the_same_data() {
        assert!(identical(
            &jinja("a: [1, x, {b: 2.5}]"),
            &jinja("a: [1, x, {b: 2.5}]")
        ));
    }

    #[test]
    fn numbers_of_different_types_are_not_identical() {
        assert!(!identical(&jinja("1"), &jinja("1.0")));
        assert!(!identical(&jinja("true"), &jinja("1")));
        assert!(!identical(&jinja("0.0"), &jinja("-0.0")));
    }

    #[test]
    fn maps_differing_in_a_key_or_a_value_are_not_identical() {
        assert!(!identical(&jinja("a: 1"), &jinja("b: 1")));
        assert!(!identical(&jinja("a: 1"), &jinja("a: 2")));
        assert!(!identical(&jinja("a: 1"), &jinja("{a: 1, b: 2}")));
        assert!(!identical(&jinja("[a]"), &jinja("[a, b]")));
    }
}
