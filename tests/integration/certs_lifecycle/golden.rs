//! The golden cases of `tests/golden/certs/`: each case's commands, output and files, with random key bytes written as where they went.

use super::*;

/// Writes what random keys made as where it went (see the module doc).
struct Redactions(Vec<(String, String)>);

impl Redactions {
    /// From the files before the commands and after each of them (`states`, in order): what
    /// first appears after command N is written as `[... of PATH@N]`.
    fn new(before: &BTreeMap<String, Vec<u8>>, states: &[BTreeMap<String, Vec<u8>>]) -> Redactions {
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut seen_texts: std::collections::BTreeSet<String> = before
            .values()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        let mut seen_certs: std::collections::BTreeSet<Vec<u8>> = seen_texts
            .iter()
            .flat_map(|t| pem_certificates(t))
            .collect();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (step, after) in states.iter().enumerate() {
            // Certificate files name what they hold before the renders that carry it.
            let mut order: Vec<(&String, &Vec<u8>)> = after.iter().collect();
            order.sort_by_key(|(name, _)| {
                (!(name.ends_with(".crt") || name.ends_with(".key")), *name)
            });
            for (name, bytes) in order {
                let label = format!("{name}@{}", step + 1);
                let text = String::from_utf8_lossy(bytes).into_owned();
                if seen_texts.insert(text.clone()) {
                    pairs.push((b64.encode(text.as_bytes()), format!("[base64 of {label}]")));
                    pairs.push((b64.encode(text.trim_end()), format!("[base64 of {label}]")));
                    // The chart stamps the trust bundle's digest on the identity pod template.
                    for variant in [text.as_str(), text.trim_end()] {
                        let hex: String = Sha256::digest(variant.as_bytes())
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect();
                        pairs.push((hex, format!("[sha256 of {label}]")));
                    }
                }
                for der in pem_certificates(&text) {
                    if !seen_certs.insert(der.clone()) {
                        continue;
                    }
                    pairs.push((fingerprint(&der), format!("[fingerprint of {label}]")));
                    for line in b64.encode(&der).as_bytes().chunks(64) {
                        pairs.push((
                            String::from_utf8(line.to_vec()).unwrap(),
                            format!("[line of {label}]"),
                        ));
                    }
                }
            }
        }
        // Longest first: a PEM line is part of the file's text.
        pairs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        pairs.retain(|(from, _)| from.len() >= 16);
        Redactions(pairs)
    }

    fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (from, to) in &self.0 {
            out = out.replace(from, to);
        }
        out
    }
}

/// Runs one case; returns what `expected.txt` must hold.
fn produce(case: &Path) -> String {
    let work = scratch_dir(&format!(
        "certs-golden-{}",
        case.file_name().unwrap().to_string_lossy()
    ));
    let setup = std::fs::read_to_string(case.join("setup")).unwrap_or_default();
    for line in setup.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        match parts.as_slice() {
            ["copy", from, to] => copy_tree(&case.join(from), &work.join(to)),
            ["mkdir", dir] => std::fs::create_dir_all(work.join(dir)).unwrap(),
            _ => panic!("{}: bad setup line {line:?}", case.display()),
        }
    }
    let before = files(&work);
    let commands = std::fs::read_to_string(case.join("commands")).unwrap();
    let mut runs = Vec::new();
    let mut states = Vec::new();
    for line in commands.lines().filter(|l| !l.trim().is_empty()) {
        let mut args: Vec<&str> = line.split_whitespace().collect();
        // `SOURCE_DATE_EPOCH=N command ...` runs that command at another instant.
        let at = match args
            .first()
            .and_then(|a| a.strip_prefix("SOURCE_DATE_EPOCH="))
        {
            Some(at) => {
                args.remove(0);
                at
            }
            None => GOLDEN_EPOCH,
        };
        let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .args(&args)
            .current_dir(&work)
            .env("SOURCE_DATE_EPOCH", at)
            .output()
            .unwrap();
        let shown = match at {
            GOLDEN_EPOCH => format!("meshchart {}", args.join(" ")),
            at => format!("SOURCE_DATE_EPOCH={at} meshchart {}", args.join(" ")),
        };
        runs.push((shown, out));
        states.push(files(&work));
    }
    let after = files(&work);
    let redactions = Redactions::new(&before, &states);
    let mut text = String::new();
    for (line, out) in runs {
        text.push_str(&format!(
            "$ {line}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status.code().unwrap_or(-1),
            redactions.apply(&String::from_utf8_lossy(&out.stdout)),
            redactions.apply(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    text.push_str("--- files\n");
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let state = match (before.get(name), after.get(name)) {
            (Some(a), Some(b)) if a == b => "unchanged",
            (Some(_), Some(_)) => "changed",
            (None, Some(_)) => "new",
            _ => "removed",
        };
        text.push_str(&format!("{name}  {state}\n"));
    }
    let _ = std::fs::remove_dir_all(&work);
    text
}

#[test]
fn certs_golden_cases_match() {
    let root = repo().join("tests/golden/certs");
    let update = meshchart::golden::update_requested();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("commands").is_file())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 8,
        "found {} cases under {}",
        cases.len(),
        root.display()
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            readme.contains(&format!("`{name}`")),
            "tests/golden/certs/README.md has no line for case {name}"
        );
        let actual = produce(&case);
        let expected_path = case.join("expected.txt");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
        } else {
            failures.push(format!(
                "golden case {name} differs:\n{}",
                similar::TextDiff::from_lines(&expected, &actual)
                    .unified_diff()
                    .header(&expected_path.display().to_string(), "actual")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is intended: UPDATE_GOLDEN=1 cargo test --test integration certs_lifecycle)",
        failures.join("\n")
    );
}
