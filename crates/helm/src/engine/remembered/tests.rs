use super::*;
use crate::engine::files::FileBytes;

/// The value at `path` in `context`, if any.
fn walk(context: &JValue, path: &Path) -> Option<JValue> {
    let mut at = context.clone();
    for key in path {
        at = at.get_item(key).ok().filter(|v| !v.is_undefined())?;
    }
    Some(at)
}

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

#[test]
fn reading_one_key_of_a_map_depends_on_that_key_only() {
    let noted = Noted::new(jinja("Values: {a: {b: 1, c: 2}, d: 3}")).expect("a map");
    let b = walk(
        &noted.context,
        &vec![JValue::from("Values"), JValue::from("a"), JValue::from("b")],
    );
    assert_eq!(b.and_then(|v| v.as_i64()), Some(1));
    let reads = noted.reads().expect("worth keeping");
    let other = jinja("Values: {a: {b: 1, c: 9}, d: 4}");
    let changed = jinja("Values: {a: {b: 2, c: 2}, d: 3}");
    let reads = ReadTree::of(reads);
    assert!(reads.holds_for(Some(&other)));
    assert!(!reads.holds_for(Some(&changed)));
}

#[test]
fn reads_of_several_keys_hold_wherever_those_keys_fall_in_the_map() {
    // Read in another order than the map keeps, one key missing: the check walks the map once.
    let context = "Values: {a: 1, c: 3, e: 5, g: 7, i: 9, k: 11, m: 13}";
    let noted = Noted::new(jinja(context)).expect("a map");
    for key in ["k", "zz", "c", "a", "m", "b"] {
        walk(
            &noted.context,
            &vec![JValue::from("Values"), JValue::from(key)],
        );
    }
    let reads = ReadTree::of(noted.reads().expect("worth keeping"));
    assert!(reads.holds_for(Some(&jinja(context))));
    assert!(reads.holds_for(Some(&jinja(
        "Values: {a: 1, c: 3, d: 0, e: 6, k: 11, l: 0, m: 13}"
    ))));
    for changed in [
        "Values: {a: 1, c: 3, e: 5, g: 7, i: 9, k: 11, m: 14}",
        "Values: {a: 2, c: 3, e: 5, g: 7, i: 9, k: 11, m: 13}",
        "Values: {a: 1, c: 3, e: 5, g: 7, i: 9, m: 13}",
        "Values: {a: 1, b: 0, c: 3, e: 5, g: 7, i: 9, k: 11, m: 13}",
        "Values: {a: 1, c: 3, e: 5, g: 7, i: 9, k: 11, m: 13, zz: 0}",
    ] {
        assert!(!reads.holds_for(Some(&jinja(changed))), "{changed}");
    }
}

#[test]
fn iterating_a_map_depends_on_all_of_it() {
    let noted = Noted::new(jinja("Values: {a: {b: 1, c: 2}}")).expect("a map");
    let a = walk(
        &noted.context,
        &vec![JValue::from("Values"), JValue::from("a")],
    )
    .expect("a");
    assert_eq!(a.try_iter().expect("iterable").count(), 2);
    let reads = noted.reads().expect("worth keeping");
    let reads = ReadTree::of(reads);
    assert!(!reads.holds_for(Some(&jinja("Values: {a: {b: 1, c: 3}}"))));
    assert!(reads.holds_for(Some(&jinja("Values: {a: {b: 1, c: 2}, z: 0}"))));
}

#[test]
fn reading_all_of_values_is_not_worth_remembering() {
    let noted = Noted::new(jinja("Values: {a: 1}")).expect("a map");
    let values = walk(&noted.context, &vec![JValue::from("Values")]).expect("values");
    assert_eq!(values.len(), Some(1));
    assert!(noted.reads().is_none());
}

/// Renders `outputs`' template with `x` as the context's one value; the output is `x`, read
/// from the context. Returns whether the output came from memory.
fn render_x(outputs: &Outputs<String>, kept_bytes: &AtomicUsize, x: u32) -> bool {
    let mut rendered = false;
    let output = outputs
        .output(jinja(&format!("x: {x}")), kept_bytes, |context| {
            rendered = true;
            Ok::<_, ()>(
                walk(context, &vec![JValue::from("x")])
                    .expect("x")
                    .to_string(),
            )
        })
        .expect("renders");
    assert_eq!(output, x.to_string());
    !rendered
}

#[test]
fn outputs_asked_for_in_turn_or_out_of_turn_come_back_each_for_its_own_context() {
    // As a partial that three components include, cluster after cluster; then out of turn.
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    for x in [1, 2, 3] {
        assert!(!render_x(&outputs, &kept_bytes, x));
    }
    for x in [1, 2, 3, 1, 2, 3, 3, 1, 1, 2] {
        // render_x checks the output is this context's.
        assert!(render_x(&outputs, &kept_bytes, x), "{x}");
    }
    assert!(!render_x(&outputs, &kept_bytes, 4));
}

#[test]
fn a_context_holding_what_a_render_read_gets_its_output_from_memory() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    assert!(!render_x(&outputs, &kept_bytes, 1));
    assert!(render_x(&outputs, &kept_bytes, 1));
    assert!(!render_x(&outputs, &kept_bytes, 2));
    assert!(render_x(&outputs, &kept_bytes, 2));
}

#[test]
fn a_template_whose_every_render_misses_gives_up_noting() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    for x in 0..MISSES_BEFORE_GIVING_UP {
        assert!(!render_x(&outputs, &kept_bytes, x));
    }
    assert!(outputs.given_up.load(Ordering::Relaxed));
    // Given up: even a context seen before renders again.
    assert!(!render_x(&outputs, &kept_bytes, 0));
}

#[test]
fn a_template_recalled_over_twice_as_often_as_it_misses_keeps_noting() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    for x in 0..2 * MISSES_BEFORE_GIVING_UP {
        render_x(&outputs, &kept_bytes, 1000 + x);
        for _ in 0..3 {
            assert!(render_x(&outputs, &kept_bytes, 1000));
        }
    }
    assert!(!outputs.given_up.load(Ordering::Relaxed));
}

#[test]
fn recalls_are_counted_only_as_far_as_a_decision_can_need() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    render_x(&outputs, &kept_bytes, 1);
    for _ in 0..1000 {
        assert!(render_x(&outputs, &kept_bytes, 1));
    }
    assert_eq!(outputs.recalls.load(Ordering::Relaxed), 2 + RECALLS_AHEAD);
}

#[test]
fn an_output_refused_for_the_budget_takes_none_of_it() {
    let outputs = Outputs::default();
    let kept_bytes = AtomicUsize::new(KEPT_BYTES - 1);
    assert!(!render_x(&outputs, &kept_bytes, 10));
    assert_eq!(kept_bytes.load(Ordering::Relaxed), KEPT_BYTES - 1);
    assert!(
        !render_x(&outputs, &kept_bytes, 10),
        "a refused output is not recalled"
    );
    assert!(!render_x(&outputs, &kept_bytes, 7));
    assert!(
        render_x(&outputs, &kept_bytes, 7),
        "a one-byte output still fits"
    );
}

#[test]
fn a_template_keeps_at_most_its_share_of_outputs() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    let renders = u32::try_from(KEPT_PER_TEMPLATE).expect("small") + 1;
    for x in 0..renders {
        render_x(&outputs, &kept_bytes, x);
    }
    assert!(outputs.kept.iter().all(|slot| slot.get().is_some()));
    assert!(render_x(&outputs, &kept_bytes, 0));
    assert!(!render_x(&outputs, &kept_bytes, renders - 1));
}

#[test]
fn with_every_slot_taken_a_miss_renders_without_notes() {
    let (outputs, kept_bytes) = (Outputs::default(), AtomicUsize::new(0));
    let renders = u32::try_from(KEPT_PER_TEMPLATE).expect("small");
    let noting = |x: u32| {
        let mut noted = false;
        outputs
            .output(jinja(&format!("x: {x}")), &kept_bytes, |context| {
                noted = context.downcast_object_ref::<Noting>().is_some();
                Ok::<_, ()>(
                    walk(context, &vec![JValue::from("x")])
                        .expect("x")
                        .to_string(),
                )
            })
            .expect("renders");
        noted
    };
    for x in 0..renders {
        assert!(noting(x), "render {x} is noted while a slot is free");
    }
    assert!(!noting(renders), "no slot is left for this output");
    assert_eq!(outputs.misses.load(Ordering::Relaxed), renders + 1);
}

/// A context of the chart's `files` beside `values`, as an include hands its partial.
fn context_with_files(files: &JValue, values: &str) -> JValue {
    JValue::from_pairs([("Files", files.clone()), ("Values", jinja(values))])
}

fn chart_files(text: &[u8]) -> JValue {
    JValue::from_object(Files(BTreeMap::from([(
        String::from("values/values-ha.yaml"),
        FileBytes::Binary(Arc::from(text)),
    )])))
}

#[test]
fn a_read_of_the_charts_files_holds_for_the_next_render_of_the_same_chart() {
    // Every include reads `Files` to hand it on: a render of a template with includes was
    // never recalled while the files object compared unequal even to itself.
    let files = chart_files(b"controllerReplicas: 3\n");
    let noted = Noted::new(context_with_files(&files, "a: 1")).expect("a map");
    walk(&noted.context, &vec![JValue::from("Files")]).expect("files");
    let reads = ReadTree::of(noted.reads().expect("worth keeping"));
    assert!(reads.holds_for(Some(&context_with_files(&files, "a: 2"))));
}

#[test]
fn a_read_of_the_charts_files_fails_for_other_files() {
    let noted = Noted::new(context_with_files(&chart_files(b"a: 1\n"), "a: 1")).expect("a map");
    walk(&noted.context, &vec![JValue::from("Files")]).expect("files");
    let reads = ReadTree::of(noted.reads().expect("worth keeping"));
    assert!(!reads.holds_for(Some(&context_with_files(&chart_files(b"a: 2\n"), "a: 1"))));
    assert!(reads.holds_for(Some(&context_with_files(&chart_files(b"a: 1\n"), "a: 1"))));
}
