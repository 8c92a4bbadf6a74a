//! Inject at stream speed: workloads that share an effective configuration share one rendering
//! of the sidecar containers, and a stream is transformed the same whether it is read whole or
//! document by document.

use crate::support;

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
    fn render(&self, part: Part, values: &Value) -> Result<Value, meshchart::inject::SidecarError> {
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

/// A Deployment whose app listens on `ports` (name and number), with the pod annotations given.
fn deployment_with_ports(name: &str, ports: &[(&str, u16)], pod_annotations: &str) -> String {
    let ports: String = match ports {
        [] => String::new(),
        _ => ports
            .iter()
            .map(|(port_name, p)| format!("        - {{name: {port_name}, containerPort: {p}}}\n"))
            .fold("        ports:\n".to_owned(), |all, port| all + &port),
    };
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: \
         shop\nspec:\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    \
         metadata:\n      labels: {{app: {name}}}\n      annotations: {{{pod_annotations}}}\n    \
         spec:\n      containers:\n      - name: app\n        image: app:1\n{ports}"
    )
}

/// Injects `text` with the edge-26.8.3 line's chart (whose proxy partial prints the pod's
/// inbound ports): the output documents and how many times the proxy partial rendered.
fn inject_with_edge_26_8_3(text: String) -> (Vec<Value>, usize) {
    let chart = meshchart::releases::embedded_line("edge-26.8.3", "linkerd-control-plane")
        .expect("the chart reads");
    let sidecars = CountingSidecars {
        inner: ChartSidecars::new(&chart).unwrap(),
        renders: Mutex::new(Vec::new()),
    };
    let mut values = chart.default_values().unwrap();
    meshchart::inject::workload::set_path(
        &mut values,
        &["identityTrustAnchorsPEM"],
        Value::from(support::reference_file("valid-trust-anchors.pem")),
    );
    let options = InjectOptions {
        values,
        namespaces: Namespaces::default(),
        sidecars: &sidecars,
    };
    let source = Source {
        name: "apps.yaml".into(),
        text,
    };
    let out = inject::inject(&[source], &options).unwrap_or_else(|e| panic!("{e}"));
    let proxies = sidecars
        .renders
        .lock()
        .unwrap()
        .iter()
        .filter(|p| **p == Part::Proxy)
        .count();
    (
        meshchart::yaml::parse_documents(&out.output).unwrap(),
        proxies,
    )
}

/// The value of the proxy's environment variable `var` in an injected Deployment.
fn proxy_env(doc: &Value, var: &str) -> Option<Value> {
    // In `containers`, or as a native sidecar in `initContainers`.
    let proxy = ["containers", "initContainers"]
        .iter()
        .filter_map(
            |list| match doc.get_path(&["spec", "template", "spec", list]) {
                Some(Value::Seq(items)) => Some(items),
                _ => None,
            },
        )
        .flatten()
        .find(|c| c.get_path(&["name"]) == Some(&Value::from("linkerd-proxy")))
        .expect("a proxy");
    let Some(Value::Seq(env)) = proxy.get_path(&["env"]) else {
        panic!("no env");
    };
    env.iter()
        .find(|v| v.get_path(&["name"]) == Some(&Value::from(var)))
        .unwrap_or_else(|| panic!("no {var}"))
        .get_path(&["value"])
        .cloned()
}

#[test]
fn pods_alike_but_for_their_ports_and_other_annotations_share_one_rendering_with_their_own_ports() {
    let text: String = [
        deployment_with_ports("a", &[("http", 8080)], "checksum/config: aaa"),
        deployment_with_ports(
            "b",
            &[("http", 8080), ("admin", 9090)],
            "checksum/config: bbb",
        ),
        deployment_with_ports("c", &[("grpc", 7000)], ""),
        deployment_with_ports("d", &[], ""),
        deployment_with_ports("e", &[("x", 10000), ("y", 80)], "prometheus.io/port: '80'"),
    ]
    .concat();
    let (docs, proxies) = inject_with_edge_26_8_3(text);
    // Two samples for the pods with ports, one for the pod without; debug builds render each
    // pod with ports once more, to check the shortcut against a full rendering.
    let checks = if cfg!(debug_assertions) { 4 } else { 0 };
    assert_eq!(proxies, 3 + checks);
    let inbound: Vec<Option<Value>> = docs
        .iter()
        .map(|doc| proxy_env(doc, "LINKERD2_PROXY_INBOUND_PORTS"))
        .collect();
    assert_eq!(
        inbound,
        [
            Some("8080".into()),
            Some("8080,9090".into()),
            Some("7000".into()),
            None,
            Some("10000,80".into()),
        ]
    );
}

#[test]
fn pods_naming_their_ports_in_an_annotation_each_get_their_own_port_numbers() {
    let opaque = "config.linkerd.io/opaque-ports: db";
    let text: String = [
        deployment_with_ports("a", &[("db", 5432)], opaque),
        deployment_with_ports("b", &[("db", 3306)], opaque),
        deployment_with_ports("c", &[("db", 5432)], opaque),
    ]
    .concat();
    let (docs, _) = inject_with_edge_26_8_3(text);
    let opaque: Vec<Option<Value>> = docs
        .iter()
        .map(|doc| {
            proxy_env(
                doc,
                "LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION",
            )
        })
        .collect();
    assert_eq!(
        opaque,
        [
            Some("5432".into()),
            Some("3306".into()),
            Some("5432".into())
        ]
    );
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

// --- Streams without a total cap: the cap is per document, memory flat -----------------------

/// GNU time, which says a child's peak resident memory (`wait4` from the test process would
/// not: exec carries the parent's resident size into the child's figure).
const GNU_TIME: &str = "/usr/bin/time";

/// Runs `meshchart ARGS` with `stdin` from a file, its output and report in files beside it;
/// returns its exit code and peak resident memory (KiB).
fn peak_rss_kib(args: &[&str], stdin: &std::path::Path, env: &[(&str, &str)]) -> (i32, i64) {
    let dir = stdin.parent().unwrap();
    let rss = dir.join("rss");
    let mut command = std::process::Command::new(GNU_TIME);
    command
        .args(["-f", "%M", "-o"])
        .arg(&rss)
        .arg(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, value) in env {
        command.env(key, value);
    }
    let status = command
        .stdin(std::fs::File::open(stdin).unwrap())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .status()
        .unwrap();
    let rss = std::fs::read_to_string(&rss).unwrap();
    // GNU time says "Command exited with non-zero status N" before the figure.
    let peak = rss.lines().last().unwrap().trim().parse().unwrap();
    (status.code().unwrap(), peak)
}

fn gnu_time_or_skip(test: &str) -> bool {
    let present = std::path::Path::new(GNU_TIME).exists();
    if !present {
        support::cli::skip(
            test,
            GNU_TIME,
            "GNU time (/usr/bin/time, Debian package `time`) is not installed",
        );
    }
    present
}

/// `n` resources: ConfigMaps, and one Deployment in a hundred, a tenth of those tuned.
fn resources(n: usize) -> String {
    (0..n)
        .map(|i| {
            if i % 100 == 0 {
                let tuned = if i % 1000 == 0 {
                    "config.linkerd.io/proxy-cpu-request: 300m"
                } else {
                    ""
                };
                deployment(&format!("web-{i}"), &format!("team-{}", i % 20), tuned)
            } else {
                format!(
                    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{i}\n  \
                     namespace: team-{}\ndata:\n  key: value-{i}\n",
                    i % 20
                )
            }
        })
        .collect()
}

const TRUST_ANCHORS: &str = "identityTrustAnchorsPEM=tests/certs/ca.crt";

#[test]
fn inject_memory_stays_flat_from_5000_to_50000_resources() {
    if !gnu_time_or_skip("inject_memory_stays_flat_from_5000_to_50000_resources") {
        return;
    }
    let dir = support::cli::scratch_dir("inject-memory");
    let mut peaks = Vec::new();
    for n in [5_000, 50_000] {
        let input = dir.join(format!("r{n}.yaml"));
        std::fs::write(&input, resources(n)).unwrap();
        let (code, peak) = peak_rss_kib(&["inject", "-", "--set-file", TRUST_ANCHORS], &input, &[]);
        let report = std::fs::read_to_string(dir.join("stderr")).unwrap();
        assert_eq!(code, 0, "{report}");
        // An entry per resource, then the summary line.
        assert_eq!(report.lines().count(), n + 1, "an entry per resource");
        peaks.push(peak);
    }
    // With the report held in memory, the larger stream needed twice the memory (13 vs 27 MB).
    assert!(
        peaks[1] * 2 <= peaks[0] * 3,
        "peak RSS grew from {} KiB to {} KiB with the stream",
        peaks[0],
        peaks[1]
    );
}

#[test]
fn a_stream_past_the_input_cap_is_read_with_the_cap_on_each_document() {
    if !gnu_time_or_skip("a_stream_past_the_input_cap_is_read_with_the_cap_on_each_document") {
        return;
    }
    let dir = support::cli::scratch_dir("inject-document-cap");
    let input = dir.join("many.yaml");
    let stream = resources(1_000);
    assert!(stream.len() > 64 << 10);
    std::fs::write(&input, &stream).unwrap();
    let cap = [("MESHCHART_MAX_INPUT_BYTES", "64KiB")];
    for args in [
        ["inject", "-", "--set-file", TRUST_ANCHORS],
        [
            "inject",
            input.to_str().unwrap(),
            "--set-file",
            TRUST_ANCHORS,
        ],
    ] {
        let (code, _) = peak_rss_kib(&args, &input, &cap);
        let report = std::fs::read_to_string(dir.join("stderr")).unwrap();
        assert_eq!(code, 0, "{report}");
        // An entry per resource, then the summary line.
        assert_eq!(report.lines().count(), 1_000 + 1);
    }
    // One document past the cap is refused by its line, and nothing is written.
    let big = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: {}\n",
        resources(3),
        "x".repeat(70 << 10)
    );
    let line = resources(3).lines().count() + 2;
    std::fs::write(&input, big).unwrap();
    let (code, _) = peak_rss_kib(&["inject", "-", "--set-file", TRUST_ANCHORS], &input, &cap);
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap();
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "<stdin>:{line}: a document larger than the limit of 65536 bytes"
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("stdout")).unwrap(), "");
}

/// `items` as `kubectl get -A -o yaml` prints them: one `List`, its items at column 0.
fn as_list(stream: &str) -> String {
    let mut list = String::from("apiVersion: v1\nitems:\n");
    for doc in stream.split("---\n").filter(|d| !d.trim().is_empty()) {
        for (i, line) in doc.lines().enumerate() {
            let prefix = if i == 0 { "- " } else { "  " };
            list.push_str(prefix);
            list.push_str(line);
            list.push('\n');
        }
    }
    list + "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
}

#[test]
fn a_list_larger_than_the_cap_is_read_item_by_item_and_written_as_the_whole_list() {
    if !gnu_time_or_skip(
        "a_list_larger_than_the_cap_is_read_item_by_item_and_written_as_the_whole_list",
    ) {
        return;
    }
    let dir = support::cli::scratch_dir("inject-list");
    let items = resources(12_000);
    let list = as_list(&items);
    assert!(list.len() > 1 << 20, "large enough to be read item by item");
    let input = dir.join("list.yaml");
    std::fs::write(&input, &list).unwrap();
    let cap = [("MESHCHART_MAX_INPUT_BYTES", "256KiB")];
    let (code, _) = peak_rss_kib(&["inject", "-", "--set-file", TRUST_ANCHORS], &input, &cap);
    let report = std::fs::read_to_string(dir.join("stderr")).unwrap();
    assert_eq!(code, 0, "{report}");
    let streamed = std::fs::read_to_string(dir.join("stdout")).unwrap();

    // What the whole List would be written as: its items injected as a stream of documents,
    // read back and written as one List.
    let items_file = dir.join("items.yaml");
    std::fs::write(&items_file, &items).unwrap();
    let (code, _) = peak_rss_kib(
        &[
            "inject",
            items_file.to_str().unwrap(),
            "--set-file",
            TRUST_ANCHORS,
        ],
        &input,
        &[],
    );
    let items_report = std::fs::read_to_string(dir.join("stderr")).unwrap();
    assert_eq!(code, 0, "{items_report}");
    assert_eq!(report, items_report, "the same entries, in the same order");
    let injected = std::fs::read_to_string(dir.join("stdout")).unwrap();
    let docs = meshchart::yaml::parse_documents(&injected).unwrap();
    let whole: meshchart::yaml::Map = [
        ("apiVersion", Value::from("v1")),
        ("items", Value::Seq(docs)),
        ("kind", Value::from("List")),
        (
            "metadata",
            Value::Map([("resourceVersion".to_owned(), Value::from(""))].into()),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let expected = meshchart::yaml::to_yaml(&Value::Map(whole)) + "\n";
    assert!(
        streamed == expected,
        "the streamed List differs from the whole List"
    );

    // Nothing to change: the List comes back byte for byte.
    let (code, _) = peak_rss_kib(&["uninject", "-"], &input, &cap);
    assert_eq!(code, 0);
    assert!(std::fs::read_to_string(dir.join("stdout")).unwrap() == list);
}

/// A `kubectl get -A -o yaml` List the size the issue measured (124 MB), through stdin with the
/// default cap. Slow in a debug build: runs when MESHCHART_BIG_STREAM_TESTS is set.
#[test]
fn a_124_mb_list_on_stdin_is_injected_in_flat_memory() {
    if std::env::var_os("MESHCHART_BIG_STREAM_TESTS").is_none() {
        eprintln!("SKIPPED a_124_mb_list_on_stdin_is_injected_in_flat_memory: set MESHCHART_BIG_STREAM_TESTS=1");
        return;
    }
    if !gnu_time_or_skip("a_124_mb_list_on_stdin_is_injected_in_flat_memory") {
        return;
    }
    let dir = support::cli::scratch_dir("inject-big-list");
    let list = as_list(&resources(1_000_000));
    assert!(list.len() > 124_000_000, "{}", list.len());
    let input = dir.join("list.yaml");
    std::fs::write(&input, &list).unwrap();
    drop(list);
    let (code, peak) = peak_rss_kib(&["inject", "-", "--set-file", TRUST_ANCHORS], &input, &[]);
    let stderr_len = std::fs::metadata(dir.join("stderr")).unwrap().len();
    assert_eq!(code, 0, "report of {stderr_len} bytes");
    assert!(peak < 100 << 10, "peak RSS {peak} KiB");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_list_read_item_by_item_is_refused_as_one_json_line_naming_its_line() {
    let dir = support::cli::scratch_dir("inject-list-json");
    let list = as_list(&resources(12_000));
    assert!(list.len() > 1 << 20, "large enough to be read item by item");
    let input = dir.join("list.yaml");
    std::fs::write(&input, &list).unwrap();
    let out = support::cli::run(&mut support::cli::command(&[
        "inject",
        input.to_str().unwrap(),
        "-o",
        "json",
        "--set-file",
        TRUST_ANCHORS,
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("list.yaml:1: a List larger than 1 MiB is read item by item"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing is written");
}
