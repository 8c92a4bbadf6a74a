//! The edge-25.8.2 release line (the last state of era edge-25.6, the last release whose policy
//! controller runs its own image): our charts in `templates/edge-25.8.2/`
//! against what real Helm renders from upstream's charts at that tag
//! (`tests/reference/upstream/edge-25.8.2/`, whose README says how each render was made), field
//! by field (see [`support::release_line`]). The allowed differences are the table
//! "edge-25.8.2 line" of `tests/reference/DEVIATIONS.md`.

use crate::support;

use support::release_line::{Allowed, Line};

const LINE: Line = Line {
    release: "edge-25.8.2",
    heading: "## edge-25.8.2 line (",
    allowed: ALLOWED,
};

const ALLOWED: &[Allowed] = &[
    (
        "crds, crds-no-gateway-api",
        "CustomResourceDefinition/*",
        "*.description",
    ),
    (
        "defaults, ha, native-sidecar, external-ca, await-off, extras, scoped-overrides",
        "ConfigMap/linkerd-config",
        "data.values.proxy.controlPlaneAwait",
    ),
    (
        "await-off",
        "Deployment/linkerd-destination",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "await-off",
        "Deployment/linkerd-proxy-injector",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
];

#[test]
fn crd_chart_has_upstreams_schemas_without_descriptions() {
    assert!(
        LINE.check_case("crds") > 0,
        "the description deviation is expected to occur"
    );
}

#[test]
fn default_values_render_as_upstream_does() {
    LINE.check_case("defaults");
}

#[test]
fn upstreams_ha_values_render_as_upstream_does() {
    LINE.check_case("ha");
}

#[test]
fn gateway_api_crds_turned_off_match_upstreams() {
    LINE.check_case("crds-no-gateway-api");
}

#[test]
fn native_sidecar_legacy_iptables_and_ipv6_render_as_upstream_does() {
    LINE.check_case("native-sidecar");
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
fn every_allowed_difference_has_its_row_in_deviations_and_no_other_row_is_there() {
    LINE.check_deviation_rows();
}

#[test]
fn our_defaults_are_upstreams_plus_control_plane_await() {
    LINE.check_defaults_are_upstreams();
}

#[test]
fn our_ha_overlay_holds_upstreams_values() {
    LINE.check_ha_overlay_is_upstreams();
}

#[test]
fn upstreams_values_files_lint_clean() {
    LINE.check_upstream_values_lint_clean();
}
