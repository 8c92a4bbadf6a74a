//! Unit tests for [`super::job_shutdown`]: how a Job's proxy is stopped on each release.

use super::*;

fn values(yaml: &str) -> Value {
    crate::yaml::parse_document(yaml).unwrap()
}

#[test]
fn the_2021_line_has_only_the_always_on_endpoint() {
    let how = job_shutdown(&values(
        "linkerdVersion: edge-21.4.4\nproxy: {ports: {admin: 4191}}",
    ));
    assert_eq!(
        how,
        "have the app shut the proxy down when it is done (run it under `linkerd-await \
             --shutdown -- <command>`, or POST to http://localhost:4191/shutdown); the proxy's \
             shutdown endpoint is always on, on the loopback only"
    );
}

#[test]
fn edge_24_10_2_names_the_alpha_native_sidecar_and_the_opt_in_endpoint() {
    let how = job_shutdown(&values(
            "linkerdVersion: edge-24.10.2\nproxy: {enableShutdownEndpoint: false, ports: {admin: 4191}}",
        ));
    assert!(how.contains("config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\""));
    assert!(how.contains("config.linkerd.io/proxy-admin-shutdown: enabled"));
}

#[test]
fn edge_26_8_3_names_the_unprefixed_native_sidecar_and_an_enabled_endpoint_as_such() {
    let how = job_shutdown(&values(
        "linkerdVersion: edge-26.8.3\nproxy: {enableShutdownEndpoint: true, ports: {admin: 9990}}",
    ));
    assert!(how.starts_with(
        "run the proxy as a native sidecar, which Kubernetes stops after the app \
             (config.linkerd.io/proxy-enable-native-sidecar: \"true\""
    ));
    assert!(how.ends_with(
        "the proxy's shutdown endpoint is enabled: have the app shut the proxy down when it \
             is done (run it under `linkerd-await --shutdown -- <command>`, or POST to \
             http://localhost:9990/shutdown)"
    ));
}
