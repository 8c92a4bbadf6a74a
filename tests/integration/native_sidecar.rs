//! Native-sidecar proxies (`proxy.nativeSidecar`, Kubernetes 1.29+), in the control plane and in
//! injected workloads: no `linkerd-proxy` in `containers`, exactly one in `initContainers` right
//! after `linkerd-init`, `restartPolicy: Always`, a startupProbe (and no hooks) when awaited, and
//! the app's containers exactly as without it. Identity keeps its proxy a regular container.

use crate::support;

use meshchart::inject::workload::set_path;
use meshchart::inject::{self, ChartSidecars, InjectOptions, Namespaces, Source};
use meshchart::values::Value;

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

// The control plane's own native sidecars are the modern lines' (checked against upstream's
// renders in release_line_edge_*.rs): the edge-21.4.4 line runs on Kubernetes 1.24 at the
// newest, and native sidecars need 1.29 (the golden case kube-1.25 shows the refusal).

// ---- inject ----

fn inject_values(extra: &[(&[&str], Value)]) -> Value {
    let chart = meshchart::releases::embedded_line("edge-21.4.4", "linkerd-control-plane")
        .expect("the chart reads");
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
