//! Every flag of Helm 3.17.1's `helm template`, `helm lint` and `helm package` (their global
//! flags too) is one meshchart's `render`, `lint` and `package` take, and one the README's table
//! says what meshchart does with (#37). The list is `tests/reference/helm-3.17.1-flags.txt`,
//! made from `helm CMD --help`.

use crate::support;

use support::cli::meshchart;

/// `(command, short, long, value)` for each flag of the list: `value` is `None` for a switch,
/// `Some(true)` when the flag takes a value, `Some(false)` when the value is optional (`--dry-run`).
fn helm_flags() -> Vec<(String, Option<String>, String, Option<bool>)> {
    let text = std::fs::read_to_string("tests/reference/helm-3.17.1-flags.txt").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let words: Vec<&str> = line.split(' ').collect();
            let (short, long) = match words[1].split_once('/') {
                Some((short, long)) => (Some(short.to_owned()), long.to_owned()),
                None => (None, words[1].to_owned()),
            };
            let value = match words.get(2) {
                Some(&"value") => Some(true),
                Some(&"optional") => Some(false),
                _ => None,
            };
            (words[0].to_owned(), short, long, value)
        })
        .collect()
}

/// meshchart's command for Helm's.
fn ours(helm_command: &str) -> &'static str {
    match helm_command {
        "template" => "render",
        "lint" => "lint",
        "package" => "package",
        other => panic!("no meshchart command for helm {other}"),
    }
}

#[test]
fn the_list_holds_every_command_and_its_global_flags() {
    let flags = helm_flags();
    for command in ["template", "lint", "package"] {
        let of = |long: &str| flags.iter().any(|(c, _, l, _)| c == command && l == long);
        assert!(of("--kube-context"), "{command}: global flags");
    }
    assert!(flags.len() > 100, "{}", flags.len());
}

#[test]
fn meshchart_takes_every_flag_of_helm_template_lint_and_package() {
    let mut refused = Vec::new();
    for (command, short, long, value) in helm_flags() {
        for name in short.iter().chain(std::iter::once(&long)) {
            // clap reads the flag (and its value) before it meets --help, which then prints the
            // help and exits 0; a flag it does not know is an error (exit 2).
            let mut args = vec![ours(&command), name.as_str()];
            if value == Some(true) {
                args.push("x");
            }
            args.push("--help");
            let out = meshchart(&args);
            if out.status.code() != Some(0) {
                refused.push(format!(
                    "{} {}: {}",
                    ours(&command),
                    args[1..].join(" "),
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .next()
                        .unwrap_or_default()
                ));
            }
        }
    }
    assert!(refused.is_empty(), "{refused:#?}");
}

#[test]
fn the_readmes_table_says_what_meshchart_does_with_every_helm_flag() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("## Helm's flags in meshchart")
        .expect("the README's section");
    let section = &readme[start..];
    let section = &section[..section[3..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 3)];
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| ")).collect();
    let mut missing = Vec::new();
    for (command, short, long, _) in helm_flags() {
        let named = |name: &str| {
            rows.iter().any(|row| {
                let cell = row.split(" | ").next().unwrap_or_default();
                cell.match_indices(name).any(|(at, _)| {
                    let after = cell[at + name.len()..].chars().next();
                    !matches!(after, Some(c) if c.is_ascii_alphanumeric() || c == '-')
                })
            })
        };
        let listed = named(&long)
            || short
                .as_deref()
                .is_some_and(|s| named(&format!("{s}/{long}")));
        if !listed {
            missing.push(format!("{command} {long}"));
        }
    }
    assert!(
        missing.is_empty(),
        "flags the README's table lacks: {missing:#?}"
    );
}
