//! `proxy.await` in the control plane: which components force it, where the proxy goes, and that
//! the forced values never leak out of their template.
//!
//! destination, proxy-injector and sp-validator force `proxy.await` to `proxy.controlPlaneAwait`
//! (default true: proxy first, with the `linkerd-await --port=<admin port>` postStart hook,
//! `--timeout=<proxy.awaitTimeout>` added when set, and `kubectl.kubernetes.io/default-container` naming their
//! own container); identity forces `false` (proxy last, no hook) whatever is set. The user's
//! `proxy.await` only shows in linkerd-config, which the proxy injector applies to workloads.

use crate::support::{self, RenderDocuments as _};

use meshchart::chart::{Chart, ChartFile};
use meshchart::values::Value;
use support::{find, get, reference_values, render, set};

const AWAIT_HOOK: &str = "/usr/lib/linkerd/linkerd-await";
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

/// The components that wait for their proxy, with their own container's name.
const AWAITING: &[(&str, &str)] = &[
    ("linkerd-destination", "destination"),
    ("linkerd-proxy-injector", "proxy-injector"),
    ("linkerd-sp-validator", "sp-validator"),
];

/// The reference values, and the same with `--set proxy.await=false`.
fn both_settings() -> [(bool, Value); 2] {
    let mut off = reference_values();
    set(&mut off, "proxy.await", Value::Bool(false));
    [(true, reference_values()), (false, off)]
}

fn containers(deployment: &Value) -> &[Value] {
    match get(deployment, "spec.template.spec.containers") {
        Value::Seq(items) => items,
        other => panic!("containers is not a list: {other:?}"),
    }
}

fn name_of(container: &Value) -> &str {
    container
        .get_path(&["name"])
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn post_start(container: &Value) -> Option<&Value> {
    container.get_path(&["lifecycle", "postStart", "exec", "command"])
}

/// The hook's command for an optional timeout and an admin port.
fn hook(timeout: Option<&str>, admin_port: u16) -> Value {
    let mut command = vec![Value::String(AWAIT_HOOK.into())];
    command.extend(timeout.map(|t| Value::String(format!("--timeout={t}"))));
    command.push(Value::String(format!("--port={admin_port}")));
    Value::Seq(command)
}

#[test]
fn destination_injector_and_sp_validator_run_the_proxy_first_with_the_await_hook() {
    for (user_await, values) in both_settings() {
        let rendered = render(&values);
        for (deployment, _) in AWAITING {
            let doc = find(&rendered, "Deployment", deployment);
            let first = &containers(&doc)[0];
            assert_eq!(
                name_of(first),
                "linkerd-proxy",
                "{deployment} (proxy.await={user_await}): the proxy must be containers[0]"
            );
            assert_eq!(
                post_start(first),
                Some(&hook(None, 4191)),
                "{deployment} (proxy.await={user_await}): the proxy needs the linkerd-await hook"
            );
        }
    }
}

#[test]
fn destination_injector_and_sp_validator_name_their_own_container_as_default() {
    for (user_await, values) in both_settings() {
        let rendered = render(&values);
        for (deployment, container) in AWAITING {
            let doc = find(&rendered, "Deployment", deployment);
            let annotations = get(&doc, "spec.template.metadata.annotations");
            assert_eq!(
                annotations.get_path(&[DEFAULT_CONTAINER]),
                Some(&Value::String((*container).into())),
                "{deployment} (proxy.await={user_await})"
            );
            assert!(
                containers(&doc).iter().any(|c| name_of(c) == *container),
                "{deployment}: the default container {container} must exist"
            );
        }
    }
}

#[test]
fn identity_runs_the_proxy_last_without_a_hook() {
    for (user_await, values) in both_settings() {
        let doc = find(&render(&values), "Deployment", "linkerd-identity");
        let names: Vec<&str> = containers(&doc).iter().map(name_of).collect();
        assert_eq!(
            names,
            ["identity", "linkerd-proxy"],
            "identity (proxy.await={user_await})"
        );
        let proxy = &containers(&doc)[1];
        assert_eq!(
            proxy.get_path(&["lifecycle"]),
            None,
            "identity (proxy.await={user_await}): no postStart hook (and no preStop by default)"
        );
        let annotations = get(&doc, "spec.template.metadata.annotations");
        assert_eq!(
            annotations.get_path(&[DEFAULT_CONTAINER]),
            None,
            "identity (proxy.await={user_await}): the proxy is not first, no default-container"
        );
    }
}

#[test]
fn the_hook_waits_for_proxy_await_timeout_on_the_admin_port() {
    let mut values = reference_values();
    set(&mut values, "proxy.awaitTimeout", Value::from("1m30s"));
    set(&mut values, "proxy.ports.admin", Value::Int(4999));
    let rendered = render(&values);
    for (deployment, _) in AWAITING {
        let doc = find(&rendered, "Deployment", deployment);
        assert_eq!(
            post_start(&containers(&doc)[0]),
            Some(&hook(Some("1m30s"), 4999)),
            "{deployment}"
        );
    }
}

#[test]
fn a_bad_await_timeout_is_an_error_naming_the_key_and_the_value() {
    let chart = support::chart();
    let engine = meshchart::engine::Engine::new(&chart).expect("the chart compiles");
    for bad in ["2x", "1m 30s", "-5s", "120"] {
        let mut values = reference_values();
        set(&mut values, "proxy.awaitTimeout", Value::from(bad));
        let err = engine
            .render_documents(&values, &support::legacy_options())
            .expect_err(bad)
            .to_string();
        assert!(
            err.contains(&format!("proxy.awaitTimeout: {bad:?} is not a duration")),
            "{bad}: {err}"
        );
    }
    for good in ["2m", "90s", "1m30s", "1.5h", "0", "500ms"] {
        let mut values = reference_values();
        set(&mut values, "proxy.awaitTimeout", Value::from(good));
        engine
            .render_documents(&values, &support::legacy_options())
            .unwrap_or_else(|e| panic!("{good}: {e}"));
    }
}

#[test]
fn control_plane_await_false_puts_the_proxy_last_without_hook_or_default_container() {
    for user_await in [true, false] {
        let mut values = reference_values();
        set(&mut values, "proxy.await", Value::Bool(user_await));
        set(&mut values, "proxy.controlPlaneAwait", Value::Bool(false));
        let rendered = render(&values);
        for (deployment, container) in AWAITING {
            let doc = find(&rendered, "Deployment", deployment);
            let names: Vec<&str> = containers(&doc).iter().map(name_of).collect();
            assert_eq!(names, [*container, "linkerd-proxy"], "{deployment}");
            assert_eq!(
                containers(&doc)[1].get_path(&["lifecycle"]),
                None,
                "{deployment}"
            );
            let annotations = get(&doc, "spec.template.metadata.annotations");
            assert_eq!(
                annotations.get_path(&[DEFAULT_CONTAINER]),
                None,
                "{deployment}"
            );
        }
        let identity = find(&rendered, "Deployment", "linkerd-identity");
        let names: Vec<&str> = containers(&identity).iter().map(name_of).collect();
        assert_eq!(names, ["identity", "linkerd-proxy"]);
    }
}

#[test]
fn linkerd_config_shows_the_users_proxy_await() {
    for (user_await, values) in both_settings() {
        let config = find(&render(&values), "ConfigMap", "linkerd-config");
        let embedded = get(&config, "data.values")
            .as_str()
            .expect("data.values is a string");
        let embedded = meshchart::yaml::parse_document(embedded).expect("data.values is YAML");
        assert_eq!(
            embedded.get_path(&["proxy", "await"]),
            Some(&Value::Bool(user_await))
        );
    }
}

#[test]
fn setting_proxy_await_false_changes_only_linkerd_config() {
    let [(_, on), (_, off)] = both_settings();
    let (on, off) = (render(&on), render(&off));
    assert_eq!(on.documents.len(), off.documents.len());
    for (a, b) in on.documents.iter().zip(&off.documents) {
        assert_eq!(
            (&a.template, &a.kind, &a.name),
            (&b.template, &b.kind, &b.name)
        );
        if (a.kind.as_str(), a.name.as_str()) != ("ConfigMap", "linkerd-config") {
            assert!(
                a.text == b.text,
                "{}/{} changed with proxy.await=false:\n{}",
                a.kind,
                a.name,
                similar::TextDiff::from_lines(&a.text, &b.text)
                    .unified_diff()
                    .header("proxy.await=true", "proxy.await=false")
            );
            continue;
        }
        let embedded = |text: &str| {
            let doc = meshchart::yaml::parse_document(text).expect("ConfigMap parses");
            let values = get(&doc, "data.values")
                .as_str()
                .expect("a string")
                .to_owned();
            meshchart::yaml::parse_document(&values).expect("data.values is YAML")
        };
        let mut expected = embedded(&a.text);
        set(&mut expected, "proxy.await", Value::Bool(false));
        assert_eq!(
            embedded(&b.text),
            expected,
            "linkerd-config may differ only in proxy.await"
        );
    }
}

/// The chart's files in a deterministic pseudo-random order.
fn shuffled_files(chart: &Chart, seed: u64) -> Vec<ChartFile> {
    let mut files: Vec<ChartFile> = chart
        .templates
        .iter()
        .map(|t| ChartFile {
            path: format!("templates/{}", t.path),
            text: t.text.clone(),
        })
        .chain(chart.default_values.iter().cloned())
        .chain(chart.value_overlays.iter().cloned())
        .chain(chart.other_files.iter().cloned())
        .collect();
    files.push(ChartFile {
        path: "Chart.yaml".into(),
        text: chart.chart_yaml.as_str().into(),
    });
    let mut state = seed;
    for i in (1..files.len()).rev() {
        // xorshift64*: enough to scramble a list, no dependency needed.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1)) as usize;
        files.swap(i, j);
    }
    files
}

#[test]
fn shuffled_template_order_renders_the_same_bytes() {
    let chart = support::chart();
    let values = reference_values();
    let expected = support::render_chart(&chart, &values).to_stream();
    for seed in [1, 7, 2024, 0x5eed] {
        let files = shuffled_files(&chart, seed);
        assert_ne!(
            files.iter().map(|f| &f.path).collect::<Vec<_>>(),
            {
                let mut sorted: Vec<_> = files.iter().map(|f| &f.path).collect();
                sorted.sort();
                sorted
            },
            "seed {seed} did not shuffle"
        );
        let shuffled = Chart::from_files("shuffled chart", files).expect("the chart reads");
        assert_eq!(
            support::render_chart(&shuffled, &values).to_stream(),
            expected,
            "seed {seed}"
        );
    }
}
