//! A default render pulls images that exist: every image names a released tag, never a
//! placeholder such as upstream's `linkerdVersionValue`.

use crate::support;

use meshchart::proxy_support::Release;
use meshchart::values::Value;
use support::cli::{legacy_command, run};

/// Every `image` string under containers and init containers of `value`.
fn images(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Map(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("image", Value::String(image)) => found.push(image.clone()),
                    _ => images(child, found),
                }
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| images(item, found)),
        _ => {}
    }
}

/// Whether `tag` names a release: `edge-21.4.4`, `stable-2.11.2`, or `v1.3.11` (proxy-init).
fn is_released_tag(tag: &str) -> bool {
    let semver_tag = tag
        .strip_prefix('v')
        .is_some_and(|rest| semver::Version::parse(rest).is_ok());
    Release::parse(tag).is_some() || semver_tag
}

/// The images of `meshchart render` with the pinned certificates and `extra` flags, as a user
/// runs it.
fn rendered_images(extra: &[&str]) -> Vec<String> {
    let mut args = vec!["render", "--certs-dir", "tests/certs"];
    args.extend(extra);
    // At the golden instant, when the pinned set's issuer is valid (render checks it).
    let out = run(legacy_command(&args).env("SOURCE_DATE_EPOCH", "1700000000"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stream = String::from_utf8(out.stdout).expect("UTF-8 output");
    let mut found = Vec::new();
    for doc in meshchart::yaml::parse_documents(&stream).expect("the render parses") {
        if let Some(spec) = doc.get_path(&["spec"]) {
            images(spec, &mut found);
        }
    }
    found
}

#[test]
fn every_image_of_a_default_render_names_a_released_tag() {
    let images = rendered_images(&["--set", "debugContainer.enabled=true"]);
    assert!(images.len() >= 12, "{images:?}");
    for image in images {
        let (_, tag) = image
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("{image}: no tag"));
        assert!(
            is_released_tag(tag),
            "{image}: {tag:?} is not a released tag"
        );
    }
}

#[test]
fn a_placeholder_version_is_not_a_released_tag() {
    for tag in ["linkerdVersionValue", "latest", "", "stable-2.10.2-patched"] {
        assert!(!is_released_tag(tag), "{tag}");
    }
}
