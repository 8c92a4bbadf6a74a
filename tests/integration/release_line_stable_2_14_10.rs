//! The stable-2.14.10 release line (era stable-2.14: the last open-source stable release): our
//! charts in `templates/stable-2.14.10/` against what real Helm renders from upstream's charts at
//! that tag (`tests/reference/upstream/stable-2.14.10/`, whose README says how each render was
//! made), field by field (see [`support::release_line`]). The allowed differences are the table
//! "stable-2.14.10 line" of `tests/reference/DEVIATIONS.md`.

use crate::support;

use support::release_line::{Allowed, Line};

const LINE: Line = Line {
    release: "stable-2.14.10",
    heading: "## stable-2.14.10 line (",
    allowed: ALLOWED,
};

const ALLOWED: &[Allowed] = &[
    ("crds", "CustomResourceDefinition/*", "*.description"),
    (
        "defaults",
        "*WebhookConfiguration/*",
        "webhooks[name=*].clientConfig.caBundle",
    ),
    (
        "defaults",
        "Deployment/*",
        "spec.template.metadata.annotations.checksum/config",
    ),
    (
        "defaults",
        "ConfigMap/linkerd-config",
        "data.values.*.caBundle",
    ),
    (
        "external-ca-cni",
        "Deployment/linkerd-destination",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "external-ca-cni",
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
fn default_values_render_as_upstream_does_but_for_random_webhook_certificates() {
    LINE.check_case("defaults");
}

#[test]
fn upstreams_ha_values_render_as_upstream_does() {
    LINE.check_case("ha");
}

#[test]
fn labels_scheduling_proxy_init_tracing_monitoring_and_detect_timeouts_render_as_upstream_does() {
    LINE.check_case("overrides");
}

/// Every proxy setting a component overrides for its own proxy, set by the user: the overrides
/// stay on the components' proxies, and the user's values reach everything else (the policy
/// controller's `--default-policy` above all), as upstream's chart renders them.
#[test]
fn proxy_settings_the_components_override_reach_the_rest_as_the_user_set_them() {
    LINE.check_case("scoped-overrides");
}

#[test]
fn external_ca_with_cni_and_await_off_renders_as_upstream_does() {
    LINE.check_case("external-ca-cni");
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
