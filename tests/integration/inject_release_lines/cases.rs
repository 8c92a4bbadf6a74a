//! The fixture pairs each release line's inject is compared on, and the uninject pairs.

/// One fixture pair, run with the line's chart.
pub(super) struct Case {
    /// The name used in DEVIATIONS.md.
    pub(super) name: &'static str,
    pub(super) input: &'static str,
    pub(super) golden: &'static str,
    /// Values upstream's test case sets on top of its defaults.
    pub(super) set: &'static [&'static str],
}

pub(super) const fn case(name: &'static str, input: &'static str, golden: &'static str) -> Case {
    Case {
        name,
        input,
        golden,
        set: &[],
    }
}

/// The settings of upstream's `TestRunInjectCmd` cases (`testInjectCmd`): `testInstallValues`
/// with the proxy version `testinjectversion`, over the `TestUninjectAndInject` ones.
pub(super) const INJECT_CMD: [&str; 3] = [
    "linkerdVersion=install-control-plane-version",
    "proxy.image.version=testinjectversion",
    "debugContainer.image.version=install-debug-version",
];

/// upstream's `proxyIgnorePortsConfig`.
pub(super) const PROXY_IGNORES: [&str; 2] = [
    "proxyInit.ignoreInboundPorts=22\\,8100-8102",
    "proxyInit.ignoreOutboundPorts=5432",
];

/// The cases both lines run (the same inputs; each tag has its own goldens).
pub(super) const COMMON: &[Case] = &[
    case(
        "deployment",
        "inject_emojivoto_deployment.input.yml",
        "inject_emojivoto_deployment.golden.yml",
    ),
    case(
        "pod",
        "inject_emojivoto_pod.input.yml",
        "inject_emojivoto_pod.golden.yml",
    ),
    case(
        "statefulset",
        "inject_emojivoto_statefulset.input.yml",
        "inject_emojivoto_statefulset.golden.yml",
    ),
    case(
        "list",
        "inject_emojivoto_list.input.yml",
        "inject_emojivoto_list.golden.yml",
    ),
    case(
        "deployment_udp",
        "inject_emojivoto_deployment_udp.input.yml",
        "inject_emojivoto_deployment_udp.golden.yml",
    ),
    case(
        "deployment_capabilities",
        "inject_emojivoto_deployment_capabilities.input.yml",
        "inject_emojivoto_deployment_capabilities.golden.yml",
    ),
    case(
        "contour",
        "inject_contour.input.yml",
        "inject_contour.golden.yml",
    ),
    case(
        "already_injected",
        "inject_emojivoto_already_injected.input.yml",
        "inject_emojivoto_already_injected.golden.yml",
    ),
    Case {
        set: &INJECT_CMD,
        ..case(
            "deployment_automountServiceAccountToken_false",
            "inject_emojivoto_deployment_automountServiceAccountToken_false.input.yml",
            "inject_emojivoto_deployment_automountServiceAccountToken_false.golden.yml",
        )
    },
    // Upstream fails the whole stream on these three (exit 1, empty output); we pass the
    // workload through untouched and report it skipped.
    Case {
        set: &[
            "linkerdVersion=install-control-plane-version",
            "proxy.image.version=testinjectversion",
            "debugContainer.image.version=install-debug-version",
            "identity.serviceAccountTokenProjection=false",
        ],
        ..case(
            "deployment_automountServiceAccountToken_false_volumeProjection_disabled",
            "inject_emojivoto_deployment_automountServiceAccountToken_false.input.yml",
            "inject_emojivoto_deployment_automountServiceAccountToken_false_volumeProjection_disabled.golden.yml",
        )
    },
    Case {
        set: &INJECT_CMD,
        ..case(
            "istio",
            "inject_emojivoto_istio.input.yml",
            "inject_emojivoto_istio.golden.yml",
        )
    },
    Case {
        set: &INJECT_CMD,
        ..case(
            "deployment_hostNetwork_true",
            "inject_emojivoto_deployment_hostNetwork_true.input.yml",
            "inject_emojivoto_deployment_hostNetwork_true.golden.yml",
        )
    },
    Case {
        set: &["proxy.ports.admin=1234"],
        ..case(
            "deployment_overridden",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_overridden.golden.yml",
        )
    },
    Case {
        set: &["proxy.accessLog=apache"],
        ..case(
            "deployment_access_log",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_access_log.golden.yml",
        )
    },
    case(
        "deployment_hostNetwork_false",
        "inject_emojivoto_deployment_hostNetwork_false.input.yml",
        "inject_emojivoto_deployment_hostNetwork_false.golden.yml",
    ),
    case(
        "deployment_controller_name",
        "inject_emojivoto_deployment_controller_name.input.yml",
        "inject_emojivoto_deployment_controller_name.golden.yml",
    ),
    Case {
        set: &[
            "proxy.resources.cpu.request=110m",
            "proxy.resources.cpu.limit=160m",
            "proxy.resources.memory.request=100Mi",
            "proxy.resources.memory.limit=150Mi",
        ],
        ..case(
            "pod_with_requests",
            "inject_emojivoto_pod_with_requests.input.yml",
            "inject_emojivoto_pod_with_requests.golden.yml",
        )
    },
    case(
        "deployment_empty_resources",
        "inject_emojivoto_deployment_empty_resources.input.yml",
        "inject_emojivoto_deployment_empty_resources.golden.yml",
    ),
    case(
        "list_empty_resources",
        "inject_emojivoto_list_empty_resources.input.yml",
        "inject_emojivoto_list_empty_resources.golden.yml",
    ),
    Case {
        set: &["cniEnabled=true"],
        ..case(
            "deployment_no_init_container",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_no_init_container.golden.yml",
        )
    },
    Case {
        set: &["proxy.image.version=override"],
        ..case(
            "deployment_config_overrides",
            "inject_emojivoto_deployment_config_overrides.input.yml",
            "inject_emojivoto_deployment_config_overrides.golden.yml",
        )
    },
    Case {
        set: &["debugContainer.enabled=true"],
        ..case(
            "deployment_debug",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_debug.golden.yml",
        )
    },
    Case {
        set: &["debugContainer.enabled=true"],
        ..case(
            "tap_deployment_debug",
            "inject_tap_deployment.input.yml",
            "inject_tap_deployment_debug.golden.yml",
        )
    },
    Case {
        set: &PROXY_IGNORES,
        ..case(
            "deployment_proxyignores",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_proxyignores.golden.yml",
        )
    },
    Case {
        set: &PROXY_IGNORES,
        ..case(
            "pod_proxyignores",
            "inject_emojivoto_pod.input.yml",
            "inject_emojivoto_pod_proxyignores.golden.yml",
        )
    },
    Case {
        set: &["proxy.opaquePorts=3000\\,5000-6000\\,mysql"],
        ..case(
            "deployment_opaque_ports",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_opaque_ports.golden.yml",
        )
    },
    Case {
        set: &["proxy.isIngress=true"],
        ..case(
            "pod_ingress",
            "inject_emojivoto_pod.input.yml",
            "inject_emojivoto_pod_ingress.golden.yml",
        )
    },
    Case {
        // Upstream's test replaces proxy.inbound and proxy.outbound whole: null deletes the
        // defaults' keys, as in Helm.
        set: &[
            "proxy.inbound.server=null",
            "proxy.outbound.server=null",
            "proxy.inbound.scope.proto.appleSauce=valueA",
            "proxy.inbound.scope.proto.blueberry=3.14",
            "proxy.outbound.scope.proto.applesauce=valueA",
            "proxy.outbound.scope.proto.blueBerry=true",
        ],
        ..case(
            "deployment_params",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_params.golden.yml",
        )
    },
    Case {
        set: &["proxy.nativeSidecar=true"],
        ..case(
            "deployment_native_sidecar",
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_native_sidecar.golden.yml",
        )
    },
];

/// Upstream's `uninject_test.go` pairs at the tags: an injected golden and the input it
/// came from.
pub(super) const UNINJECT_PAIRS: &[(&str, &str)] = &[
    (
        "inject_emojivoto_deployment.golden.yml",
        "inject_emojivoto_deployment.input.yml",
    ),
    (
        "inject_emojivoto_list.golden.yml",
        "inject_emojivoto_list.input.yml",
    ),
    (
        "inject_emojivoto_deployment_controller_name.golden.yml",
        "inject_emojivoto_deployment_controller_name.input.yml",
    ),
    (
        "inject_emojivoto_statefulset.golden.yml",
        "inject_emojivoto_statefulset.input.yml",
    ),
    (
        "inject_emojivoto_pod.golden.yml",
        "inject_emojivoto_pod.input.yml",
    ),
    (
        "inject_emojivoto_pod_nativesidecar.golden.yml",
        "inject_emojivoto_pod.input.yml",
    ),
    (
        "inject_emojivoto_deployment_udp.golden.yml",
        "inject_emojivoto_deployment_udp.input.yml",
    ),
    ("inject_contour.golden.yml", "inject_contour.input.yml"),
    (
        "inject_emojivoto_deployment_config_overrides.golden.yml",
        "inject_emojivoto_deployment_config_overrides.input.yml",
    ),
];
