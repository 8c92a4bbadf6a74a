//! What a chart state changed that the stored reference renders do not show (#35): the
//! features `default`, `ha` and `overrides` leave off (tracing, the Gateway API switches), turned
//! on as `tests/reference/releases/ERAS.md` says ("value that shows it"). Each expectation was
//! read from upstream's chart at the tag and checked against Helm 3.17.1's render of it; the
//! upstream charts are not in the repository, so the facts are written here.

use crate::support;

use std::process::{Command, Output};

/// The render's instant: the pinned issuer certificate in `tests/certs/` is valid then.
const SOURCE_DATE_EPOCH: &str = "1704067200";

fn render(release: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args(["render", "--linkerd", release, "-n", "linkerd"])
        .args(["--certs-dir", "tests/certs"])
        .args(["--set", "heartbeatSchedule=1 2 * * *"])
        .args(extra)
        .current_dir(support::repo_root())
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .expect("run meshchart")
}

fn rendered(release: &str, extra: &[&str]) -> String {
    let out = render(release, extra);
    assert!(
        out.status.success(),
        "{release}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The three proxied control-plane Deployments, each with its proxy's tracing env and mount and
/// the pod's volume.
const PROXIED_PODS: usize = 3;

/// One release's proxy tracing with tracing turned on by the key its values.yaml has.
struct Tracing {
    release: &'static str,
    set: &'static str,
    /// LINKERD2_PROXY_TRACE_ATTRIBUTES_PATH and the rest of the env block.
    env: bool,
    /// LINKERD2_PROXY_TRACE_ANNOTATIONS_PATH (edge-25.10.2 on).
    annotations_path: bool,
    /// The linkerd-podinfo volume and mount.
    podinfo: bool,
    /// LINKERD2_PROXY_TRACE_COLLECTOR_SVC_NAME's value.
    collector_name: Option<&'static str>,
}

#[test]
fn proxy_tracing_follows_the_key_and_layout_of_each_release() {
    let cases = [
        // Before edge-25.6.4 the chart has no proxy tracing: the key is ignored.
        Tracing {
            release: "edge-25.6.3",
            set: "proxy.tracing.enable=true,proxy.tracing.collector.endpoint=col.tr:4317",
            env: false,
            annotations_path: false,
            podinfo: false,
            collector_name: None,
        },
        Tracing {
            release: "edge-25.7.3",
            set: "proxy.tracing.enable=true,proxy.tracing.collector.endpoint=col.tr:4317,\
                  proxy.tracing.collector.meshIdentity.serviceAccountName=col",
            env: true,
            annotations_path: false,
            podinfo: true,
            collector_name: Some("col.serviceaccount.identity.linkerd.cluster.local"),
        },
        Tracing {
            release: "edge-25.9.4",
            set: "proxy.tracing.enable=true,proxy.tracing.collector.endpoint=col.tr:4317,\
                  proxy.tracing.collector.meshIdentity.serviceAccountName=col",
            env: true,
            annotations_path: false,
            podinfo: true,
            collector_name: Some("col.serviceaccount.identity.linkerd.cluster.local"),
        },
        // edge-25.10.1 renamed the key to `enabled` for the env only: the podinfo volume and
        // mount still test `enable` until edge-25.11.1 (ERAS.md, chart quirks).
        Tracing {
            release: "edge-25.10.5",
            set: "proxy.tracing.enabled=true,proxy.tracing.collector.endpoint=col.tr:4317,\
                  proxy.tracing.collector.meshIdentity.serviceAccountName=col,\
                  proxy.tracing.collector.meshIdentity.namespace=tr",
            env: true,
            annotations_path: true,
            podinfo: false,
            collector_name: Some("col.tr.serviceaccount.identity.linkerd.cluster.local"),
        },
        Tracing {
            release: "edge-25.11.1",
            set: "proxy.tracing.enabled=true,proxy.tracing.collector.endpoint=col.tr:4317,\
                  proxy.tracing.collector.meshIdentity.serviceAccountName=col,\
                  proxy.tracing.collector.meshIdentity.namespace=tr",
            env: true,
            annotations_path: true,
            podinfo: true,
            collector_name: Some("col.tr.serviceaccount.identity.linkerd.cluster.local"),
        },
    ];
    for case in cases {
        let text = rendered(case.release, &["--set", case.set]);
        let count = |needle: &str| text.matches(needle).count();
        let expect = |on: bool| if on { PROXIED_PODS } else { 0 };
        let release = case.release;
        assert_eq!(
            count("name: LINKERD2_PROXY_TRACE_ATTRIBUTES_PATH"),
            expect(case.env),
            "{release}: tracing env"
        );
        assert_eq!(
            count("name: LINKERD2_PROXY_TRACE_ANNOTATIONS_PATH"),
            expect(case.annotations_path),
            "{release}: annotations path"
        );
        assert_eq!(
            count("mountPath: /var/run/linkerd/podinfo"),
            expect(case.podinfo),
            "{release}: podinfo mount"
        );
        assert_eq!(
            count("name: linkerd-podinfo") - count("mountPath: /var/run/linkerd/podinfo"),
            expect(case.podinfo),
            "{release}: podinfo volume"
        );
        match case.collector_name {
            Some(name) => assert_eq!(
                count(&format!("value: {name}\n")),
                PROXIED_PODS,
                "{release}: collector name {name}"
            ),
            None => assert_eq!(count("LINKERD2_PROXY_TRACE_COLLECTOR_SVC_NAME"), 0),
        }
    }
}

#[test]
fn the_controllers_trace_collector_follows_each_releases_values() {
    // controlPlaneTracing: the tracing extension's collector, OpenCensus port before edge-25.4.3.
    for (release, port) in [("edge-25.4.2", 55678), ("edge-25.5.4", 4317)] {
        let text = rendered(release, &["--set", "controlPlaneTracing=true"]);
        let arg = format!("- -trace-collector=collector.linkerd-jaeger.svc.cluster.local:{port}");
        assert_eq!(text.matches(&arg).count(), 2, "{release}: {arg}");
    }
    // From edge-25.10.1 controller.tracing; its endpoint falls back to the proxies' collector
    // from edge-25.10.7 only.
    let set = "controller.tracing.enabled=true,proxy.tracing.collector.endpoint=col.tr:4317";
    let out = render("edge-25.10.5", &["--set", set]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("controller.tracing.collector.endpoint must be set"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = rendered("edge-25.10.7", &["--set", set]);
    assert_eq!(text.matches("- -trace-collector=col.tr:4317").count(), 2);
    // Before edge-25.10.1 controller.tracing is not read.
    let text = rendered("edge-25.9.4", &["--set", set]);
    assert!(!text.contains("-trace-collector"), "edge-25.9.4");
}

#[test]
fn the_route_crds_follow_each_releases_switches() {
    let installs_httproutes = |release: &str, set: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .args(["render", "--crds", "--linkerd", release, "-n", "linkerd"])
            .args(["--set", set])
            .current_dir(support::repo_root())
            .output()
            .expect("run meshchart");
        assert!(out.status.success(), "{release}");
        String::from_utf8_lossy(&out.stdout).contains("name: httproutes.gateway.networking.k8s.io")
    };
    // edge-25.3.1 falls back to installGatewayAPI when enableHttpRoutes is false (Helm's
    // `default`); from edge-25.3.2 a given enableHttpRoutes decides.
    assert!(installs_httproutes("edge-25.3.1", "enableHttpRoutes=false"));
    assert!(!installs_httproutes(
        "edge-25.3.2",
        "enableHttpRoutes=false"
    ));
    assert!(!installs_httproutes(
        "edge-25.2.3",
        "enableHttpRoutes=false"
    ));
    // installGatewayAPI came with edge-25.3.1 and is off by default from edge-25.9.4.
    assert!(installs_httproutes(
        "edge-25.2.3",
        "installGatewayAPI=false"
    ));
    assert!(installs_httproutes("edge-25.9.3", "enableTlsRoutes=false"));
    assert!(!installs_httproutes("edge-25.9.4", "enableTlsRoutes=false"));
}
