//! The proxy, proxy-init and debug partials render from Values alone, as `meshchart inject`
//! will use them for users' workloads: no component overrides, no other template involved.

use crate::support;

use meshchart::chart::{Chart, ChartFile};
use meshchart::values::Value;
use support::{get, reference_values, set};

/// A chart holding the repository's partials and one template that splices the three sidecar
/// partials into a pod, the way a workload would get them.
fn sidecar_chart() -> Chart {
    let chart = support::chart();
    let mut files: Vec<ChartFile> = chart
        .templates
        .iter()
        .filter(|t| t.path.starts_with('_'))
        .map(|t| ChartFile {
            path: format!("templates/{}", t.path),
            text: t.text.clone(),
        })
        .collect();
    files.push(ChartFile {
        path: "Chart.yaml".into(),
        text: "apiVersion: v2\nname: sidecar\nversion: 0.1.0\n".into(),
    });
    files.push(ChartFile {
        path: "templates/pod.yaml".into(),
        text: concat!(
            "apiVersion: v1\n",
            "kind: Pod\n",
            "metadata:\n",
            "  name: web\n",
            "spec:\n",
            "  containers:\n",
            "  - name: web\n",
            "    image: web:1\n",
            "  - {{ include(\"_proxy.tpl\") | indent(4) | trim }}\n",
            "  - {{ include(\"_debug.tpl\") | indent(4) | trim }}\n",
            "  initContainers:\n",
            "  - {{ include(\"_proxy-init.tpl\") | indent(4) | trim }}\n",
        )
        .into(),
    });
    Chart::from_files("sidecar test chart", files).expect("the test chart reads")
}

fn env_value<'a>(container: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Seq(env) = get(container, "env") else {
        panic!("env is not a list");
    };
    env.iter()
        .find(|e| e.get_path(&["name"]).and_then(Value::as_str) == Some(name))
        .and_then(|e| e.get_path(&["value"]))
}

fn pod(values: &Value) -> Value {
    let rendered = support::render_chart(&sidecar_chart(), values);
    support::find(&rendered, "Pod", "web")
}

fn container<'a>(pod: &'a Value, path: &str, index: usize) -> &'a Value {
    match get(pod, path) {
        Value::Seq(items) => &items[index],
        other => panic!("{path} is not a list: {other:?}"),
    }
}

#[test]
fn sidecar_partials_render_from_values_alone() {
    let pod = pod(&reference_values());
    let proxy = container(&pod, "spec.containers", 1);
    assert_eq!(get(proxy, "name"), &Value::String("linkerd-proxy".into()));
    // No component: the proxy talks to the control plane's services, not to localhost.
    assert_eq!(
        env_value(proxy, "LINKERD2_PROXY_DESTINATION_SVC_ADDR"),
        Some(&Value::String(
            "linkerd-dst-headless.linkerd.svc.cluster.local.:8086".into()
        ))
    );
    assert_eq!(
        env_value(proxy, "LINKERD2_PROXY_INBOUND_DEFAULT_POLICY"),
        Some(&Value::String("all-unauthenticated".into()))
    );
    // proxy.await defaults to true, and the hook comes with it.
    assert!(proxy
        .get_path(&["lifecycle", "postStart", "exec", "command"])
        .is_some());
    let debug = container(&pod, "spec.containers", 2);
    assert_eq!(get(debug, "name"), &Value::String("linkerd-debug".into()));
    let init = container(&pod, "spec.initContainers", 0);
    assert_eq!(get(init, "name"), &Value::String("linkerd-init".into()));
    // The 443 exception is the control plane's own override, not the partial's.
    let Value::Seq(args) = get(init, "args") else {
        panic!("linkerd-init args is not a list");
    };
    assert!(!args
        .iter()
        .any(|a| a.as_str() == Some("--outbound-ports-to-ignore")));
}

#[test]
fn proxy_partial_follows_default_inbound_policy_and_await_values() {
    let mut values = reference_values();
    set(
        &mut values,
        "proxy.defaultInboundPolicy",
        Value::String("deny".into()),
    );
    set(&mut values, "proxy.await", Value::Bool(false));
    set(&mut values, "proxy.waitBeforeExitSeconds", Value::Int(7));
    let pod = pod(&values);
    let proxy = container(&pod, "spec.containers", 1);
    assert_eq!(
        env_value(proxy, "LINKERD2_PROXY_INBOUND_DEFAULT_POLICY"),
        Some(&Value::String("deny".into()))
    );
    assert_eq!(proxy.get_path(&["lifecycle", "postStart"]), None);
    assert_eq!(
        proxy.get_path(&["lifecycle", "preStop", "exec", "command"]),
        Some(&Value::Seq(vec![
            Value::String("/bin/bash".into()),
            Value::String("-c".into()),
            Value::String("sleep 7".into()),
        ]))
    );
}
