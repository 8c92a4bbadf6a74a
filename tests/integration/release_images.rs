//! Every served release runs the images and commands it ships (#35), from the release table's
//! `[release.images]`: its own proxy-init image up to edge-25.11.2, then linkerd-init running
//! `/usr/lib/linkerd/linkerd2-proxy-init` from the proxy image; the policy controller's own image
//! (whose entrypoint runs) up to edge-25.8.2, then `/linkerd-policy-controller` from the
//! controller image. A release's render never names an image or a command its images lack.

use crate::support;

use meshchart::values::Value;
use std::process::Command;

/// The render's instant: the pinned issuer certificate in `tests/certs/` is valid then.
const SOURCE_DATE_EPOCH: &str = "1704067200";

fn render(release: &str) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args([
            "render",
            "--linkerd",
            release,
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
        ])
        .args(["--set", "heartbeatSchedule=1 2 * * *"])
        .current_dir(support::repo_root())
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .expect("run meshchart");
    assert!(
        out.status.success(),
        "{release}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    meshchart::yaml::parse_documents(&String::from_utf8(out.stdout).expect("utf-8"))
        .expect("a YAML stream")
}

/// Every container and init container of the stream's pod templates (CronJobs' too).
fn containers(docs: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for doc in docs {
        for spec in [
            doc.get_path(&["spec", "template", "spec"]),
            doc.get_path(&["spec", "jobTemplate", "spec", "template", "spec"]),
        ]
        .into_iter()
        .flatten()
        {
            for list in ["containers", "initContainers"] {
                if let Some(Value::Seq(items)) = spec.get_path(&[list]) {
                    out.extend(items.iter().cloned());
                }
            }
        }
    }
    out
}

fn text<'a>(container: &'a Value, key: &str) -> &'a str {
    container
        .get_path(&[key])
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn command(container: &Value) -> Option<Vec<String>> {
    match container.get_path(&["command"]) {
        Some(Value::Seq(items)) => Some(
            items
                .iter()
                .map(|i| i.as_str().unwrap_or("").to_owned())
                .collect(),
        ),
        _ => None,
    }
}

#[test]
fn every_served_release_runs_only_the_images_and_commands_it_ships() {
    let served: Vec<&'static meshchart::releases::ReleaseRow> = meshchart::releases::RELEASES
        .iter()
        .filter(|row| !row.images.is_empty() && meshchart::releases::template_set(row).is_some())
        .collect();
    assert!(
        served.len() >= 45,
        "{} served releases with image facts",
        served.len()
    );
    let mut failures = Vec::new();
    for row in served {
        let image = |role: &str| {
            row.images
                .iter()
                .find(|(r, _)| *r == role)
                .map(|(_, image)| *image)
        };
        let all = containers(&render(row.release));
        for container in &all {
            let (name, used) = (text(container, "name"), text(container, "image"));
            if !row.images.iter().any(|(_, image)| *image == used) {
                failures.push(format!(
                    "{}: container {name} runs {used}, not an image of the release",
                    row.release
                ));
            }
            let expected: Option<Vec<String>> = match name {
                "policy" if image("policy_controller").is_none() => {
                    Some(vec!["/linkerd-policy-controller".to_owned()])
                }
                "linkerd-init" if image("proxy_init").is_none() => {
                    Some(vec!["/usr/lib/linkerd/linkerd2-proxy-init".to_owned()])
                }
                "policy" | "linkerd-init" => None,
                _ => continue,
            };
            if command(container) != expected {
                failures.push(format!(
                    "{}: container {name} runs command {:?}, the release ships {expected:?}",
                    row.release,
                    command(container)
                ));
            }
            let wanted_image = match name {
                "policy" => image("policy_controller").or(image("controller")),
                _ => image("proxy_init").or(image("proxy")),
            };
            if Some(used) != wanted_image {
                failures.push(format!(
                    "{}: container {name} runs {used}, not {wanted_image:?}",
                    row.release
                ));
            }
        }
        for role in ["controller", "proxy"] {
            let wanted = image(role).unwrap_or_default();
            if !all.iter().any(|c| text(c, "image") == wanted) {
                failures.push(format!(
                    "{}: no container runs its {role} image {wanted}",
                    row.release
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
