//! Native-sidecar proxies (`proxy.nativeSidecar`, Kubernetes 1.29+), in the control plane and in
//! injected workloads: no `linkerd-proxy` in `containers`, exactly one in `initContainers` right
//! after `linkerd-init`, `restartPolicy: Always`, a startupProbe (and no hooks) when awaited, and
//! the app's containers exactly as without it. Identity keeps its proxy a regular container.

mod support;

use meshchart::inject::workload::set_path;
use meshchart::inject::{self, ChartSidecars, InjectOptions, Namespaces, Source};
use meshchart::values::Value;
use support::{find, get, reference_values, render, set};

const PROXY: &str = "linkerd-proxy";
const INIT: &str = "linkerd-init";
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

fn items<'a>(spec: &'a Value, key: &str) -> &'a [Value] {
    match spec.get_path(&[key]) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

fn name_of(container: &Value) -> &str {
    container
        .get_path(&["name"])
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn names(spec: &Value, key: &str) -> Vec<String> {
    items(spec, key)
        .iter()
        .map(|c| name_of(c).to_owned())
        .collect()
}

/// Checks one pod spec with a native-sidecar proxy; `apps` are the containers it must have, in
/// order, and `app_inits` the pod's own init containers.
fn assert_native(
    what: &str,
    spec: &Value,
    apps: &[String],
    app_inits: &[String],
    awaited: bool,
    init: bool,
) {
    assert_eq!(names(spec, "containers"), apps, "{what}: containers");
    let inits = names(spec, "initContainers");
    assert_eq!(
        inits.iter().filter(|n| *n == PROXY).count(),
        1,
        "{what}: one proxy in initContainers: {inits:?}"
    );
    let mut expected: Vec<String> = Vec::new();
    if init {
        expected.push(INIT.into());
    }
    expected.push(PROXY.into());
    expected.extend(app_inits.iter().cloned());
    assert_eq!(
        inits, expected,
        "{what}: linkerd-init, the proxy, then the pod's"
    );
    let proxy = items(spec, "initContainers")
        .iter()
        .find(|c| name_of(c) == PROXY)
        .expect("the proxy");
    assert_eq!(
        proxy.get_path(&["restartPolicy"]),
        Some(&Value::from("Always")),
        "{what}: restartPolicy"
    );
    assert_eq!(proxy.get_path(&["lifecycle"]), None, "{what}: no hooks");
    let probe = proxy.get_path(&["startupProbe"]);
    if awaited {
        let probe =
            probe.unwrap_or_else(|| panic!("{what}: an awaited proxy needs a startupProbe"));
        assert_eq!(
            probe.get_path(&["httpGet", "path"]),
            Some(&Value::from("/ready")),
            "{what}"
        );
        assert_eq!(
            probe.get_path(&["httpGet", "port"]),
            proxy.get_path(&["readinessProbe", "httpGet", "port"]),
            "{what}: the startupProbe asks the admin port"
        );
        assert_eq!(
            probe.get_path(&["failureThreshold"]),
            Some(&Value::Int(120)),
            "{what}"
        );
        assert_eq!(
            probe.get_path(&["periodSeconds"]),
            Some(&Value::Int(1)),
            "{what}"
        );
    } else {
        assert_eq!(probe, None, "{what}: no startupProbe without await");
    }
}

// ---- control plane ----

const PROXIED: &[(&str, &str)] = &[
    ("linkerd-destination", "destination"),
    ("linkerd-proxy-injector", "proxy-injector"),
    ("linkerd-sp-validator", "sp-validator"),
];

fn pod_spec(deployment: &Value) -> &Value {
    get(deployment, "spec.template.spec")
}

#[test]
fn control_plane_components_run_native_sidecars_and_identity_does_not() {
    for control_plane_await in [true, false] {
        let mut plain = reference_values();
        set(
            &mut plain,
            "proxy.controlPlaneAwait",
            Value::Bool(control_plane_await),
        );
        let mut native = plain.clone();
        set(&mut native, "proxy.nativeSidecar", Value::Bool(true));
        let (plain, native) = (render(&plain), render(&native));
        for (deployment, _) in PROXIED {
            let what = format!("{deployment} (controlPlaneAwait={control_plane_await})");
            let before = find(&plain, "Deployment", deployment);
            let after = find(&native, "Deployment", deployment);
            let apps: Vec<String> = names(pod_spec(&before), "containers")
                .into_iter()
                .filter(|n| n != PROXY)
                .collect();
            assert_native(
                &what,
                pod_spec(&after),
                &apps,
                &[],
                control_plane_await,
                true,
            );
            let annotations = get(&after, "spec.template.metadata.annotations");
            assert_eq!(annotations.get_path(&[DEFAULT_CONTAINER]), None, "{what}");
        }
        let before = find(&plain, "Deployment", "linkerd-identity");
        let after = find(&native, "Deployment", "linkerd-identity");
        assert_eq!(
            before, after,
            "identity is the same with and without native sidecars"
        );
        assert_eq!(names(pod_spec(&after), "containers"), ["identity", PROXY]);
        assert_eq!(names(pod_spec(&after), "initContainers"), [INIT]);
    }
}

#[test]
fn control_plane_native_sidecars_below_kubernetes_1_29_are_an_error() {
    let mut values = reference_values();
    set(&mut values, "proxy.nativeSidecar", Value::Bool(true));
    let chart = support::chart();
    let engine = meshchart::engine::Engine::new(&chart).expect("the chart compiles");
    for (version, ok) in [("1.28.9", false), ("1.29.0", true), ("v1.30.2-gke.1", true)] {
        let options = meshchart::engine::RenderOptions {
            kube_version: meshchart::engine::KubeVersion::parse(version).unwrap(),
            ..Default::default()
        };
        match engine.render(&values, &options) {
            Ok(_) => assert!(ok, "{version} rendered"),
            Err(e) => {
                assert!(!ok, "{version}: {e}");
                let text = e.to_string();
                assert!(
                    text.contains(
                        "proxy.nativeSidecar needs Kubernetes 1.29 or newer (rendering for v1.28.9)"
                    ),
                    "{text}"
                );
            }
        }
    }
}

// ---- inject ----

fn inject_values(extra: &[(&[&str], Value)]) -> Value {
    let chart = meshchart::chart::Chart::embedded().expect("the chart reads");
    let mut values = chart.default_values().expect("default values");
    set_path(
        &mut values,
        &["identityTrustAnchorsPEM"],
        Value::from(support::reference_file("valid-trust-anchors.pem")),
    );
    for (path, value) in extra {
        set_path(&mut values, path, value.clone());
    }
    values
}

fn run_inject(values: Value, text: &str) -> Vec<Value> {
    let chart = support::chart();
    let sidecars = ChartSidecars::new(&chart).expect("the chart compiles");
    let options = InjectOptions {
        values,
        namespaces: Namespaces::default(),
        sidecars: &sidecars,
    };
    let source = Source {
        name: "in.yaml".into(),
        text: text.to_owned(),
    };
    let out = inject::inject(&[source], &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .output;
    meshchart::yaml::parse_documents(&out)
        .unwrap()
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect()
}

const WORKLOADS: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: emojivoto}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers:
      - {name: migrate, image: example.com/migrate:1}
      - {name: warm, image: example.com/warm:1}
      containers:
      - {name: web, image: example.com/web:1}
      - {name: cache, image: example.com/cache:1}
---
apiVersion: v1
kind: Pod
metadata: {name: bot, namespace: emojivoto}
spec:
  containers:
  - {name: bot, image: example.com/bot:1}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: emojivoto}
spec:
  schedule: "*/10 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: report, image: example.com/report:1}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: emojivoto}
spec:
  template:
    metadata:
      annotations: {config.linkerd.io/proxy-await: disabled}
    spec:
      restartPolicy: Never
      containers:
      - {name: once, image: example.com/once:1}
"#;

/// What one workload above must look like once injected.
struct Expected {
    /// From the document to the pod spec.
    spec: &'static [&'static str],
    /// The app containers, in order.
    apps: Vec<String>,
    /// The pod's own init containers, in order.
    inits: Vec<String>,
    /// Whether its proxy is awaited.
    awaited: bool,
}

/// The expectations for each workload above, in order.
fn expectations() -> Vec<Expected> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    vec![
        Expected {
            spec: &["spec", "template", "spec"],
            apps: s(&["web", "cache"]),
            inits: s(&["migrate", "warm"]),
            awaited: true,
        },
        Expected {
            spec: &["spec"],
            apps: s(&["bot"]),
            inits: vec![],
            awaited: true,
        },
        Expected {
            spec: &["spec", "jobTemplate", "spec", "template", "spec"],
            apps: s(&["report"]),
            inits: vec![],
            awaited: true,
        },
        Expected {
            spec: &["spec", "template", "spec"],
            apps: s(&["once"]),
            inits: vec![],
            awaited: false,
        },
    ]
}

fn check_workloads(what: &str, docs: &[Value], init: bool) {
    assert_eq!(docs.len(), 4, "{what}");
    for (doc, expected) in docs.iter().zip(expectations()) {
        let kind = doc.get_path(&["kind"]).and_then(Value::as_str).unwrap();
        let spec = doc.get_path(expected.spec).expect("a pod spec");
        assert_native(
            &format!("{what}: {kind}"),
            spec,
            &expected.apps,
            &expected.inits,
            expected.awaited,
            init,
        );
        let mut template: Vec<&str> = expected.spec.to_vec();
        template.pop();
        template.extend(["metadata", "annotations", DEFAULT_CONTAINER]);
        assert_eq!(doc.get_path(&template), None, "{what}: {kind}");
    }
}

#[test]
fn inject_puts_native_sidecars_after_linkerd_init() {
    let values = inject_values(&[(&["proxy", "nativeSidecar"], Value::Bool(true))]);
    check_workloads("values", &run_inject(values, WORKLOADS), true);
}

#[test]
fn inject_native_sidecars_by_annotation_and_with_the_cni_plugin() {
    for key in [
        "config.linkerd.io/proxy-enable-native-sidecar",
        "config.beta.linkerd.io/proxy-enable-native-sidecar",
        "config.alpha.linkerd.io/proxy-enable-native-sidecar",
    ] {
        // The annotation on each workload's metadata (a Pod's is its pod template's).
        let mut text = String::new();
        for doc in meshchart::yaml::parse_documents(WORKLOADS).unwrap() {
            let mut doc = doc;
            set_path(
                &mut doc,
                &["metadata", "annotations", key],
                Value::from("true"),
            );
            text.push_str(&meshchart::yaml::try_to_yaml(&doc).unwrap());
            text.push_str("\n---\n");
        }
        check_workloads(key, &run_inject(inject_values(&[]), &text), true);
    }
    let values = inject_values(&[
        (&["proxy", "nativeSidecar"], Value::Bool(true)),
        (&["cniEnabled"], Value::Bool(true)),
    ]);
    check_workloads("cniEnabled", &run_inject(values, WORKLOADS), false);
}

#[test]
fn uninject_takes_native_sidecars_out() {
    let values = inject_values(&[(&["proxy", "nativeSidecar"], Value::Bool(true))]);
    let injected = run_inject(values, WORKLOADS);
    let text: Vec<String> = injected
        .iter()
        .map(|d| meshchart::yaml::try_to_yaml(d).unwrap())
        .collect();
    let source = Source {
        name: "injected.yaml".into(),
        text: text.join("\n---\n") + "\n",
    };
    let out = inject::uninject(&[source]).unwrap().output;
    let restored: Vec<Value> = meshchart::yaml::parse_documents(&out)
        .unwrap()
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect();
    let original: Vec<Value> = meshchart::yaml::parse_documents(WORKLOADS)
        .unwrap()
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect();
    assert_eq!(restored, original);
}
