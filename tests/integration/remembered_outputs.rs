//! An engine that remembers template outputs (as `render --fleet` uses it) renders exactly what
//! a fresh engine renders, whatever changes between renders.

use crate::support::{self, RenderDocuments as _};

use meshchart::chart::Chart;
use meshchart::engine::{Engine, RenderOptions};
use meshchart::values::Value;

fn chart(files: &[(&str, &str)]) -> Chart {
    support::chart_of("memo", files)
}

fn values(yaml: &str) -> Value {
    meshchart::yaml::parse_document(yaml).expect("values")
}

/// Renders each values document in turn with one remembering engine and checks each output
/// against a fresh engine's.
fn renders_as_fresh(files: &[(&str, &str)], each_values: &[&str], opts: &[RenderOptions]) {
    let chart = chart(files);
    let remembering = Engine::new(&chart)
        .expect("compiles")
        .remembering_template_outputs();
    for (i, yaml) in each_values.iter().enumerate() {
        let opts = opts.get(i).or(opts.last()).cloned().unwrap_or_default();
        let fresh = Engine::new(&chart).expect("compiles");
        let expected = fresh
            .render_documents(&values(yaml), &opts)
            .expect("renders")
            .to_stream();
        let got = remembering
            .render_documents(&values(yaml), &opts)
            .expect("renders")
            .to_stream();
        assert_eq!(got, expected, "render {i} with values {yaml:?}");
    }
}

#[test]
fn a_changed_value_that_was_read_renders_anew() {
    renders_as_fresh(
        &[(
            "templates/a.yaml",
            "kind: A\nimage: {{ Values.image.tag }}\n",
        )],
        &[
            "image: {tag: '1'}",
            "image: {tag: '2'}",
            "image: {tag: '1'}",
        ],
        &[],
    );
}

#[test]
fn a_value_read_through_an_include_counts_as_read() {
    renders_as_fresh(
        &[
            ("templates/_tag.tpl", "{{ Values.image.tag }}"),
            (
                "templates/a.yaml",
                "kind: A\nimage: {{ include(\"_tag.tpl\") }}\n",
            ),
            (
                "templates/b.yaml",
                "kind: B\nimage: {{ include(\"_tag.tpl\", {\"Values\": Values}) }}\n",
            ),
        ],
        &["image: {tag: '1'}", "image: {tag: '2'}"],
        &[],
    );
}

#[test]
fn a_key_that_was_missing_and_then_appears_renders_anew() {
    renders_as_fresh(
        &[(
            "templates/a.yaml",
            "kind: A\n{% if Values.extra is defined %}extra: {{ Values.extra }}{% endif %}\n",
        )],
        &["other: 1", "other: 1\nextra: yes", "other: 2"],
        &[],
    );
}

#[test]
fn numbers_of_another_type_are_another_value() {
    renders_as_fresh(
        &[(
            "templates/a.yaml",
            "kind: A\nnum: {{ Values.num }}\njson: {{ Values.num | toJson }}\n",
        )],
        &[
            "num: 1",
            "num: 1.0",
            "num: true",
            "num: '1'",
            "num: -0.0",
            "num: 0.0",
        ],
        &[],
    );
}

#[test]
fn templates_that_read_the_values_whole_render_every_time() {
    renders_as_fresh(
        &[
            ("templates/a.yaml", "kind: A\nall: {{ Values | toJson }}\n"),
            ("templates/b.yaml", "kind: B\nn: {{ Values | length }}\n"),
            (
                "templates/c.yaml",
                "kind: C\nkeys: {% for k in Values %}{{ k }} {% endfor %}\n",
            ),
            (
                "templates/d.yaml",
                "kind: D\n{%- set v = mergeOverwrite(Values, {\"x\": 1}) %}\nv: {{ v | toJson }}\n",
            ),
        ],
        &["a: 1", "a: 1\nb: 2", "a: 2"],
        &[],
    );
}

#[test]
fn another_release_or_kubernetes_version_renders_anew() {
    let opts = |namespace: &str, kube: &str| RenderOptions {
        namespace: namespace.into(),
        kube_version: meshchart::engine::KubeVersion::parse(kube).expect("version"),
        ..RenderOptions::default()
    };
    renders_as_fresh(
        &[(
            "templates/a.yaml",
            "kind: A\nns: {{ Release.Namespace }}\nkube: {{ Capabilities.KubeVersion.Minor }}\n",
        )],
        &["a: 1", "a: 1", "a: 1"],
        &[
            opts("one", "1.29.0"),
            opts("two", "1.29.0"),
            opts("two", "1.30.0"),
        ],
    );
}

#[test]
fn a_failing_render_is_not_remembered() {
    let chart = chart(&[(
        "templates/a.yaml",
        "kind: A\nv: {{ required(\"need v\", Values.v) }}\n",
    )]);
    let engine = Engine::new(&chart)
        .expect("compiles")
        .remembering_template_outputs();
    let opts = RenderOptions::default();
    assert!(engine.render_documents(&values("w: 1"), &opts).is_err());
    assert!(engine.render_documents(&values("w: 1"), &opts).is_err());
    let text = engine
        .render_documents(&values("v: x"), &opts)
        .expect("renders");
    assert!(text.to_stream().contains("v: x"));
}

#[test]
fn a_value_a_recalled_inner_partial_read_counts_for_the_partial_around_it() {
    renders_as_fresh(
        &[
            ("templates/_inner.tpl", "{{ Values.tag }}"),
            (
                "templates/_outer.tpl",
                "outer-{{ Values.name }}-{{ include(\"_inner.tpl\") }}",
            ),
            (
                "templates/a.yaml",
                "kind: A\nv: {{ include(\"_outer.tpl\") }}\n",
            ),
        ],
        &[
            "name: x\ntag: '1'",
            "name: y\ntag: '1'",
            "name: y\ntag: '2'",
            "name: x\ntag: '2'",
            "name: x\ntag: '1'",
        ],
        &[],
    );
}

#[test]
fn a_partial_given_part_of_the_values_depends_on_what_it_read_there() {
    renders_as_fresh(
        &[
            (
                "templates/_image.tpl",
                "{{ image.name }}:{{ image.tag }}{% if image.extra %} {{ image.extra | toJson }}{% endif %}",
            ),
            (
                "templates/a.yaml",
                "kind: A\nimage: {{ include(\"_image.tpl\", {\"image\": Values.image}) }}\n",
            ),
        ],
        &[
            "image: {name: a, tag: '1'}",
            "image: {name: a, tag: '1', unused: z}",
            "image: {name: a, tag: '2'}",
            "image: {name: a, tag: '2', extra: {k: [1]}}",
            "image: {name: a, tag: '2', extra: {k: [2]}}",
            "image: {name: a, tag: '2', extra: {k: [2.0]}}",
        ],
        &[],
    );
}

#[test]
fn a_partial_walking_a_very_deep_map_renders_as_fresh() {
    renders_as_fresh(
        &[
            (
                "templates/_walk.tpl",
                "{%- set at = namespace(v=v) -%}{%- for i in range(depth) -%}{%- set at.v = at.v.a -%}{%- endfor -%}{{ at.v }}",
            ),
            (
                "templates/a.yaml",
                "{%- set deep = namespace(v=Values.leaf) -%}{%- for i in range(Values.depth) -%}{%- set deep.v = {\"a\": deep.v} -%}{%- endfor -%}kind: A\nleaf: {{ include(\"_walk.tpl\", {\"v\": deep.v, \"depth\": Values.depth}) }}\n",
            ),
        ],
        &["depth: 300\nleaf: x", "depth: 300\nleaf: x", "depth: 300\nleaf: y"],
        &[],
    );
}
