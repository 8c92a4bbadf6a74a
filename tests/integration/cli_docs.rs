//! What the binary says about itself (#37): `--version` with the embedded Linkerd releases,
//! shell completions and a man page generated from the same clap definition.

use crate::support;

use support::cli::meshchart;

#[test]
fn version_names_every_embedded_era_and_the_default_release() {
    let out = meshchart(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("meshchart {}\n", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    for era in meshchart::releases::ERAS {
        // An era served state by state is listed from its first served release.
        let first_served = meshchart::releases::RELEASES
            .iter()
            .find(|row| row.era == era.name && meshchart::releases::template_set(row).is_some());
        match (era.templates, first_served) {
            (Some(_), Some(first)) => assert!(
                text.contains(&format!("  era {}: {}", era.name, first.release)),
                "{text}"
            ),
            _ => assert!(!text.contains(&format!("era {}:", era.name)), "{text}"),
        }
    }
    assert!(
        text.contains(&format!("  {}  ", meshchart::releases::DEFAULT_RELEASE))
            && text.lines().filter(|l| l.ends_with("(default)")).count() == 1,
        "{text}"
    );
}

#[test]
fn completions_cover_every_shell_and_the_render_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = meshchart(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains("include-crds"), "{shell}: {script}");
        assert!(script.contains("meshchart"), "{shell}");
    }
}

#[test]
fn an_unknown_shell_is_refused_naming_the_shells() {
    let out = meshchart(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash"));
}

#[test]
fn man_page_is_roff_listing_the_commands() {
    let out = meshchart(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH meshchart 1"), "{page}");
    for command in ["render", "inject", "lint", "completions"] {
        assert!(page.contains(command), "{command}");
    }
}

#[test]
fn the_readmes_install_command_builds_the_optimised_dist_profile() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let install = readme
        .lines()
        .find(|l| l.starts_with("cargo install "))
        .expect("the README says how to install");
    assert!(
        install.contains("--path . --profile dist --locked"),
        "{install}"
    );
    // `cargo install` without --profile builds `release`, the quick one: the README must not
    // show that form as the way to install.
    assert!(
        !readme.contains("\ncargo install --path .\n"),
        "bare install shown"
    );
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let dist = manifest
        .split_once("[profile.dist]\n")
        .expect("a dist profile")
        .1;
    let dist = dist.split_once("\n[").map_or(dist, |(head, _)| head);
    assert!(dist.contains("lto = \"fat\""), "{dist}");
    assert!(dist.contains("codegen-units = 1"), "{dist}");
}
