//! Properties of inject and uninject over generated workloads, with the real chart's partials:
//! inject is idempotent, uninject restores the input, app containers keep their order, and an
//! injected pod has exactly one proxy: first in `containers` when awaited, last when not, and in
//! `initContainers` right after `linkerd-init` for the workloads that ask for a native sidecar.

use crate::support::inject_setup;

use inject_setup::Setup;
use meshchart::chart::Chart;
use meshchart::inject::workload::{set_path, WORKLOAD_KINDS};
use meshchart::inject::{self, InjectOptions, Namespaces, Source};
use meshchart::values::{Map, Value};
use proptest::prelude::*;
use std::sync::OnceLock;

fn setup() -> &'static Setup {
    static CHART: OnceLock<Chart> = OnceLock::new();
    static SETUP: OnceLock<Setup> = OnceLock::new();
    let root = camino::Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    SETUP.get_or_init(|| {
        let chart = CHART.get_or_init(|| {
            meshchart::releases::embedded_line("edge-21.4.4", "linkerd-control-plane")
                .expect("the chart reads")
        });
        let anchors = std::fs::read_to_string(root.join("tests/reference/valid-trust-anchors.pem"))
            .expect("trust anchors");
        Setup::new(chart, &anchors)
    })
}

fn run_inject(text: &str) -> String {
    let s = setup();
    let options = InjectOptions {
        values: s.values.clone(),
        namespaces: Namespaces::default(),
        sidecars: &s.sidecars,
    };
    let source = Source {
        name: "generated.yaml".into(),
        text: text.to_owned(),
    };
    inject::inject(&[source], &options)
        .unwrap_or_else(|e| panic!("inject failed: {e}\n{text}"))
        .output
}

fn run_uninject(text: &str) -> String {
    let source = Source {
        name: "generated.yaml".into(),
        text: text.to_owned(),
    };
    inject::uninject(&[source])
        .unwrap_or_else(|e| panic!("uninject failed: {e}\n{text}"))
        .output
}

fn parse(text: &str) -> Vec<Value> {
    meshchart::yaml::parse_documents(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,6}"
}

fn text() -> impl Strategy<Value = String> {
    "[ -~]{0,12}"
}

fn container(name: String, ports: Vec<(i64, Option<String>)>) -> Value {
    let mut pairs = vec![
        ("name", Value::from(name.clone())),
        ("image", Value::from(format!("example.com/{name}:1"))),
    ];
    if !ports.is_empty() {
        let ports = ports
            .into_iter()
            .map(|(port, name)| {
                let mut p = vec![("containerPort", Value::Int(port))];
                if let Some(n) = name {
                    p.push(("name", Value::from(n)));
                }
                map(p)
            })
            .collect();
        pairs.push(("ports", Value::Seq(ports)));
    }
    map(pairs)
}

/// The spellings of the native-sidecar annotation.
const NATIVE_SIDECAR_KEYS: &[&str] = &[
    "config.linkerd.io/proxy-enable-native-sidecar",
    "config.beta.linkerd.io/proxy-enable-native-sidecar",
    "config.alpha.linkerd.io/proxy-enable-native-sidecar",
];

/// A pod template: optional metadata with user labels and annotations (including proxy-await,
/// the native-sidecar annotation under any of its prefixes, linkerd.io/inject and a default
/// container of the user's), app and init containers, volumes.
fn pod_template() -> impl Strategy<Value = (Value, Vec<String>)> {
    (
        prop::collection::btree_set(name(), 1..4),
        prop::collection::vec(name(), 0..3),
        prop::collection::vec(name(), 0..3),
        prop::collection::btree_map(r"example\.com/[a-z]{1,5}", text(), 0..3),
        prop::collection::btree_map("[a-z]{1,6}", name(), 0..3),
        prop::option::of(prop::sample::select(vec!["enabled", "disabled"])),
        prop::option::of(prop::sample::select(vec!["enabled", "ingress"])),
        any::<bool>(),
        0u8..4,
        (
            prop::collection::vec((1i64..65536, prop::option::of("[a-z]{1,6}")), 0..3),
            any::<bool>(),
        ),
        prop::option::of((
            prop::sample::select(NATIVE_SIDECAR_KEYS.to_vec()),
            any::<bool>(),
        )),
    )
        .prop_map(
            |(
                names,
                inits,
                volumes,
                annotations,
                labels,
                await_,
                inject,
                default_container,
                metadata_shape,
                (ports, caps),
                native,
            )| {
                let names: Vec<String> = names.into_iter().collect();
                let mut containers: Vec<Value> = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    containers.push(container(
                        n.clone(),
                        if i == 0 { ports.clone() } else { vec![] },
                    ));
                }
                if caps {
                    // Capabilities and the token mount of the first container are copied to the
                    // sidecars.
                    let caps = map(vec![
                        ("add", Value::Seq(vec![Value::from("NET_BIND_SERVICE")])),
                        ("drop", Value::Seq(vec![Value::from("ALL")])),
                    ]);
                    set_path(
                        &mut containers[0],
                        &["securityContext", "capabilities"],
                        caps,
                    );
                    let mount = map(vec![
                        (
                            "mountPath",
                            Value::from("/var/run/secrets/kubernetes.io/serviceaccount"),
                        ),
                        ("name", Value::from("token")),
                        ("readOnly", Value::Bool(true)),
                    ]);
                    set_path(
                        &mut containers[0],
                        &["volumeMounts"],
                        Value::Seq(vec![mount]),
                    );
                }
                let mut spec = vec![("containers", Value::Seq(containers))];
                if !inits.is_empty() {
                    let inits = inits
                        .iter()
                        .enumerate()
                        .map(|(i, n)| container(format!("init{i}{n}"), vec![]))
                        .collect();
                    spec.push(("initContainers", Value::Seq(inits)));
                }
                if !volumes.is_empty() {
                    let volumes = volumes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            map(vec![
                                ("name", Value::from(format!("v{i}{n}"))),
                                ("emptyDir", Value::Map(Map::new())),
                            ])
                        })
                        .collect();
                    spec.push(("volumes", Value::Seq(volumes)));
                }
                let mut annotations: Map = annotations
                    .into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect();
                if let Some(a) = await_ {
                    annotations.insert("config.linkerd.io/proxy-await".into(), Value::from(a));
                }
                if let Some(i) = inject {
                    annotations.insert("linkerd.io/inject".into(), Value::from(i));
                }
                if let Some((key, on)) = native {
                    annotations.insert(key.into(), Value::from(on.to_string()));
                }
                if default_container {
                    annotations.insert(
                        "kubectl.kubernetes.io/default-container".into(),
                        Value::from(names[names.len() - 1].clone()),
                    );
                }
                let labels: Map = labels
                    .into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect();
                // 0: no metadata; 1: empty metadata maps; 2: as generated, empty maps left out;
                // 3: labels only.
                let metadata = match metadata_shape {
                    0 => None,
                    1 => Some(map(vec![
                        ("annotations", Value::Map(annotations)),
                        ("labels", Value::Map(labels)),
                    ])),
                    2 => {
                        let mut m = Vec::new();
                        if !annotations.is_empty() {
                            m.push(("annotations", Value::Map(annotations)));
                        }
                        if !labels.is_empty() {
                            m.push(("labels", Value::Map(labels)));
                        }
                        Some(map(m))
                    }
                    _ => Some(map(vec![("labels", Value::Map(labels))])),
                };
                let mut template = vec![("spec", map(spec))];
                if let Some(m) = metadata {
                    template.push(("metadata", m));
                }
                (map(template), names)
            },
        )
}

/// A workload of any injected kind around a generated pod template, as YAML.
fn workload() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::sample::select(WORKLOAD_KINDS.to_vec()),
        name(),
        prop::option::of(name()),
        pod_template(),
        any::<bool>(),
    )
        .prop_map(
            |(kind, wl_name, namespace, (mut template, names), control_plane)| {
                // A selector over the template's labels; for a control-plane style workload it
                // includes labels inject owns (uninject must keep those).
                let mut selector = template
                    .get_path(&["metadata", "labels"])
                    .and_then(Value::as_map)
                    .cloned()
                    .unwrap_or_default();
                if control_plane && kind.template_path.len() == 2 {
                    let mut owned = vec![("linkerd.io/control-plane-ns", "linkerd".to_owned())];
                    if let Some(label) = kind.owner_label {
                        owned.push((label, wl_name.clone()));
                    }
                    for (k, v) in owned {
                        selector.insert(k.into(), Value::from(v.clone()));
                        set_path(&mut template, &["metadata", "labels", k], Value::from(v));
                    }
                }
                let mut metadata = vec![("name", Value::from(wl_name))];
                if let Some(ns) = namespace {
                    metadata.push(("namespace", Value::from(ns)));
                }
                let mut doc = if kind.template_path.is_empty() {
                    let Value::Map(mut t) = template else {
                        unreachable!()
                    };
                    let mut meta = match t.remove("metadata") {
                        Some(Value::Map(m)) => m,
                        _ => Map::new(),
                    };
                    for (k, v) in metadata {
                        meta.insert(k.into(), v);
                    }
                    t.insert("metadata".into(), Value::Map(meta));
                    Value::Map(t)
                } else {
                    let mut root = map(vec![("metadata", map(metadata))]);
                    set_path(&mut root, kind.template_path, template);
                    if kind.template_path.len() == 2 && !selector.is_empty() {
                        let path: &[&str] = if kind.kind == "ReplicationController" {
                            &["spec", "selector"]
                        } else {
                            &["spec", "selector", "matchLabels"]
                        };
                        set_path(&mut root, path, Value::Map(selector));
                    }
                    root
                };
                set_path(&mut doc, &["apiVersion"], Value::from("v1"));
                set_path(&mut doc, &["kind"], Value::from(kind.kind));
                let text =
                    meshchart::yaml::try_to_yaml(&doc).unwrap_or_else(|e| panic!("{e}: {doc:?}"));
                (text + "\n", names)
            },
        )
}

fn pod_spec(doc: &Value) -> &Value {
    let kind = doc
        .get_path(&["kind"])
        .and_then(Value::as_str)
        .unwrap_or_default();
    let k = meshchart::inject::workload::workload_kind(kind).expect("a workload kind");
    let mut path: Vec<&str> = k.template_path.to_vec();
    path.push("spec");
    doc.get_path(&path).expect("a pod spec")
}

fn names_of(spec: &Value, key: &str) -> Vec<String> {
    match spec.get_path(&[key]) {
        Some(Value::Seq(items)) => items
            .iter()
            .map(|i| {
                i.get_path(&["name"])
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect(),
        _ => Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn inject_is_idempotent((input, _) in workload()) {
        let once = run_inject(&input);
        let twice = run_inject(&once);
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn uninject_restores_the_input((input, _) in workload()) {
        let injected = run_inject(&input);
        prop_assert_eq!(parse(&run_uninject(&injected)), parse(&input));
    }

    #[test]
    fn app_containers_keep_their_order_and_one_proxy_is_added((input, names) in workload()) {
        let injected = run_inject(&input);
        let docs = parse(&injected);
        prop_assert!(!docs.is_empty(), "no output for\n{}\ngot\n{}", input, injected);
        let spec = pod_spec(&docs[0]);
        let containers = names_of(spec, "containers");
        let inits = names_of(spec, "initContainers");
        let apps: Vec<String> = containers.iter().filter(|n| !n.starts_with("linkerd-")).cloned().collect();
        prop_assert_eq!(apps, names);
        let proxies = containers
            .iter()
            .chain(inits.iter())
            .filter(|n| *n == "linkerd-proxy")
            .count();
        prop_assert_eq!(proxies, 1);
        let app_inits = names_of(pod_spec(&parse(&input)[0]), "initContainers");
        let native = input.contains("proxy-enable-native-sidecar: \"true\"");
        let await_off = input.contains("config.linkerd.io/proxy-await: disabled");
        let proxy_first = containers.first().map(String::as_str) == Some("linkerd-proxy");
        prop_assert_eq!(proxy_first, !await_off && !native);
        let mut expected_inits: Vec<String> = Vec::new();
        if native {
            expected_inits.extend(["linkerd-init".to_owned(), "linkerd-proxy".to_owned()]);
            expected_inits.extend(app_inits);
        } else {
            expected_inits.extend(app_inits);
            expected_inits.push("linkerd-init".to_owned());
        }
        prop_assert_eq!(&inits, &expected_inits);
        let proxy = spec
            .get_path(&[if native { "initContainers" } else { "containers" }])
            .and_then(|c| match c {
                Value::Seq(items) => items
                    .iter()
                    .find(|i| i.get_path(&["name"]) == Some(&Value::from("linkerd-proxy"))),
                _ => None,
            })
            .expect("the proxy");
        let restart = proxy.get_path(&["restartPolicy"]).and_then(Value::as_str);
        prop_assert_eq!(restart, native.then_some("Always"));
        prop_assert_eq!(proxy.get_path(&["startupProbe"]).is_some(), native && !await_off);
        let hook = proxy.get_path(&["lifecycle", "postStart"]).is_some();
        prop_assert_eq!(hook, !native && !await_off);
    }
}
