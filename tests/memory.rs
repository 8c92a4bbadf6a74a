//! How much heap the values commands take on a huge values file, measured with a counting
//! allocator (this binary's own, installed for the whole process): each peak must stay within
//! a few times the input's size. Sizes are counted as asked for, so the figures do not depend
//! on the system allocator, and the tests run one at a time so their peaks do not mix.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct PeakCounting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

impl PeakCounting {
    fn grew(bytes: usize) {
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    fn shrank(bytes: usize) {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counters only observe sizes.
unsafe impl GlobalAlloc for PeakCounting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        Self::grew(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Self::shrank(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            Self::grew(new_size - layout.size());
        } else {
            Self::shrank(layout.size() - new_size);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: PeakCounting = PeakCounting;

/// One measurement at a time: the peak is the whole process's.
static MEASURING: Mutex<()> = Mutex::new(());

/// What `work` took of the heap: the most it held at once, and what it still holds after
/// (what it returned), both beyond what was live before it, in bytes.
struct Heap {
    peak: usize,
    kept: usize,
}

fn heap_of<T>(work: impl FnOnce() -> T) -> (Heap, T) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = work();
    let heap = Heap {
        peak: PEAK.load(Ordering::Relaxed).saturating_sub(before),
        kept: LIVE.load(Ordering::Relaxed).saturating_sub(before),
    };
    (heap, result)
}

/// Fails unless `bytes` (the heap's `what`: peak or kept) is under `most` times `input` bytes.
fn within_times(bytes: usize, input: usize, most: f64, what: &str) {
    let ratio = bytes as f64 / input as f64;
    assert!(
        ratio < most,
        "{what} {bytes} bytes, {ratio:.2} times the input (at most {most})"
    );
}

/// A values file of `keys` top-level keys, `k0: 0` to `k{keys-1}: {keys-1}` (the #39 probe).
fn many_keys(keys: usize) -> String {
    (0..keys).map(|i| format!("k{i}: {i}\n")).collect()
}

const KEYS: usize = 50_000;

#[test]
fn reading_a_values_file_of_many_keys_holds_little_more_than_the_tree_it_builds() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = many_keys(KEYS);
    let (heap, parsed) = heap_of(|| meshchart::yaml::load::parse_values_document(&text));
    let (values, _) = parsed.expect("the values read");
    assert!(matches!(values, meshchart::values::Value::Map(ref m) if m.len() == KEYS));
    // Checking that no key is given twice must not cost a second copy of every key.
    assert!(
        heap.peak * 10 < heap.kept * 11,
        "peak {} bytes for a tree of {} bytes",
        heap.peak,
        heap.kept
    );
}

/// What `meshchart values [--explain] -f -` prints for `text` on standard input, with the
/// embedded chart, as the command does it: the chart chosen from the values, then the values.
fn values_command(text: &str, explain: bool) -> String {
    let overrides = meshchart::values::ValueOverrides {
        files: vec!["-".to_owned()],
        ..Default::default()
    };
    let mut stdin = std::io::Cursor::new(text.as_bytes());
    let source = meshchart::ChartSource::default_line();
    let chosen = meshchart::render::choose_chart(&source, &overrides, &mut stdin)
        .expect("the embedded chart");
    let (printed, _) =
        meshchart::render::show_values(&chosen.chart, &chosen.overrides, explain, &mut stdin)
            .expect("the values");
    printed
}

#[test]
fn values_with_the_embedded_chart_holds_one_tree_of_the_values_at_a_time() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = many_keys(KEYS);
    let (heap, printed) = heap_of(|| values_command(&text, false));
    assert!(printed.contains("\nk49999: 49999\n"));
    // The tree of the values is about eight times their text; with the text kept, the chart
    // and the printed values beside it, one tree fits under fourteen (two did not).
    within_times(heap.peak, text.len(), 14.0, "peak");
}

#[test]
fn values_explain_holds_a_few_times_the_input_not_a_path_per_leaf() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = many_keys(KEYS);
    let (heap, printed) = heap_of(|| values_command(&text, true));
    assert!(printed.contains("\nk49999: 49999  # <stdin>:50000\n"));
    // The values' tree (about eight times their text), the printed text, its annotated copy
    // and a compact path and origin per leaf.
    within_times(heap.peak, text.len(), 25.0, "peak");
}

/// Output that is only counted: what lint prints must not add to what it holds.
#[derive(Default)]
struct CountingSink {
    bytes: usize,
    lines: usize,
}

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len();
        self.lines += buf.iter().filter(|&&b| b == b'\n').count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn lint_of_many_unknown_keys_prints_as_it_goes_and_holds_a_few_times_the_input() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = many_keys(KEYS);
    let request = meshchart::render::RenderRequest {
        values: meshchart::values::ValueOverrides {
            files: vec!["-".to_owned()],
            ..Default::default()
        },
        ..Default::default()
    };
    let source = meshchart::ChartSource::Path("tests/fixtures/lint-demo".into());
    let mut printed = CountingSink::default();
    let (heap, failed) = heap_of(|| {
        meshchart::lint::lint_to(
            &source,
            &request,
            None,
            meshchart::lint::LintMode::default(),
            &mut std::io::Cursor::new(text.as_bytes()),
            &mut printed,
        )
    });
    assert!(!failed.expect("the report printed"));
    // A header, a warning per key, a blank line and the summary: some nine times the input,
    // printed as it goes, not kept.
    assert_eq!(printed.lines, 1 + KEYS + 2);
    assert!(printed.bytes > 5 * text.len());
    within_times(heap.peak, text.len(), 20.0, "peak");
}

#[test]
fn a_suggestion_for_an_unknown_key_allocates_little_whatever_the_chart_knows() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let chart = meshchart::releases::default_control_plane().expect("the embedded chart");
    let defaults = chart.default_values().expect("its defaults");
    let known = meshchart::values::KnownKeys::new(&defaults, None);
    // The first suggestion gathers what the chart knows, once.
    assert_eq!(known.suggest(&["k0".to_owned()]), None);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for i in 100_000..100_100 {
        assert_eq!(known.suggest(&[format!("k{i}")]), None);
    }
    let per_key = (ALLOCATIONS.load(Ordering::Relaxed) - before) / 100;
    assert!(per_key < 10, "{per_key} allocations per suggestion");
}

/// Go template text in the shape charts have: lines of YAML around conditions, values and a
/// range (kube-prometheus-stack's templates have an action per 70 bytes of text).
fn go_template_text(blocks: usize) -> String {
    (0..blocks)
        .map(|i| {
            format!(
                "{{{{- if .Values.component{i}.enabled }}}}\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: component-{i}\n\
                 \x20 namespace: {{{{ .Release.Namespace }}}}\ndata:\n\
                 {{{{- range $key, $value := .Values.component{i}.data }}}}\n\
                 \x20 {{{{ $key }}}}: {{{{ printf \"%v\" $value }}}}\n{{{{- end }}}}\n{{{{- end }}}}\n"
            )
        })
        .collect()
}

#[test]
fn parsed_go_templates_hold_a_few_times_their_text() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = go_template_text(10_000);
    let (heap, set) = heap_of(|| {
        let mut set = meshchart_gotemplate::Templates::new("chart");
        set.parse("chart/templates/big.yaml", &text).map(|()| set)
    });
    let set = set.expect("the templates parse");
    assert!(set.has_template("chart/templates/big.yaml"));
    // Parse trees stay loaded while a chart renders. With lists and operands sized exactly and
    // the larger node kinds boxed, this text's trees (and the text they keep) take 5.7 times
    // it; they took 13.5 when every node was as large as the largest kind and vectors grew by
    // doubling.
    within_times(heap.kept, text.len(), 7.0, "kept");
}

#[test]
fn checking_a_large_document_for_repeated_keys_does_not_build_its_tree() {
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // A generated CRD's shape: a deep schema of many small maps.
    let text: String = std::iter::once("spec:\n  properties:\n".to_owned())
        .chain((0..20_000).map(|i| {
            format!("    field{i}:\n      type: string\n      description: the field {i}\n")
        }))
        .collect();
    let (heap, repeated) = heap_of(|| meshchart::yaml::load::first_duplicate_key(&text, 1));
    assert!(repeated.is_none());
    // Building the whole tree to find a repeat took 11.3 times the text at its peak; holding
    // only the maps being read (and the parser's own state), 1.6.
    within_times(heap.peak, text.len(), 3.0, "peak");
}
