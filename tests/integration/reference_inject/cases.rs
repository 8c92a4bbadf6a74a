//! The reference cases: each upstream fixture, how upstream ran it, and how we run it.

/// What a reference case runs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Run {
    /// `inject` the input (with pod annotations and `--set`s), expect the golden and the report.
    Inject,
    /// `uninject` the input, expect the golden and the report.
    Uninject,
    /// Upstream fails on this input; so must we.
    Error,
    /// Not run: upstream's behaviour here is one we replaced (listed as `(case)`).
    Skipped(&'static str),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Case {
    pub(super) name: &'static str,
    pub(super) run: Run,
    pub(super) input: &'static str,
    pub(super) golden: &'static str,
    pub(super) report: Option<&'static str>,
    pub(super) annotations: &'static [(&'static str, &'static str)],
    pub(super) set: &'static [&'static str],
}

pub(super) const fn case(
    name: &'static str,
    run: Run,
    input: &'static str,
    golden: &'static str,
) -> Case {
    Case {
        name,
        run,
        input,
        golden,
        report: None,
        annotations: &[],
        set: &[],
    }
}

pub(super) const fn report(mut c: Case, report: &'static str) -> Case {
    c.report = Some(report);
    c
}

pub(super) const fn annotate(
    mut c: Case,
    annotations: &'static [(&'static str, &'static str)],
) -> Case {
    c.annotations = annotations;
    c
}

pub(super) const fn set(mut c: Case, set: &'static [&'static str]) -> Case {
    c.set = set;
    c
}

pub(super) const NON_MANUAL: &str = "upstream runs this case without --manual";

/// The values of upstream's native-sidecar test cases today.
pub(super) const MODERN_NATIVE_SIDECAR: &[&str] = &[
    "proxy.nativeSidecar=true",
    "proxyInit.ignoreInboundPorts=4567\\,4568",
    "proxyInit.ignoreOutboundPorts=4567\\,4568",
];

pub(super) const CASES: &[Case] = &[
    // TestUninjectAndInject
    report(
        case(
            "deployment",
            Run::Inject,
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment.golden.yml",
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        case(
            "deployment_overridden_noinject",
            Run::Skipped(NON_MANUAL),
            "inject_emojivoto_deployment.input.yml",
            "inject_emojivoto_deployment_overridden_noinject.golden.yml",
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        annotate(
            case(
                "deployment_overridden",
                Run::Inject,
                "inject_emojivoto_deployment.input.yml",
                "inject_emojivoto_deployment_overridden.golden.yml",
            ),
            &[("config.linkerd.io/admin-port", "1234")],
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        case(
            "list",
            Run::Inject,
            "inject_emojivoto_list.input.yml",
            "inject_emojivoto_list.golden.yml",
        ),
        "inject_emojivoto_list.report",
    ),
    report(
        case(
            "deployment_hostNetwork_false",
            Run::Inject,
            "inject_emojivoto_deployment_hostNetwork_false.input.yml",
            "inject_emojivoto_deployment_hostNetwork_false.golden.yml",
        ),
        "inject_emojivoto_deployment_hostNetwork_false.report",
    ),
    report(
        case(
            "deployment_capabilities",
            Run::Inject,
            "inject_emojivoto_deployment_capabilities.input.yml",
            "inject_emojivoto_deployment_capabilities.golden.yml",
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        case(
            "deployment_injectDisabled",
            Run::Inject,
            "inject_emojivoto_deployment_injectDisabled.input.yml",
            "inject_emojivoto_deployment_injectDisabled.input.yml",
        ),
        "inject_emojivoto_deployment_injectDisabled.report",
    ),
    report(
        case(
            "deployment_controller_name",
            Run::Inject,
            "inject_emojivoto_deployment_controller_name.input.yml",
            "inject_emojivoto_deployment_controller_name.golden.yml",
        ),
        "inject_emojivoto_deployment_controller_name.report",
    ),
    report(
        case(
            "statefulset",
            Run::Inject,
            "inject_emojivoto_statefulset.input.yml",
            "inject_emojivoto_statefulset.golden.yml",
        ),
        "inject_emojivoto_statefulset.report",
    ),
    report(
        case(
            "cronjob",
            Run::Skipped(NON_MANUAL),
            "inject_emojivoto_cronjob.input.yml",
            "inject_emojivoto_cronjob.golden.yml",
        ),
        "inject_emojivoto_cronjob.report",
    ),
    report(
        case(
            "cronjob_nometa",
            Run::Skipped(NON_MANUAL),
            "inject_emojivoto_cronjob_nometa.input.yml",
            "inject_emojivoto_cronjob_nometa.golden.yml",
        ),
        "inject_emojivoto_cronjob.report",
    ),
    report(
        case(
            "pod",
            Run::Inject,
            "inject_emojivoto_pod.input.yml",
            "inject_emojivoto_pod.golden.yml",
        ),
        "inject_emojivoto_pod.report",
    ),
    report(
        set(
            case(
                "pod_with_requests",
                Run::Inject,
                "inject_emojivoto_pod_with_requests.input.yml",
                "inject_emojivoto_pod_with_requests.golden.yml",
            ),
            &[
                "proxy.resources.cpu.request=110m",
                "proxy.resources.cpu.limit=160m",
                "proxy.resources.memory.request=100Mi",
                "proxy.resources.memory.limit=150Mi",
            ],
        ),
        "inject_emojivoto_pod_with_requests.report",
    ),
    report(
        case(
            "deployment_udp",
            Run::Inject,
            "inject_emojivoto_deployment_udp.input.yml",
            "inject_emojivoto_deployment_udp.golden.yml",
        ),
        "inject_emojivoto_deployment_udp.report",
    ),
    report(
        case(
            "already_injected",
            Run::Inject,
            "inject_emojivoto_already_injected.input.yml",
            "inject_emojivoto_already_injected.golden.yml",
        ),
        "inject_emojivoto_already_injected.report",
    ),
    report(
        case(
            "contour",
            Run::Inject,
            "inject_contour.input.yml",
            "inject_contour.golden.yml",
        ),
        "inject_contour.report",
    ),
    report(
        case(
            "deployment_empty_resources",
            Run::Inject,
            "inject_emojivoto_deployment_empty_resources.input.yml",
            "inject_emojivoto_deployment_empty_resources.golden.yml",
        ),
        "inject_emojivoto_deployment_empty_resources.report",
    ),
    report(
        case(
            "list_empty_resources",
            Run::Inject,
            "inject_emojivoto_list_empty_resources.input.yml",
            "inject_emojivoto_list_empty_resources.golden.yml",
        ),
        "inject_emojivoto_list_empty_resources.report",
    ),
    report(
        set(
            case(
                "deployment_no_init_container",
                Run::Inject,
                "inject_emojivoto_deployment.input.yml",
                "inject_emojivoto_deployment_no_init_container.golden.yml",
            ),
            &["cniEnabled=true"],
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        case(
            "deployment_config_overrides",
            Run::Inject,
            "inject_emojivoto_deployment_config_overrides.input.yml",
            "inject_emojivoto_deployment_config_overrides.golden.yml",
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        annotate(
            case(
                "deployment_debug",
                Run::Inject,
                "inject_emojivoto_deployment.input.yml",
                "inject_emojivoto_deployment_debug.golden.yml",
            ),
            &[("config.linkerd.io/enable-debug-sidecar", "true")],
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        annotate(
            case(
                "tap_deployment_debug",
                Run::Inject,
                "inject_tap_deployment.input.yml",
                "inject_tap_deployment_debug.golden.yml",
            ),
            &[("config.linkerd.io/enable-debug-sidecar", "true")],
        ),
        "inject_tap_deployment_debug.report",
    ),
    report(
        case(
            "namespace_good",
            Run::Inject,
            "inject_emojivoto_namespace_good.input.yml",
            "inject_emojivoto_namespace_good.golden.yml",
        ),
        "inject_emojivoto_namespace_good.golden.report",
    ),
    report(
        case(
            "namespace_overidden_good",
            Run::Inject,
            "inject_emojivoto_namespace_good.input.yml",
            "inject_emojivoto_namespace_overidden_good.golden.yml",
        ),
        "inject_emojivoto_namespace_good.golden.report",
    ),
    report(
        annotate(
            case(
                "deployment_proxyignores",
                Run::Inject,
                "inject_emojivoto_deployment.input.yml",
                "inject_emojivoto_deployment_proxyignores.golden.yml",
            ),
            &[
                ("config.linkerd.io/skip-inbound-ports", "22,8100-8102"),
                ("config.linkerd.io/skip-outbound-ports", "5432"),
            ],
        ),
        "inject_emojivoto_deployment.report",
    ),
    report(
        annotate(
            case(
                "pod_proxyignores",
                Run::Inject,
                "inject_emojivoto_pod.input.yml",
                "inject_emojivoto_pod_proxyignores.golden.yml",
            ),
            &[
                ("config.linkerd.io/skip-inbound-ports", "22,8100-8102"),
                ("config.linkerd.io/skip-outbound-ports", "5432"),
            ],
        ),
        "inject_emojivoto_pod.report",
    ),
    report(
        set(
            case(
                "deployment_opaque_ports",
                Run::Inject,
                "inject_emojivoto_deployment.input.yml",
                "inject_emojivoto_deployment_opaque_ports.golden.yml",
            ),
            &["proxy.opaquePorts=3000\\,5000-6000\\,mysql"],
        ),
        "inject_emojivoto_deployment_opaque_ports.report",
    ),
    report(
        annotate(
            case(
                "pod_ingress",
                Run::Inject,
                "inject_emojivoto_pod.input.yml",
                "inject_emojivoto_pod_ingress.golden.yml",
            ),
            &[("linkerd.io/inject", "ingress")],
        ),
        "inject_emojivoto_pod_ingress.report",
    ),
    // TestRunInjectCmd
    case(
        "gettest_bad",
        Run::Error,
        "inject_gettest_deployment.bad.input.yml",
        "",
    ),
    case(
        "tap_deployment_not_manual",
        Run::Skipped("upstream refuses control-plane pods without --manual"),
        "inject_tap_deployment.input.yml",
        "",
    ),
    report(
        set(
            case(
                "gettest_good",
                Run::Inject,
                "inject_gettest_deployment.good.input.yml",
                "inject_gettest_deployment.good.golden.yml",
            ),
            &["proxy.image.version=testinjectversion"],
        ),
        "inject_gettest_deployment.good.golden.stderr",
    ),
    case(
        "automountServiceAccountToken_false",
        Run::Inject,
        "inject_emojivoto_deployment_automountServiceAccountToken_false.input.yml",
        "inject_emojivoto_deployment_automountServiceAccountToken_false.golden.yml",
    ),
    case(
        "istio",
        Run::Inject,
        "inject_emojivoto_istio.input.yml",
        "inject_emojivoto_istio.golden.yml",
    ),
    case(
        "hostNetwork_true",
        Run::Inject,
        "inject_emojivoto_deployment_hostNetwork_true.input.yml",
        "inject_emojivoto_deployment_hostNetwork_true.golden.yml",
    ),
    // TestUninjectYAML
    report(
        case(
            "uninject_deployment",
            Run::Uninject,
            "inject_emojivoto_deployment.golden.yml",
            "inject_emojivoto_deployment.input.yml",
        ),
        "inject_emojivoto_deployment_uninject.report",
    ),
    case(
        "uninject_overridden_noinject",
        Run::Uninject,
        "inject_emojivoto_deployment_overridden_noinject.golden.yml",
        "inject_emojivoto_deployment_uninjected.input.yml",
    ),
    report(
        case(
            "uninject_list",
            Run::Uninject,
            "inject_emojivoto_list.golden.yml",
            "inject_emojivoto_list.input.yml",
        ),
        "inject_emojivoto_list_uninject.report",
    ),
    report(
        case(
            "uninject_hostNetwork_true",
            Run::Uninject,
            "inject_emojivoto_deployment_hostNetwork_true.input.yml",
            "inject_emojivoto_deployment_hostNetwork_true.input.yml",
        ),
        "inject_emojivoto_deployment_hostNetwork_true_uninject.report",
    ),
    report(
        case(
            "uninject_injectDisabled",
            Run::Uninject,
            "inject_emojivoto_deployment_injectDisabled.input.yml",
            "inject_emojivoto_deployment_injectDisabled.input.yml",
        ),
        "inject_emojivoto_deployment_injectDisabled_uninject.report",
    ),
    report(
        case(
            "uninject_controller_name",
            Run::Uninject,
            "inject_emojivoto_deployment_controller_name.golden.yml",
            "inject_emojivoto_deployment_controller_name.input.yml",
        ),
        "inject_emojivoto_deployment_controller_name_uninject.report",
    ),
    report(
        case(
            "uninject_statefulset",
            Run::Uninject,
            "inject_emojivoto_statefulset.golden.yml",
            "inject_emojivoto_statefulset.input.yml",
        ),
        "inject_emojivoto_statefulset_uninject.report",
    ),
    report(
        case(
            "uninject_pod",
            Run::Uninject,
            "inject_emojivoto_pod.golden.yml",
            "inject_emojivoto_pod.input.yml",
        ),
        "inject_emojivoto_pod_uninject.report",
    ),
    report(
        case(
            "uninject_udp",
            Run::Uninject,
            "inject_emojivoto_deployment_udp.golden.yml",
            "inject_emojivoto_deployment_udp.input.yml",
        ),
        "inject_emojivoto_deployment_udp_uninject.report",
    ),
    report(
        case(
            "uninject_istio",
            Run::Uninject,
            "inject_emojivoto_istio.input.yml",
            "inject_emojivoto_istio.input.yml",
        ),
        "inject_emojivoto_istio_uninject.report",
    ),
    report(
        case(
            "uninject_contour",
            Run::Uninject,
            "inject_contour.golden.yml",
            "inject_contour.input.yml",
        ),
        "inject_contour_uninject.report",
    ),
    case(
        "uninject_config_overrides",
        Run::Uninject,
        "inject_emojivoto_deployment_config_overrides.golden.yml",
        "inject_emojivoto_deployment_config_overrides.input.yml",
    ),
    report(
        case(
            "uninject_namespace_good",
            Run::Uninject,
            "inject_emojivoto_namespace_good.golden.yml",
            "inject_emojivoto_namespace_uninjected_good.golden.yml",
        ),
        "inject_emojivoto_namespace_uninjected_good.golden.report",
    ),
    report(
        case(
            "uninject_namespace_overidden_good",
            Run::Uninject,
            "inject_emojivoto_namespace_overidden_good.golden.yml",
            "inject_emojivoto_namespace_uninjected_good.golden.yml",
        ),
        "inject_emojivoto_namespace_uninjected_good.golden.report",
    ),
    // Today's upstream fixtures (`inject-modern/`): native sidecars, and the default inbound
    // policy given as a flag. Upstream's test values of today also skip ports 4567 and 4568.
    set(
        case(
            "modern_deployment_native_sidecar",
            Run::Inject,
            "inject-modern/inject_emojivoto_deployment.input.yml",
            "inject-modern/inject_emojivoto_deployment_native_sidecar.golden.yml",
        ),
        MODERN_NATIVE_SIDECAR,
    ),
    set(
        case(
            "modern_pod_native_sidecar",
            Run::Inject,
            "inject-modern/inject_emojivoto_pod.input.yml",
            "inject-modern/inject_emojivoto_pod_nativesidecar.golden.yml",
        ),
        MODERN_NATIVE_SIDECAR,
    ),
    // uninject of today's native-sidecar goldens: the proxy is taken out of initContainers.
    case(
        "modern_uninject_deployment_native_sidecar",
        Run::Uninject,
        "inject-modern/inject_emojivoto_deployment_native_sidecar.golden.yml",
        "inject-modern/inject_emojivoto_deployment.input.yml",
    ),
    case(
        "modern_uninject_pod_native_sidecar",
        Run::Uninject,
        "inject-modern/inject_emojivoto_pod_nativesidecar.golden.yml",
        "inject-modern/inject_emojivoto_pod.input.yml",
    ),
    case(
        "modern_deployment_default_inbound_policy",
        Run::Skipped(NON_MANUAL),
        "inject-modern/inject_emojivoto_deployment.input.yml",
        "inject-modern/inject_emojivoto_deployment_default_inbound_policy.golden.yml",
    ),
    case(
        "modern_pod_default_inbound_policy",
        Run::Skipped(NON_MANUAL),
        "inject-modern/inject_emojivoto_pod.input.yml",
        "inject-modern/inject_emojivoto_pod_default_inbound_policy.golden.yml",
    ),
];
