//! The edge-26.8.3 release line: our charts in `templates/edge-26.8.3/` against what real Helm
//! renders from upstream's charts at that tag (`tests/reference/upstream/edge-26.8.3/`, whose
//! README says how each render was made).
//!
//! Each case renders with the meshchart binary from its `args`, both streams are split into
//! resources (matched by kind, namespace and name) and compared field by field. A difference must
//! be in [`ALLOWED`], whose rows are also the table "edge-26.8.3 line" of
//! `tests/reference/DEVIATIONS.md`; an allowed difference that no longer occurs in a case it names
//! fails too, so the list stays true.

use crate::support;

use support::release_line::{Allowed, Line};

mod behaviours;

/// The line, its DEVIATIONS.md table and its allowed differences (see [`support::release_line`]).
const LINE: Line = Line {
    release: "edge-26.8.3",
    heading: "## edge-26.8.3 line (",
    allowed: ALLOWED,
};
/// Where the line's control-plane values live in the repository.
const CONTROL_PLANE_VALUES: &str = "values/edge-26.8.3/linkerd-control-plane";

/// The intended differences: (cases, resource, field path), each cell as in DEVIATIONS.md (cases
/// comma-separated; `*` matches any run of characters).
const ALLOWED: &[Allowed] = &[
    (
        "crds, crds-gateway-api",
        "CustomResourceDefinition/*",
        "*.description",
    ),
    (
        "defaults, ha, classic-proxy, external-ca, await-off*, extras, scoped-overrides, heartbeat-from-clock",
        "ConfigMap/linkerd-config",
        "data.values.proxy.controlPlaneAwait",
    ),
    (
        "await-off",
        "Deployment/linkerd-destination",
        "spec.template.spec.initContainers[name=linkerd-proxy].startupProbe",
    ),
    (
        "await-off",
        "Deployment/linkerd-proxy-injector",
        "spec.template.spec.initContainers[name=linkerd-proxy].startupProbe",
    ),
    (
        "await-off-classic",
        "Deployment/linkerd-destination",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "await-off-classic",
        "Deployment/linkerd-proxy-injector",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "heartbeat-from-clock",
        "CronJob/linkerd-heartbeat",
        "spec.schedule",
    ),
    (
        "heartbeat-from-clock",
        "ConfigMap/linkerd-config",
        "data.values.heartbeatSchedule",
    ),
];

#[test]
fn default_values_render_as_upstream_does() {
    LINE.check_case("defaults");
}

#[test]
fn upstreams_ha_values_render_as_upstream_does() {
    LINE.check_case("ha");
}

#[test]
fn crd_chart_has_upstreams_schemas_without_descriptions() {
    assert!(
        LINE.check_case("crds") > 0,
        "the description deviation is expected to occur"
    );
}

#[test]
fn gateway_api_crds_on_request_match_upstreams() {
    LINE.check_case("crds-gateway-api");
}

#[test]
fn classic_sidecar_legacy_iptables_and_ipv6_render_as_upstream_does() {
    LINE.check_case("classic-proxy");
}

#[test]
fn external_ca_with_cni_and_psp_renders_as_upstream_does() {
    LINE.check_case("external-ca");
}

#[test]
fn labels_scheduling_tracing_monitoring_and_extra_args_render_as_upstream_does() {
    LINE.check_case("extras");
}

/// Every proxy setting a component overrides for its own proxy, set by the user: the overrides
/// stay on the components' proxies, and the user's values reach everything else (the policy
/// controller's `--default-policy` above all), as upstream's chart renders them.
#[test]
fn proxy_settings_the_components_override_reach_the_rest_as_the_user_set_them() {
    LINE.check_case("scoped-overrides");
}

#[test]
fn proxy_await_off_leaves_destination_and_injector_awaiting_their_proxy() {
    LINE.check_case("await-off");
}

#[test]
fn proxy_await_off_with_classic_sidecars_leaves_their_await_hook() {
    LINE.check_case("await-off-classic");
}

#[test]
fn a_heartbeat_schedule_left_unset_is_derived_from_the_cluster_not_the_clock() {
    LINE.check_case("heartbeat-from-clock");
}

#[test]
fn every_allowed_difference_has_its_row_in_deviations_and_no_other_row_is_there() {
    LINE.check_deviation_rows();
}
