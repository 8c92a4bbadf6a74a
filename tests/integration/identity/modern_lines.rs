//! The modern lines' webhooks and release namespace: what each chart's certificates serve.

use super::heartbeat::is_daily;
use super::*;

/// The release lines after the 2021 chart, whose control planes carry a policy validator.
const MODERN_LINES: [&str; 2] = ["edge-24.10.2", "edge-26.8.3"];

fn control_plane(release: &str) -> Chart {
    meshchart::releases::embedded_line(release, "linkerd-control-plane")
        .expect("an embedded release line")
}

/// `meshchart render` of release line `release`'s control plane with no values at all, into
/// `namespace`, keeping material in `certs_dir`, at [`NOW`]: the stream and the notes.
fn render_line(release: &str, namespace: &str, certs_dir: &Utf8Path) -> (String, Vec<String>) {
    let request = RenderRequest {
        namespace: namespace.to_owned(),
        certs_dir: Some(certs_dir.to_owned()),
        // The 2021 line runs on Kubernetes 1.24 at the newest.
        kube_version: (release == "edge-21.4.4").then(|| "1.24.0".to_owned()),
        ..RenderRequest::default()
    };
    let outcome = meshchart::render::render(
        &control_plane(release),
        &request,
        &mut std::io::empty(),
        Clock::Fixed(at(NOW)),
    )
    .unwrap_or_else(|e| panic!("{release}: a render without values fails: {e}"));
    (outcome.rendered.to_stream(), outcome.notes)
}

/// The documents of a stream by `Kind/name`.
fn documents(stream: &str) -> BTreeMap<String, Value> {
    meshchart::yaml::parse_documents(stream)
        .expect("the render parses")
        .into_iter()
        .filter(|doc| doc.get_path(&["kind"]).is_some())
        .map(|doc| {
            let name = format!(
                "{}/{}",
                get_str(&doc, "kind"),
                get_str(&doc, "metadata.name")
            );
            (name, doc)
        })
        .collect()
}

/// A base64 field of a rendered document, decoded (`path` by keys: Secret keys have dots).
fn decoded(doc: &Value, path: &[&str]) -> String {
    use base64::Engine as _;
    let text = doc
        .get_path(path)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string at {path:?}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_else(|e| panic!("{path:?} is not base64: {e}"));
    String::from_utf8(bytes).expect("PEM text")
}

#[test]
fn each_chart_says_which_webhooks_it_carries() {
    let webhooks = |release: &str| {
        meshchart::render::material_targets(&control_plane(release), "linkerd")
            .expect("readable defaults")
            .webhooks()
    };
    assert_eq!(
        webhooks("edge-21.4.4"),
        ["proxyInjector", "profileValidator"]
    );
    for release in MODERN_LINES {
        assert_eq!(
            webhooks(release),
            ["proxyInjector", "profileValidator", "policyValidator"],
            "{release}"
        );
    }
}

#[test]
fn modern_lines_render_without_values_and_again_identically_from_the_certs_dir() {
    for release in MODERN_LINES {
        let scratch = Scratch::new(&format!("no-values-{release}"));
        let (first, notes) = render_line(release, "linkerd", &scratch.0);
        assert!(
            notes.iter().any(|n| n.starts_with(
                "generated a self-signed policyValidator serving certificate for \
                 linkerd-policy-validator.linkerd.svc"
            )),
            "{release}: {notes:?}"
        );
        let files = snapshot(&scratch.0);
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "ca.crt",
                "ca.key",
                "issuer.crt",
                "issuer.key",
                "policy-validator.crt",
                "policy-validator.key",
                "proxy-injector.crt",
                "proxy-injector.key",
                "sp-validator.crt",
                "sp-validator.key",
            ],
            "{release}"
        );
        let (second, notes) = render_line(release, "linkerd", &scratch.0);
        assert_eq!(second, first, "{release}: the second render differs");
        assert_eq!(
            snapshot(&scratch.0),
            files,
            "{release}: the certs dir changed"
        );
        assert!(
            notes.iter().all(|n| !n.starts_with("generated")),
            "{release}: {notes:?}"
        );
    }
}

#[test]
fn generated_webhook_certificates_serve_the_release_namespace_and_verify_against_their_ca_bundle() {
    for release in MODERN_LINES {
        let scratch = Scratch::new(&format!("release-namespace-{release}"));
        let (stream, _) = render_line(release, "mesh", &scratch.0);
        let docs = documents(&stream);
        for (service, kind) in [
            ("linkerd-policy-validator", "ValidatingWebhookConfiguration"),
            ("linkerd-sp-validator", "ValidatingWebhookConfiguration"),
            ("linkerd-proxy-injector", "MutatingWebhookConfiguration"),
        ] {
            let host = format!("{service}.mesh.svc");
            let secret = &docs[&format!("Secret/{service}-k8s-tls")];
            let config = &docs[&format!("{kind}/{service}-webhook-config")];
            let Value::Seq(hooks) = get(config, "webhooks") else {
                panic!("{release}: {service}: webhooks is not a list");
            };
            assert_eq!(get_str(&hooks[0], "clientConfig.service.namespace"), "mesh");
            let ca_bundle = decoded(&hooks[0], &["clientConfig", "caBundle"]);
            with_cert(&decoded(secret, &["data", "tls.crt"]), |served| {
                assert_eq!(dns_names(served), [host.as_str()], "{release}");
                with_cert(&ca_bundle, |ca| {
                    served
                        .verify_signature(Some(ca.public_key()))
                        .unwrap_or_else(|e| panic!("{release}: {service}: {e}"));
                });
            });
        }
        let issuer = &docs["Secret/linkerd-identity-issuer"];
        with_cert(&decoded(issuer, &["data", "crt.pem"]), |crt| {
            assert_eq!(common_name(crt), "identity.mesh.cluster.local", "{release}");
        });
    }
}

#[test]
fn only_keys_the_chart_declares_are_written() {
    // The 2021 chart declares identity.issuer.crtExpiry and reads it; the modern lines do not,
    // so their linkerd-config shows no such key (as upstream's). heartbeatSchedule is declared
    // by the modern lines' schema only, and still filled in.
    for release in ["edge-21.4.4", "edge-24.10.2", "edge-26.8.3"] {
        let scratch = Scratch::new(&format!("declared-{release}"));
        let (stream, notes) = render_line(release, "linkerd", &scratch.0);
        let docs = documents(&stream);
        let values = parse_document(get_str(&docs["ConfigMap/linkerd-config"], "data.values"))
            .expect("linkerd-config holds YAML");
        let expiry = values.get_path(&["identity", "issuer", "crtExpiry"]);
        if release == "edge-21.4.4" {
            assert_eq!(expiry, Some(&Value::from("2024-11-13T22:13:20Z")));
        } else {
            assert_eq!(expiry, None, "{release}");
            assert!(notes.iter().all(|n| !n.contains("crtExpiry")), "{notes:?}");
        }
        // Derived from the anchors this folder holds, so the same on every render from it.
        let schedule = get_str(&values, "heartbeatSchedule");
        assert!(is_daily(schedule), "{release}: {schedule}");
        let (again, _) = render_line(release, "linkerd", &scratch.0);
        assert_eq!(again, stream, "{release}");
    }
}

#[test]
fn a_key_declared_by_the_schema_only_is_filled_and_one_declared_nowhere_is_not() {
    let mut chart_defaults = defaults();
    if let Value::Map(map) = &mut chart_defaults {
        map.remove("heartbeatSchedule");
    }
    let mut values = chart_defaults.clone();
    let without_schema = MaterialTargets::new(&chart_defaults, None, "default");
    complete_material(&mut values, &without_schema, &options(None)).expect("completes");
    assert!(values.get_path(&["heartbeatSchedule"]).is_none());

    let schema = r#"{"properties": {"heartbeatSchedule": {"type": "string"}}}"#;
    let mut values = chart_defaults.clone();
    let with_schema = MaterialTargets::new(&chart_defaults, Some(schema), "default");
    complete_material(&mut values, &with_schema, &options(None)).expect("completes");
    assert!(is_daily(get_str(&values, "heartbeatSchedule")));
}

/// The webhook sections of a modern chart's defaults, without a `namespace` key.
const MODERN_DEFAULTS: &str = r#"
clusterDomain: cluster.local
identityTrustAnchorsPEM: ""
identityTrustDomain: ""
identity:
  issuer:
    scheme: linkerd.io/tls
    tls:
      crtPEM: ""
      keyPEM: ""
disableHeartBeat: false
proxyInjector: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
profileValidator: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
policyValidator: {externalSecret: false, crtPEM: "", keyPEM: "", caBundle: "", injectCaFrom: "", injectCaFromSecret: ""}
"#;

#[test]
fn without_a_namespace_value_the_release_namespace_names_the_certificates() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "mesh");
    let mut values = chart_defaults.clone();
    // A `namespace` value the chart does not read changes nothing.
    set(&mut values, "namespace", "elsewhere");
    complete_material(&mut values, &targets, &options(None)).expect("completes");
    with_cert(get_str(&values, "policyValidator.crtPEM"), |cert| {
        assert_eq!(dns_names(cert), ["linkerd-policy-validator.mesh.svc"]);
    });
    with_cert(get_str(&values, "identity.issuer.tls.crtPEM"), |cert| {
        assert_eq!(common_name(cert), "identity.mesh.cluster.local");
    });
    assert!(values
        .get_path(&["identity", "issuer", "crtExpiry"])
        .is_none());
}

#[test]
fn release_namespace_that_is_not_a_dns_label_is_an_error_naming_it() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "Mesh");
    let mut values = chart_defaults.clone();
    let message = complete_material(&mut values, &targets, &options(None))
        .expect_err("an upper-case namespace")
        .to_string();
    assert!(
        message.starts_with("the release namespace (--namespace) is \"Mesh\""),
        "{message}"
    );
}

#[test]
fn certs_dir_serving_cert_for_another_release_namespace_is_rejected() {
    let scratch = Scratch::new("release-namespace-reuse");
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let linkerd = MaterialTargets::new(&chart_defaults, None, "linkerd");
    complete_material(
        &mut chart_defaults.clone(),
        &linkerd,
        &options(Some(&scratch.0)),
    )
    .expect("render into linkerd");
    let mesh = MaterialTargets::new(&chart_defaults, None, "mesh");
    let message = complete_material(
        &mut chart_defaults.clone(),
        &mesh,
        &options(Some(&scratch.0)),
    )
    .expect_err("the kept certificates name linkerd")
    .to_string();
    assert!(
        message.contains(
            "it is for linkerd-proxy-injector.linkerd.svc, not linkerd-proxy-injector.mesh.svc"
        ),
        "{message}"
    );
}

#[test]
fn ca_injected_by_cert_manager_leaves_the_ca_bundle_empty() {
    let chart_defaults = parse_document(MODERN_DEFAULTS).expect("parses");
    let targets = MaterialTargets::new(&chart_defaults, None, "linkerd");
    for key in ["injectCaFrom", "injectCaFromSecret"] {
        let mut values = chart_defaults.clone();
        set(
            &mut values,
            &format!("policyValidator.{key}"),
            "linkerd/linkerd-policy-validator",
        );
        complete_material(&mut values, &targets, &options(None)).expect("completes");
        assert_ne!(get_str(&values, "policyValidator.crtPEM"), "", "{key}");
        assert_eq!(get_str(&values, "policyValidator.caBundle"), "", "{key}");
        assert_ne!(get_str(&values, "proxyInjector.caBundle"), "", "{key}");
    }
}
