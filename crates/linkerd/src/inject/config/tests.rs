//! Unit tests for the configuration of one pod: annotations read in layers, each setting's
//! accepted values and errors, unknown-annotation warnings.

use super::super::parse::PORT_LIST_ALLOWED;
use super::super::workload::set_path;
use super::*;

fn workload() -> WorkloadRef {
    WorkloadRef {
        source: "in.yaml".into(),
        line: 1,
        kind: "Deployment".into(),
        name: "web".into(),
        namespace: "emojivoto".into(),
    }
}

fn annotations(pairs: &[(&str, &str)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
        .collect()
}

fn base() -> Value {
    crate::yaml::parse_document("proxy: {await: true, ports: {admin: 4191}}").unwrap()
}

#[test]
fn later_layers_win_and_namespaces_only_lend_inheritable_keys() {
    let ns = annotations(&[
        ("config.linkerd.io/proxy-await", "disabled"),
        ("config.linkerd.io/admin-port", "1000"),
        ("config.linkerd.io/close-wait-timeout", "10s"),
        ("linkerd.io/inject", "disabled"),
    ]);
    let wl = annotations(&[("config.linkerd.io/admin-port", "2000")]);
    let pod = annotations(&[("config.linkerd.io/admin-port", "3000")]);
    let layers = Layers {
        namespace: Some(("emojivoto", &ns)),
        workload: Some(&wl),
        pod: Some(&pod),
    };
    let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
    assert_eq!(config.mode, InjectMode::Enabled);
    let v = &config.values;
    assert_eq!(
        v.get_path(&["proxy", "ports", "admin"]),
        Some(&Value::Int(3000))
    );
    assert_eq!(v.get_path(&["proxy", "await"]), Some(&Value::Bool(false)));
    assert_eq!(v.get_path(&["proxyInit", "closeWaitTimeoutSecs"]), None);
    let layers = Layers {
        workload: Some(&wl),
        ..Layers::default()
    };
    let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
    assert_eq!(
        config.values.get_path(&["proxy", "ports", "admin"]),
        Some(&Value::Int(2000))
    );
}

#[test]
fn invalid_values_name_workload_annotation_and_allowed_values() {
    let pod = annotations(&[("config.linkerd.io/proxy-await", "enabeld")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "in.yaml:1: deployment/web (namespace emojivoto): annotation \
             config.linkerd.io/proxy-await has an invalid value \"enabeld\" (on the pod \
             template); allowed: enabled, disabled"
    );
    let pod = annotations(&[("config.linkerd.io/skip-inbound-ports", "90-80")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
    assert!(err.to_string().contains("\"90-80\""), "{err}");
    assert!(err.to_string().contains(PORT_LIST_ALLOWED), "{err}");
}

#[test]
fn conversions() {
    let pod = annotations(&[
        ("config.linkerd.io/proxy-cpu-limit", "1500m"),
        ("config.linkerd.io/proxy-cpu-request", "0.5"),
        ("config.linkerd.io/opaque-ports", "3000,5000-6000,mysql,"),
        ("config.linkerd.io/proxy-outbound-connect-timeout", "1.5s"),
        ("config.linkerd.io/close-wait-timeout", "2m0s"),
        ("config.linkerd.io/default-inbound-policy", "deny"),
        ("linkerd.io/inject", "ingress"),
    ]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let facts = PodFacts::new(vec![("mysql".into(), 3306)]);
    let config = resolve(&base(), &layers, &facts, &workload()).unwrap();
    let v = &config.values;
    let at = |p: &[&str]| v.get_path(p).cloned().unwrap_or_default();
    assert_eq!(at(&["proxy", "cores"]), Value::Int(2));
    assert_eq!(
        at(&["proxy", "resources", "cpu", "limit"]),
        Value::from("1500m")
    );
    assert_eq!(
        at(&["proxy", "resources", "cpu", "request"]),
        Value::from("500m")
    );
    assert_eq!(
        at(&["proxy", "opaquePorts"]),
        Value::from("3000,5000-6000,3306")
    );
    assert_eq!(
        at(&["proxy", "outboundConnectTimeout"]),
        Value::from("1500ms")
    );
    assert_eq!(at(&["proxyInit", "closeWaitTimeoutSecs"]), Value::Int(120));
    assert_eq!(at(&["proxy", "defaultInboundPolicy"]), Value::from("deny"));
    assert_eq!(at(&["proxy", "isIngress"]), Value::Bool(true));
    assert_eq!(config.mode, InjectMode::Ingress);
}

#[test]
fn a_later_releases_annotation_applies_only_where_the_chart_has_its_key() {
    let pod = annotations(&[
        ("config.linkerd.io/access-log", "json"),
        (
            "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
            "1m30s",
        ),
    ]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
    assert_eq!(config.values.get_path(&["proxy", "accessLog"]), None);
    assert_eq!(
        config.warnings,
        [
            Warning::NotInChart {
                annotation: "config.linkerd.io/access-log",
                values_key: "proxy.accessLog",
            },
            Warning::NotInChart {
                annotation: "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
                values_key: "proxy.outboundDiscoveryCacheUnusedTimeout",
            },
        ]
    );
    let mut values = base();
    set_path(&mut values, &["proxy", "accessLog"], Value::from(""));
    set_path(
        &mut values,
        &["proxy", "outboundDiscoveryCacheUnusedTimeout"],
        Value::from("5s"),
    );
    let config = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap();
    let at = |p: &[&str]| config.values.get_path(p).cloned();
    assert_eq!(at(&["proxy", "accessLog"]), Some(Value::from("json")));
    assert_eq!(
        at(&["proxy", "outboundDiscoveryCacheUnusedTimeout"]),
        Some(Value::from("90s"))
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let bad = annotations(&[("config.linkerd.io/access-log", "common")]);
    let layers = Layers {
        pod: Some(&bad),
        ..Layers::default()
    };
    let err = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap_err();
    assert!(err.to_string().contains("apache, json"), "{err}");
}

#[test]
fn a_cpu_limit_bounds_the_worker_range_of_charts_that_have_one() {
    let pod = annotations(&[("config.linkerd.io/proxy-cpu-limit", "1500m")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let mut values = base();
    set_path(
        &mut values,
        &["proxy", "runtime", "workers", "minimum"],
        Value::Int(1),
    );
    let config = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap();
    let at = |p: &[&str]| config.values.get_path(p).cloned();
    assert_eq!(
        at(&["proxy", "runtime", "workers", "maximum"]),
        Some(Value::Int(2))
    );
    assert_eq!(
        at(&["proxy", "cores"]),
        base().get_path(&["proxy", "cores"]).cloned()
    );
}

#[test]
fn an_unresolvable_port_name_is_a_warning_and_the_rest_applies() {
    let pod = annotations(&[("config.linkerd.io/opaque-ports", "3000,5000-6000,mysql")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
    assert_eq!(
        config.values.get_path(&["proxy", "opaquePorts"]),
        Some(&Value::from("3000,5000-6000"))
    );
    assert_eq!(
        config.warnings,
        [Warning::UnresolvedPortName {
            annotation: "config.linkerd.io/opaque-ports",
            name: "mysql".into()
        }]
    );
}

#[test]
fn skip_ports_accept_names_of_the_pods_container_ports() {
    let pod = annotations(&[
        ("config.linkerd.io/skip-inbound-ports", "admin,9000-9100"),
        ("config.linkerd.io/skip-outbound-ports", "db"),
    ]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let facts = PodFacts::new(vec![("admin".into(), 8081), ("db".into(), 5432)]);
    let config = resolve(&base(), &layers, &facts, &workload()).unwrap();
    let at = |p: &[&str]| config.values.get_path(p).cloned().unwrap_or_default();
    assert_eq!(
        at(&["proxyInit", "ignoreInboundPorts"]),
        Value::from("8081,9000-9100")
    );
    assert_eq!(
        at(&["proxyInit", "ignoreOutboundPorts"]),
        Value::from("5432")
    );
    assert!(config.warnings.is_empty());
}

#[test]
fn only_port_lists_naming_ports_make_the_configuration_depend_on_the_named_ports() {
    let read_with = |list: &str, ports: Vec<(String, i64)>| {
        let pod = annotations(&[("config.linkerd.io/skip-outbound-ports", list)]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let facts = PodFacts::new(ports);
        resolve(&base(), &layers, &facts, &workload()).unwrap();
        facts.were_read()
    };
    let http = || vec![("http".to_owned(), 8080)];
    assert!(!read_with("5432,9000-9100", http()));
    assert!(read_with("http", http()));
    assert!(
        read_with("metrics", http()),
        "a name no port has depends on them too"
    );
    // A port named like a number (no valid Kubernetes name) resolves by its name, and a key
    // keeps such ports (PodFacts::numeric_named_ports).
    assert!(read_with("5432", vec![("5432".to_owned(), 80)]));
    let odd = PodFacts::new(vec![("5432".to_owned(), 80), ("http".to_owned(), 8080)]);
    assert_eq!(odd.numeric_named_ports(), [("5432".to_owned(), 80)]);
}

#[test]
fn a_port_list_item_that_is_neither_port_nor_name_is_an_error() {
    for bad in ["70000", "Mysql", "my_sql", "-db"] {
        let pod = annotations(&[("config.linkerd.io/opaque-ports", bad)]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        assert!(
            resolve(&base(), &layers, &PodFacts::default(), &workload()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn debug_container_enabled_in_the_values_adds_the_debug_sidecar_unless_annotated_off() {
    let mut values = base();
    set(&mut values, "debugContainer.enabled", Value::Bool(true));
    let debug = |pod: &Map| {
        let layers = Layers {
            pod: Some(pod),
            ..Layers::default()
        };
        resolve(&values, &layers, &PodFacts::default(), &workload())
            .unwrap()
            .debug
    };
    assert!(debug(&Map::new()));
    assert!(!debug(&annotations(&[(
        "config.linkerd.io/enable-debug-sidecar",
        "false"
    )])));
    let off = resolve(
        &base(),
        &Layers::default(),
        &PodFacts::default(),
        &workload(),
    );
    assert!(!off.unwrap().debug);
}

#[test]
fn native_sidecar_reads_every_prefix_the_closest_layer_and_the_newest_key_winning() {
    let native = |layers: &Layers<'_>| {
        resolve(&base(), layers, &PodFacts::default(), &workload())
            .map(|c| c.values.get_path(&["proxy", "nativeSidecar"]).cloned())
    };
    for key in [
        "config.linkerd.io/proxy-enable-native-sidecar",
        "config.beta.linkerd.io/proxy-enable-native-sidecar",
        "config.alpha.linkerd.io/proxy-enable-native-sidecar",
    ] {
        let pod = annotations(&[(key, "true")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        assert_eq!(native(&layers).unwrap(), Some(Value::Bool(true)), "{key}");
    }
    // Within a layer the GA key wins over the older prefixes; a closer layer wins over a
    // farther one whatever its prefix.
    let pod = annotations(&[
        (
            "config.alpha.linkerd.io/proxy-enable-native-sidecar",
            "true",
        ),
        ("config.linkerd.io/proxy-enable-native-sidecar", "false"),
    ]);
    let ns = annotations(&[("config.linkerd.io/proxy-enable-native-sidecar", "false")]);
    let wl = annotations(&[("config.beta.linkerd.io/proxy-enable-native-sidecar", "true")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    assert_eq!(native(&layers).unwrap(), Some(Value::Bool(false)));
    let layers = Layers {
        namespace: Some(("emojivoto", &ns)),
        workload: Some(&wl),
        pod: None,
    };
    assert_eq!(native(&layers).unwrap(), Some(Value::Bool(true)));
    // A bad value names the key it was written under.
    let pod = annotations(&[("config.beta.linkerd.io/proxy-enable-native-sidecar", "yes")]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let err = native(&layers).unwrap_err().to_string();
    assert!(
            err.contains("annotation config.beta.linkerd.io/proxy-enable-native-sidecar has an invalid value \"yes\""),
            "{err}"
        );
}

#[test]
fn identity_conflict() {
    let pod = annotations(&[
        ("config.linkerd.io/disable-identity", "true"),
        (
            "config.linkerd.io/proxy-require-identity-inbound-ports",
            "80",
        ),
    ]);
    let layers = Layers {
        pod: Some(&pod),
        ..Layers::default()
    };
    let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
    assert!(matches!(err, InjectError::Conflict { .. }), "{err}");
}

#[test]
fn every_setting_is_read_under_an_annotation_that_counts_for_the_configuration() {
    for (setting, _) in all_settings() {
        for key in std::iter::once(setting.key).chain(setting.aliases.iter().copied()) {
            assert!(reads_annotation(key), "{key}");
        }
    }
    assert!(reads_annotation(INJECT_ANNOTATION));
    assert!(!reads_annotation("checksum/config"));
}
