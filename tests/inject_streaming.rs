//! Inject at stream speed: workloads that share an effective configuration share one rendering
//! of the sidecar containers, and a stream is transformed the same whether it is read whole or
//! document by document.

mod support;

use meshchart::inject::{
    self, ChartSidecars, InjectOptions, Namespaces, Part, SidecarSource, Source,
};
use meshchart::values::Value;
use std::sync::Mutex;

struct CountingSidecars<'chart> {
    inner: ChartSidecars<'chart>,
    renders: Mutex<Vec<Part>>,
}

impl SidecarSource for CountingSidecars<'_> {
    fn render(
        &self,
        part: Part,
        values: &Value,
    ) -> Result<Value, meshchart::inject::error::SidecarError> {
        self.renders.lock().unwrap().push(part);
        self.inner.render(part, values)
    }
}

fn deployment(name: &str, namespace: &str, pod_annotations: &str) -> String {
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: \
         {namespace}\nspec:\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    \
         metadata:\n      labels: {{app: {name}}}\n      annotations: {{{pod_annotations}}}\n    \
         spec:\n      containers:\n      - name: app\n        image: app:1\n"
    )
}

fn inject_values() -> Value {
    let chart = support::chart();
    let flags = meshchart::values::ValueOverrides {
        files: vec![format!(
            "{}/tests/golden/inject/values.yaml",
            env!("CARGO_MANIFEST_DIR")
        )],
        ..Default::default()
    };
    meshchart::values::effective_values(
        &chart.default_values().unwrap(),
        &flags,
        &mut std::io::empty(),
    )
    .unwrap()
    .0
}

#[test]
fn sidecars_render_once_per_distinct_configuration() {
    let chart = support::chart();
    let sidecars = CountingSidecars {
        inner: ChartSidecars::new(&chart).unwrap(),
        renders: Mutex::new(Vec::new()),
    };
    let tuned = "config.linkerd.io/proxy-cpu-request: 300m";
    let text: String = [
        deployment("a", "shop", ""),
        deployment("b", "shop", ""),
        deployment("c", "billing", ""),
        deployment("d", "shop", tuned),
        deployment("e", "billing", tuned),
        deployment("f", "shop", ""),
    ]
    .concat();
    let options = InjectOptions {
        values: inject_values(),
        namespaces: Namespaces::default(),
        sidecars: &sidecars,
    };
    let source = Source {
        name: "apps.yaml".into(),
        text,
    };
    let out = inject::inject(&[source], &options).unwrap();
    assert_eq!(out.report.entries.len(), 6);
    let proxies = sidecars
        .renders
        .lock()
        .unwrap()
        .iter()
        .filter(|p| **p == Part::Proxy)
        .count();
    assert_eq!(proxies, 2, "one proxy rendering per distinct configuration");
    let docs = meshchart::yaml::parse_documents(&out.output).unwrap();
    let cpu = |doc: &Value| {
        let containers = doc
            .get_path(&["spec", "template", "spec", "containers"])
            .and_then(|c| match c {
                Value::Seq(items) => items.first().cloned(),
                _ => None,
            })
            .unwrap();
        containers
            .get_path(&["resources", "requests", "cpu"])
            .cloned()
    };
    assert_eq!(cpu(&docs[3]), Some(Value::from("300m")));
    assert_eq!(cpu(&docs[4]), Some(Value::from("300m")));
    assert_eq!(cpu(&docs[0]), None);
}

#[test]
fn a_stream_read_document_by_document_gives_the_output_of_the_whole_text() {
    let chart = support::chart();
    let sidecars = ChartSidecars::new(&chart).unwrap();
    let options = InjectOptions {
        values: inject_values(),
        namespaces: Namespaces::default(),
        sidecars: &sidecars,
    };
    let text: String = (0..20)
        .map(|i| deployment(&format!("w{i}"), "shop", ""))
        .collect::<String>()
        + "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    \
           config.linkerd.io/proxy-log-level: debug\n";
    let dir = support::cli::scratch_dir("inject-streaming");
    let path = dir.join("apps.yaml");
    std::fs::write(&path, &text).unwrap();
    let inputs = inject::open_inputs(
        &[path.to_string_lossy().into_owned()],
        &mut std::io::empty(),
    )
    .unwrap();
    let mut streamed = Vec::new();
    inject::inject_stream(&inputs, &options, &mut streamed).unwrap();
    let whole = inject::inject(
        &[Source {
            name: path.to_string_lossy().into_owned(),
            text,
        }],
        &options,
    )
    .unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), whole.output);
    assert!(
        whole.output.contains("value: debug"),
        "the Namespace after the workloads applies"
    );
}
