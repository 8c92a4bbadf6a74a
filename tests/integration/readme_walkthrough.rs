//! The README's chart author's walkthrough (the `sh` block after `<!-- walkthrough -->`), run as
//! written in a scratch folder with `meshchart` on `PATH`, then what it made checked.

use crate::support;

use std::io::Read as _;
use std::path::Path;
use std::process::Command;

/// The walkthrough's commands, exactly as the README shows them.
fn walkthrough() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let after = readme
        .split_once("<!-- walkthrough -->\n")
        .expect("the README marks its walkthrough")
        .1;
    let block = after
        .strip_prefix("```sh\n")
        .expect("the walkthrough is a sh block");
    block
        .split_once("\n```\n")
        .expect("the block ends")
        .0
        .to_owned()
}

fn bash() -> Option<&'static str> {
    ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|b| Path::new(b).is_file())
}

#[test]
fn the_readme_walkthrough_runs_as_written() {
    let Some(bash) = bash() else {
        support::cli::skip(
            "the_readme_walkthrough_runs_as_written",
            "bash",
            "bash is not installed",
        );
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_meshchart")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(bash)
        .args(["-euo", "pipefail", "-c", &walkthrough()])
        .current_dir(scratch.path())
        .env("PATH", path)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("note: using the chart in ./"), "{stderr}");
    assert!(stdout.contains("==> Linting ./"), "{stdout}");
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");

    let web = scratch.path().join("web");
    let rendered = std::fs::read_to_string(web.join("web.yaml")).unwrap();
    assert!(rendered.contains("  replicas: 3\n"), "{rendered}");
    assert!(
        rendered.contains("  labels:\n    app.kubernetes.io/name: web\n    app.kubernetes.io/instance: release-name\nspec:"),
        "an included partial leaves no blank line:\n{rendered}"
    );
    let expected =
        std::fs::read_to_string(web.join("golden/three-replicas/expected.yaml")).unwrap();
    assert_eq!(expected, rendered);

    let archive = scratch.path().join("dist/web-0.1.0.tgz");
    let mut entries = tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&archive).unwrap(),
    ));
    let mut names = Vec::new();
    let mut chart_yaml = String::new();
    for entry in entries.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().display().to_string();
        if name == "web/Chart.yaml" {
            entry.read_to_string(&mut chart_yaml).unwrap();
        }
        names.push(name);
    }
    assert!(!names.iter().any(|n| n.contains("golden")), "{names:?}");
    assert!(
        chart_yaml.contains("meshchart.io/template-language: jinja"),
        "{chart_yaml}"
    );

    // What the README says of the archive: Helm cannot render it.
    if let Some(helm) = support::cli::helm() {
        let out = Command::new(helm)
            .arg("template")
            .arg(&archive)
            .output()
            .expect("run helm");
        assert!(
            !out.status.success(),
            "helm rendered a Jinja chart: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// The first `sh` block of the README's GitOps section, as written.
fn gitops_recipe() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split_once("## GitOps: keep the trust root\n")
        .expect("the README's GitOps section")
        .1;
    let block = section
        .split_once("```sh\n")
        .expect("the recipe is a sh block")
        .1;
    block
        .split_once("\n```\n")
        .expect("the block ends")
        .0
        .to_owned()
}

#[test]
fn the_readme_gitops_recipe_renders_the_same_bytes_at_every_sync() {
    let Some(bash) = bash() else {
        support::cli::skip(
            "the_readme_gitops_recipe_renders_the_same_bytes_at_every_sync",
            "bash",
            "bash is not installed",
        );
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_meshchart")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let recipe = gitops_recipe();
    let render_again = recipe
        .lines()
        .find(|l| l.starts_with("meshchart render"))
        .expect("the recipe renders");
    let run = |script: &str| {
        Command::new(bash)
            .args(["-euo", "pipefail", "-c", script])
            .current_dir(scratch.path())
            .env("PATH", &path)
            .output()
            .expect("run bash")
    };
    let first = run(&recipe);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let once = std::fs::read(scratch.path().join("control-plane.yaml")).unwrap();
    // A sync later: the same render, from the kept folder.
    let sync = run(render_again);
    let stderr = String::from_utf8_lossy(&sync.stderr);
    assert!(sync.status.success(), "{stderr}");
    assert!(!stderr.contains("new identity trust root"), "{stderr}");
    let again = std::fs::read(scratch.path().join("control-plane.yaml")).unwrap();
    assert!(once == again, "the second sync rendered other bytes");
}
