//! `stage`, which the linkerd CLI sets with `cliVersion` in its staged install: in the
//! control-plane stage the webhooks' pods carry no `checksum/config` annotation (upstream's rule).

use crate::support;

use support::{find, get, reference_values, render, set};

fn checksum_of(values: &meshchart::values::Value, deployment: &str) -> Option<String> {
    let rendered = render(values);
    let doc = find(&rendered, "Deployment", deployment);
    get(&doc, "spec.template.metadata.annotations")
        .get_path(&["checksum/config"])
        .and_then(|v| v.as_str())
        .map(str::to_owned)
}

#[test]
fn webhook_pods_have_a_config_checksum_by_default() {
    let values = reference_values();
    for name in ["linkerd-proxy-injector", "linkerd-sp-validator"] {
        assert!(checksum_of(&values, name).is_some(), "{name}");
    }
}

#[test]
fn control_plane_stage_of_the_cli_leaves_the_checksum_out() {
    let mut values = reference_values();
    set(&mut values, "cliVersion", "linkerd/cli stable-2.10.0");
    set(&mut values, "stage", "control-plane");
    for name in ["linkerd-proxy-injector", "linkerd-sp-validator"] {
        assert_eq!(checksum_of(&values, name), None, "{name}");
    }
}

#[test]
fn stage_without_cli_version_keeps_the_checksum() {
    let mut values = reference_values();
    set(&mut values, "stage", "control-plane");
    assert!(checksum_of(&values, "linkerd-proxy-injector").is_some());
}
