//! What each embedded modern release runs in the two containers whose image changed between
//! eras (tests/reference/releases/ERAS.md, "Binary facts"): the policy controller, from its own
//! image (entrypoint `/bin/linkerd-policy-controller`, so no command) up to edge-25.8.2 and from
//! the controller image with `command: [/linkerd-policy-controller]` from edge-25.8.3; and
//! linkerd-init, from the proxy-init image (its entrypoint, no command) up to edge-25.11.2 and
//! from the proxy image with `command: [/usr/lib/linkerd/linkerd2-proxy-init]` from
//! edge-25.11.3. A render that names a command its image lacks would leave the pod crashing.

use crate::support;

use meshchart::values::Value;
use support::release_line::meshchart;

/// One release's images and commands for the policy and linkerd-init containers.
struct Binaries {
    release: &'static str,
    policy_image: &'static str,
    policy_command: Option<&'static str>,
    init_image: &'static str,
    init_command: Option<&'static str>,
}

const RELEASES: &[Binaries] = &[
    Binaries {
        release: "stable-2.14.10",
        policy_image: "cr.l5d.io/linkerd/policy-controller:stable-2.14.10",
        policy_command: None,
        init_image: "cr.l5d.io/linkerd/proxy-init:v2.2.3",
        init_command: None,
    },
    Binaries {
        release: "edge-24.10.2",
        policy_image: "cr.l5d.io/linkerd/policy-controller:edge-24.10.2",
        policy_command: None,
        init_image: "cr.l5d.io/linkerd/proxy-init:v2.4.1",
        init_command: None,
    },
    Binaries {
        release: "edge-25.6.2",
        policy_image: "cr.l5d.io/linkerd/policy-controller:edge-25.6.2",
        policy_command: None,
        init_image: "cr.l5d.io/linkerd/proxy-init:v2.4.2",
        init_command: None,
    },
    Binaries {
        release: "edge-25.8.2",
        policy_image: "cr.l5d.io/linkerd/policy-controller:edge-25.8.2",
        policy_command: None,
        init_image: "cr.l5d.io/linkerd/proxy-init:v2.4.3",
        init_command: None,
    },
    Binaries {
        release: "edge-25.11.2",
        policy_image: "cr.l5d.io/linkerd/controller:edge-25.11.2",
        policy_command: Some("/linkerd-policy-controller"),
        init_image: "cr.l5d.io/linkerd/proxy-init:v2.4.3",
        init_command: None,
    },
    Binaries {
        release: "edge-26.8.3",
        policy_image: "cr.l5d.io/linkerd/controller:edge-26.8.3",
        policy_command: Some("/linkerd-policy-controller"),
        init_image: "cr.l5d.io/linkerd/proxy:edge-26.8.3",
        init_command: Some("/usr/lib/linkerd/linkerd2-proxy-init"),
    },
];

/// The container `name` of the destination Deployment's pod (containers or initContainers).
fn destination_container(release: &str, name: &str) -> Value {
    let args: Vec<String> = [
        "render",
        "--linkerd",
        release,
        "-n",
        "linkerd",
        "--certs-dir",
        "tests/certs",
    ]
    .map(String::from)
    .to_vec();
    let out = meshchart(&args).unwrap_or_else(|e| panic!("{release}: {e}"));
    let docs = meshchart::yaml::parse_documents(&out).expect("the render reads back");
    let text = |v: &Value, path: &[&str]| {
        v.get_path(path)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let deployment = docs
        .iter()
        .find(|d| {
            text(d, &["kind"]) == "Deployment"
                && text(d, &["metadata", "name"]) == "linkerd-destination"
        })
        .unwrap_or_else(|| panic!("{release}: no linkerd-destination"));
    ["containers", "initContainers"]
        .iter()
        .filter_map(
            |list| match deployment.get_path(&["spec", "template", "spec", list]) {
                Some(Value::Seq(items)) => Some(items.clone()),
                _ => None,
            },
        )
        .flatten()
        .find(|c| text(c, &["name"]) == name)
        .unwrap_or_else(|| panic!("{release}: no container {name}"))
}

/// The container's `command` as one string, if it has one.
fn command(container: &Value) -> Option<String> {
    match container.get_path(&["command"]) {
        Some(Value::Seq(items)) => Some(
            items
                .iter()
                .map(|i| i.as_str().unwrap_or("?"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

fn image(container: &Value) -> &str {
    container
        .get_path(&["image"])
        .and_then(Value::as_str)
        .unwrap_or("")
}

#[test]
fn the_policy_controller_runs_the_image_and_command_its_release_ships() {
    for expected in RELEASES {
        let policy = destination_container(expected.release, "policy");
        assert_eq!(
            image(&policy),
            expected.policy_image,
            "{}",
            expected.release
        );
        assert_eq!(
            command(&policy).as_deref(),
            expected.policy_command,
            "{}",
            expected.release
        );
    }
}

#[test]
fn linkerd_init_runs_the_image_and_command_its_release_ships() {
    for expected in RELEASES {
        let init = destination_container(expected.release, "linkerd-init");
        assert_eq!(image(&init), expected.init_image, "{}", expected.release);
        assert_eq!(
            command(&init).as_deref(),
            expected.init_command,
            "{}",
            expected.release
        );
    }
}
