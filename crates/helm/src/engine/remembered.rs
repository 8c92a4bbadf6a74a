//! Template outputs remembered across the renders of a fleet.
//!
//! A fleet's clusters differ in a few values, and most templates and partials read none of
//! them: the CRDs, most RBAC, the init container, the resource blocks. While a template (or a
//! partial, through `include`) renders, its context notes every value read, by its path from
//! the context's root. A later render whose context holds the same data at each of those paths
//! gets the output remembered instead of a new render. Every function a template can call
//! depends on its arguments only (the clock, randomness and the cluster are refused:
//! `functions::offline`), so the same reads give the same output.
//!
//! Only plain maps are noted through: a map handed out is itself noting, so reading one key of
//! a large map depends on that key only. Anything that looks at a map as a whole (iterating,
//! measuring, comparing, converting it for `toYaml` or `merge`) depends on all of it. Other
//! values are leaves, compared whole. A template that reads its whole context or all of
//! `Values`, or that keeps missing, is rendered from then on without notes.

use super::context::{ApiVersions, KubeVersion};
use super::files::Files;
use minijinja::value::{Enumerator, Object, ObjectExt, Value as JValue, ValueKind};
use std::cell::RefCell;
use std::cmp::Ordering as KeyOrder;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// How much output is remembered at most, all templates together.
const KEPT_BYTES: usize = 16 << 20;
/// How many outputs are remembered per template (for templates whose reads differ by render).
const KEPT_PER_TEMPLATE: usize = 8;
/// Renders of a template noted before it must show it is worth noting: twice as many recalls
/// as misses (a miss costs a check, a render and its notes; a recall, the check only).
const MISSES_BEFORE_GIVING_UP: u32 = 32;
/// How far the count of recalls may run ahead of twice the misses (see [`Outputs::recalled`]).
const RECALLS_AHEAD: u32 = 2 * MISSES_BEFORE_GIVING_UP;
/// Reads one render may note before its template is no longer noted (checking them would cost
/// about what rendering does).
const MOST_READS: usize = 4096;

/// The longest path noted: a template walking deeper (a map it built a thousand levels deep)
/// is not remembered, and its walk costs no more than without notes.
const MOST_DEPTH: usize = 64;
/// Keys from the root of a template's context to a value.
type Path = Vec<JValue>;

/// What a render saw of the value at one path of its context.
#[derive(Debug)]
enum Check {
    /// The value, not a plain map (`None`: nothing there).
    Value(Option<JValue>),
    /// A plain map (its entries are noted as they are read).
    Map,
    /// A plain map, looked at as a whole.
    Whole(JValue),
}

impl Check {
    /// Which kind of check this is: reads of one path are kept once per kind.
    fn kind(&self) -> u8 {
        match self {
            Check::Value(_) => 0,
            Check::Map => 1,
            Check::Whole(_) => 2,
        }
    }

    fn holds_for(&self, now: Option<&JValue>) -> bool {
        match (self, now) {
            (Check::Value(None), None) => true,
            (Check::Value(Some(then)), Some(now)) => !is_plain_map(now) && identical(now, then),
            (Check::Map, Some(now)) => is_plain_map(now),
            (Check::Whole(then), Some(now)) => is_plain_map(now) && identical(now, then),
            _ => false,
        }
    }
}

/// A render's reads arranged by path, so that checking them looks each map up once.
#[derive(Debug, Default)]
struct ReadTree {
    checks: Vec<Check>,
    children: Vec<(JValue, ReadTree)>,
}

impl ReadTree {
    fn of(reads: Vec<(Path, Check)>) -> ReadTree {
        let mut root = ReadTree::default();
        for (path, check) in reads {
            let mut node = &mut root;
            for key in path {
                let at = match node.children.iter().position(|(k, _)| identical(k, &key)) {
                    Some(at) => at,
                    None => {
                        node.children.push((key, ReadTree::default()));
                        node.children.len() - 1
                    }
                };
                node = &mut node.children[at].1;
            }
            node.checks.push(check);
        }
        root.sort_children();
        root
    }

    /// Puts each node's children in their map's key order, for [`ReadTree::holds_for`]'s walk.
    fn sort_children(&mut self) {
        self.children.sort_by(|(a, _), (b, _)| key_order(a, b));
        for (_, child) in &mut self.children {
            child.sort_children();
        }
    }

    /// Whether `now` (the value at this node's path, if any) holds what the reads saw. Looking
    /// into a noting context notes the lookups.
    fn holds_for(&self, now: Option<&JValue>) -> bool {
        if !self.checks.iter().all(|check| check.holds_for(now)) {
            return false;
        }
        // A plain map is read in place; a noting one through its lookups, which note them.
        if let Some(map) = now.and_then(|v| v.downcast_object_ref::<BTreeMap<JValue, JValue>>()) {
            if map.len() > WALK_PER_LOOKUP * self.children.len() {
                return self.children.iter().all(|(key, child)| {
                    child.holds_for(map.get(key).filter(|v| !v.is_undefined()))
                });
            }
            // The children are in the map's order: one walk along its entries finds them all,
            // comparing text with text, where a lookup per child compared template values.
            let mut entries = map.iter().peekable();
            return self.children.iter().all(|(key, child)| {
                while entries
                    .next_if(|(at, _)| key_order(at, key) == KeyOrder::Less)
                    .is_some()
                {}
                let found = entries
                    .peek()
                    .filter(|(at, _)| key_order(at, key) == KeyOrder::Equal)
                    .map(|(_, value)| *value);
                child.holds_for(found.filter(|v| !v.is_undefined()))
            });
        }
        self.children.iter().all(|(key, child)| {
            let next = now.and_then(|map| map.get_item(key).ok().filter(|v| !v.is_undefined()));
            child.holds_for(next.as_ref())
        })
    }
}

/// How many entries of a map one child of a [`ReadTree`] may cost to walk past before looking
/// each child up costs less (a lookup compares about a dozen keys, each dearer than a step).
const WALK_PER_LOOKUP: usize = 8;

/// The order of map keys, as the engine's maps keep them: strings by their text, compared
/// directly (most keys are strings), anything else as template values compare.
fn key_order(a: &JValue, b: &JValue) -> KeyOrder {
    match (a.as_str(), b.as_str()) {
        (Some(a), Some(b)) => a.cmp(b),
        _ => a.cmp(b),
    }
}

/// A map built by the engine or a template (`dict`, a literal, our values), or one noting.
fn is_plain_map(value: &JValue) -> bool {
    value
        .downcast_object_ref::<BTreeMap<JValue, JValue>>()
        .is_some()
        || value.downcast_object_ref::<Noting>().is_some()
}

/// `value` without any noting wrapper (not noted: callers note first).
pub(in crate::engine) fn unwrapped(value: &JValue) -> JValue {
    match value.downcast_object_ref::<Noting>() {
        Some(noting) => unwrapped(&noting.value),
        None => value.clone(),
    }
}

/// What one render read.
#[derive(Debug, Default)]
struct Log {
    reads: Vec<(Path, Check)>,
    /// A read went deeper than [`MOST_DEPTH`]: the output is not remembered.
    too_deep: bool,
}

/// A plain map as one render sees it: the same entries, each read noted in `log`.
#[derive(Debug)]
struct Noting {
    value: JValue,
    path: Path,
    log: Arc<Mutex<Log>>,
}

impl Noting {
    fn note(&self, path: Path, check: Check) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        if log.reads.len() <= MOST_READS {
            log.reads.push((path, check));
        }
    }

    fn child_path(&self, key: &JValue) -> Path {
        let mut path = self.path.clone();
        path.push(key.clone());
        path
    }

    /// Notes that the whole map was looked at.
    fn note_whole(&self) {
        self.note(self.path.clone(), Check::Whole(unwrapped(&self.value)));
    }
}

impl Object for Noting {
    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        if self.path.len() >= MOST_DEPTH {
            self.log
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .too_deep = true;
            return self.value.get_item(key).ok().filter(|v| !v.is_undefined());
        }
        let path = self.child_path(key);
        let Some(child) = self.value.get_item(key).ok().filter(|v| !v.is_undefined()) else {
            self.note(path, Check::Value(None));
            return None;
        };
        if is_plain_map(&child) {
            self.note(path.clone(), Check::Map);
            return Some(JValue::from_object(Noting {
                value: child,
                path,
                log: self.log.clone(),
            }));
        }
        self.note(path, Check::Value(Some(child.clone())));
        Some(child)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.note_whole();
        // Through the wrapped map, so a noting map it wraps notes the whole read too.
        let pairs: Vec<(JValue, JValue)> = match self.value.try_iter() {
            Ok(keys) => keys
                .map(|key| {
                    let value = self.value.get_item(&key).unwrap_or_default();
                    (key, unwrapped(&value))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        self.mapped_rev_key_value_enumerator(move |_| Box::new(pairs.into_iter()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.note_whole();
        self.value.len()
    }
}

/// A context for one render that notes its reads, and the notes.
struct Noted {
    context: JValue,
    log: Arc<Mutex<Log>>,
}

impl Noted {
    fn new(context: JValue) -> Option<Noted> {
        if !is_plain_map(&context) {
            return None;
        }
        let log = Arc::new(Mutex::new(Log::default()));
        let context = JValue::from_object(Noting {
            value: context,
            path: Vec::new(),
            log: log.clone(),
        });
        Some(Noted { context, log })
    }

    /// The distinct reads, or `None` when they make the output not worth remembering: the
    /// whole context or all of `Values` read, or too many reads.
    fn reads(self) -> Option<Vec<(Path, Check)>> {
        let log = std::mem::take(&mut *self.log.lock().unwrap_or_else(PoisonError::into_inner));
        if log.reads.len() > MOST_READS || log.too_deep {
            return None;
        }
        let mut distinct: BTreeMap<(u8, Path), Check> = BTreeMap::new();
        for (path, check) in log.reads {
            let everything =
                path.is_empty() || (path.len() == 1 && path[0].as_str() == Some("Values"));
            if everything && matches!(check, Check::Whole(_)) {
                return None;
            }
            distinct.entry((check.kind(), path)).or_insert(check);
        }
        Some(
            distinct
                .into_iter()
                .map(|((_, path), check)| (path, check))
                .collect(),
        )
    }
}

/// One output with the reads it came from.
struct Remembered<T> {
    reads: ReadTree,
    output: T,
}

/// What is remembered for one template name.
///
/// A fleet's threads recall the same templates at about the same moments, so the path of a
/// recall writes nothing shared: a lock's reader count or a counter bumped on every recall has
/// the two cores pass its cache line back and forth (with these, a `--jobs 2` fleet used a
/// fifth more CPU than `--jobs 1` for the same clusters).
struct Outputs<T> {
    /// Filled in order and emptied only with the engine: reading takes no lock.
    kept: [OnceLock<Remembered<T>>; KEPT_PER_TEMPLATE],
    /// Held while a slot of `kept` is filled.
    keeping: Mutex<()>,
    given_up: AtomicBool,
    /// Which kept output [`Outputs::recall`] tries first.
    next_likely: AtomicUsize,
    recalls: AtomicU32,
    misses: AtomicU32,
}

impl<T> Default for Outputs<T> {
    fn default() -> Self {
        Outputs {
            kept: std::array::from_fn(|_| OnceLock::new()),
            keeping: Mutex::new(()),
            given_up: AtomicBool::new(false),
            next_likely: AtomicUsize::new(0),
            recalls: AtomicU32::new(0),
            misses: AtomicU32::new(0),
        }
    }
}

/// An output's size, for the cap on what is kept.
trait OutputSize {
    fn bytes(&self) -> usize;
}

impl OutputSize for String {
    fn bytes(&self) -> usize {
        self.len()
    }
}

impl<T: Clone + OutputSize> Outputs<T> {
    /// The output of a render with `context`: remembered, or rendered by `render` (noting its
    /// reads while this template is still worth noting).
    fn output<E>(
        &self,
        context: JValue,
        kept_bytes: &AtomicUsize,
        render: impl FnOnce(&JValue) -> Result<T, E>,
    ) -> Result<T, E> {
        if self.given_up.load(Ordering::Relaxed) {
            return render(&context);
        }
        if let Some(output) = self.recall(&context) {
            self.recalled();
            return Ok(output);
        }
        // Slots fill in order and are never emptied: with the last one taken, this output
        // could not be kept, and noting its reads would be work for nothing.
        let room_left = self.kept.last().is_some_and(|slot| slot.get().is_none());
        let noted = room_left.then(|| Noted::new(context.clone())).flatten();
        let Some(noted) = noted else {
            let output = render(&context)?;
            if room_left {
                // Not a map: nothing to note, ever.
                return Ok(output);
            }
            let misses = self.misses.fetch_add(1, Ordering::Relaxed) + 1;
            if !self.still_worth_noting(misses) {
                self.given_up.store(true, Ordering::Relaxed);
            }
            return Ok(output);
        };
        let output = render(&noted.context)?;
        let misses = self.misses.fetch_add(1, Ordering::Relaxed) + 1;
        let worth_noting = match noted.reads() {
            Some(reads) => {
                self.keep(reads, &output, kept_bytes);
                self.still_worth_noting(misses)
            }
            None => false,
        };
        if !worth_noting {
            // Recalls would only ever miss: skip them too (what is kept stays, within
            // KEPT_BYTES, until the engine goes).
            self.given_up.store(true, Ordering::Relaxed);
        }
        Ok(output)
    }

    /// Whether a template that has missed `misses` times is still recalled often enough.
    fn still_worth_noting(&self, misses: u32) -> bool {
        misses < MISSES_BEFORE_GIVING_UP || self.recalls.load(Ordering::Relaxed) >= 2 * misses
    }

    fn recall(&self, context: &JValue) -> Option<T> {
        // A partial that several components include is asked for by each in turn, in the same
        // order for every cluster: the output kept after the last one recalled is the likely
        // one, tried first (any that holds is the same output).
        let count = self
            .kept
            .iter()
            .take_while(|kept| kept.get().is_some())
            .count();
        let start = self.next_likely.load(Ordering::Relaxed);
        for offset in 0..count {
            let at = (start + offset) % count;
            let kept = self.kept[at].get()?;
            if kept.reads.holds_for(Some(context)) {
                self.next_likely.store(at + 1, Ordering::Relaxed);
                return Some(kept.output.clone());
            }
        }
        None
    }

    /// Counts a recall, as far as deciding whether to keep noting can need: the count stops
    /// [`RECALLS_AHEAD`] past twice the misses (and so stays unwritten, in every core's cache,
    /// while a template only recalls). A template then gives up after that many more misses
    /// than half its recalls since, however many recalls came before.
    fn recalled(&self) {
        let misses = self.misses.load(Ordering::Relaxed);
        let enough = misses.saturating_mul(2).saturating_add(RECALLS_AHEAD);
        if self.recalls.load(Ordering::Relaxed) < enough {
            self.recalls.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn keep(&self, reads: Vec<(Path, Check)>, output: &T, kept_bytes: &AtomicUsize) {
        let size = output.bytes();
        let _keeping = self.keeping.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(slot) = self.kept.iter().find(|slot| slot.get().is_none()) else {
            return;
        };
        // Only what is kept counts: an output refused for its size leaves room for smaller ones.
        let within_budget = kept_bytes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            (used + size <= KEPT_BYTES).then_some(used + size)
        });
        if within_budget.is_err() {
            return;
        }
        let _ = slot.set(Remembered {
            reads: ReadTree::of(reads),
            output: output.clone(),
        });
    }
}

/// Outputs remembered per template: whole templates' text, and partials' text.
pub(super) struct RememberedRenders {
    index: HashMap<String, usize>,
    outputs: Vec<Outputs<String>>,
    included: Vec<Outputs<String>>,
    kept_bytes: AtomicUsize,
}

/// One thread's hold on the shared outputs. Held in an `Rc`, so that each `include` takes its
/// own handle without writing the shared `Arc`'s count, which both threads of a fleet would
/// otherwise pass back and forth.
struct ThreadHold(Arc<RememberedRenders>);

thread_local! {
    /// The outputs `include` may recall and remember while this thread renders for a fleet.
    static ACTIVE: RefCell<Option<Rc<ThreadHold>>> = const { RefCell::new(None) };
}

/// Makes `remembered` the outputs `include` uses on this thread until the guard is dropped.
pub(super) struct Active {
    previous: Option<Rc<ThreadHold>>,
}

impl Drop for Active {
    fn drop(&mut self) {
        let previous = self.previous.take();
        ACTIVE.with(|active| *active.borrow_mut() = previous);
    }
}

impl RememberedRenders {
    /// Room for the templates `names` (the engine's, in its order).
    pub(super) fn new(names: &[String]) -> Self {
        RememberedRenders {
            index: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
            outputs: names.iter().map(|_| Outputs::default()).collect(),
            included: names.iter().map(|_| Outputs::default()).collect(),
            kept_bytes: AtomicUsize::new(0),
        }
    }

    /// Makes these the outputs `include` uses on this thread, for as long as the guard lives.
    pub(super) fn activate(self: &Arc<Self>) -> Active {
        let previous = ACTIVE.with(|active| {
            active
                .borrow_mut()
                .replace(Rc::new(ThreadHold(self.clone())))
        });
        Active { previous }
    }

    /// The output of template `template` rendered with `context`: remembered, or from
    /// `render`.
    pub(super) fn output<E>(
        &self,
        template: usize,
        context: JValue,
        render: impl FnOnce(&JValue) -> Result<String, E>,
    ) -> Result<String, E> {
        match self.outputs.get(template) {
            Some(outputs) => outputs.output(context, &self.kept_bytes, render),
            None => render(&context),
        }
    }
}

/// What `include(name, context)` gives: remembered when a fleet render is active on this
/// thread, else (or on a miss) from `render`.
pub(super) fn included<E>(
    name: &str,
    context: JValue,
    render: impl FnOnce(&JValue) -> Result<String, E>,
) -> Result<String, E> {
    let active = ACTIVE.with(|active| active.borrow().clone());
    let Some(hold) = active else {
        return render(&context);
    };
    let remembered = &hold.0;
    match remembered
        .index
        .get(name)
        .and_then(|&i| remembered.included.get(i))
    {
        Some(outputs) => outputs.output(context, &remembered.kept_bytes, render),
        None => render(&context),
    }
}

/// Whether two template values are the same data: same kinds, integers apart from floats,
/// floats bit for bit, strings with the same safety, our own objects by their contents.
/// Looser equality (`1 == 1.0 == true`) would hand a render another value's output.
pub(in crate::engine) fn identical(a: &JValue, b: &JValue) -> bool {
    identical_within(a, b, MOST_DEPTH)
}

/// [`identical`], taking values nested deeper than `depth` as different (never recalled).
fn identical_within(a: &JValue, b: &JValue, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    // Strings first: most values read are strings (names, images, certificates).
    if a.kind() == ValueKind::String && b.kind() == ValueKind::String {
        return a.as_str() == b.as_str() && a.is_safe() == b.is_safe();
    }
    if let (Some(x), Some(y)) = (
        a.downcast_object_ref::<KubeVersion>(),
        b.downcast_object_ref::<KubeVersion>(),
    ) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (
        a.downcast_object_ref::<ApiVersions>(),
        b.downcast_object_ref::<ApiVersions>(),
    ) {
        return std::ptr::eq(x, y) || x.0 == y.0;
    }
    // The chart's files: one object shared by every render of an engine, which every include
    // hands on to the partial it renders.
    if let (Some(x), Some(y)) = (
        a.downcast_object_ref::<Files>(),
        b.downcast_object_ref::<Files>(),
    ) {
        return std::ptr::eq(x, y) || x.0 == y.0;
    }
    if a.kind() != b.kind() {
        return false;
    }
    match a.kind() {
        ValueKind::Undefined | ValueKind::None => true,
        ValueKind::Bool => a.is_true() == b.is_true(),
        ValueKind::Number => match (a.is_integer(), b.is_integer()) {
            (true, true) => match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                // Beyond 64 bits: their decimal spelling is exact.
                _ => a.to_string() == b.to_string(),
            },
            (false, false) => {
                let bits = |v: &JValue| f64::try_from(v.clone()).ok().map(f64::to_bits);
                bits(a).is_some() && bits(a) == bits(b)
            }
            _ => false,
        },
        ValueKind::String => a.as_str() == b.as_str() && a.is_safe() == b.is_safe(),
        ValueKind::Seq if is_plain_seq(a) && is_plain_seq(b) => {
            if let (Some(x), Some(y)) = (
                a.downcast_object_ref::<Vec<JValue>>(),
                b.downcast_object_ref::<Vec<JValue>>(),
            ) {
                // One list (a value shared by two renders' contexts) is the same data.
                if std::ptr::eq(x, y) {
                    return true;
                }
            }
            match (a.try_iter(), b.try_iter()) {
                (Ok(xs), Ok(ys)) => {
                    a.len() == b.len()
                        && xs.zip(ys).all(|(x, y)| identical_within(&x, &y, depth - 1))
                }
                _ => false,
            }
        }
        ValueKind::Map if is_plain_map(a) && is_plain_map(b) => {
            if let (Some(x), Some(y)) = (
                a.downcast_object_ref::<BTreeMap<JValue, JValue>>(),
                b.downcast_object_ref::<BTreeMap<JValue, JValue>>(),
            ) {
                // One map (a value shared by two renders' contexts) is the same data; others
                // are compared in place: both in key order, no key looked up.
                return std::ptr::eq(x, y)
                    || x.len() == y.len()
                        && x.iter().zip(y).all(|((k, v), (l, w))| {
                            identical_within(k, l, depth - 1) && identical_within(v, w, depth - 1)
                        });
            }
            match (a.try_iter(), b.try_iter()) {
                (Ok(xs), Ok(ys)) => {
                    a.len() == b.len()
                        && xs.zip(ys).all(|(x, y)| {
                            identical_within(&x, &y, depth - 1)
                                && matches!(
                                    (a.get_item(&x), b.get_item(&y)),
                                    (Ok(v), Ok(w)) if identical_within(&v, &w, depth - 1)
                                )
                        })
                }
                _ => false,
            }
        }
        // Other objects (a template's macros, loops, custom types) are never taken as equal.
        _ => false,
    }
}

/// A list built by the engine or a template.
fn is_plain_seq(value: &JValue) -> bool {
    value.downcast_object_ref::<Vec<JValue>>().is_some()
}

#[cfg(test)]
mod tests;
