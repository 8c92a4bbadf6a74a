//! Names that break the framing, symlinked expectations, early-closed pipes, deep folders, a missing TMPDIR.

use super::*;

// --- Names that break the framing ------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_template_file_name_with_a_newline_is_refused_by_name() {
    let chart = chart_with_template(
        "newline-name",
        "cm.yaml\nevil: injected",
        "kind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let out = run(&["render", "--chart", &chart]);
    assert_refused(
        &out,
        1,
        &[
            "\"templates/cm.yaml\\nevil: injected\"",
            "control character",
        ],
    );
}

// --- Leftovers -------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn golden_update_replaces_a_symlinked_expectation_instead_of_writing_through_it() {
    let chart = chart_with_template(
        "golden-symlink",
        "cm.yaml",
        "kind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let chart = Path::new(&chart);
    let cases = chart.parent().unwrap().join("cases");
    let case = cases.join("basic");
    std::fs::create_dir_all(&case).unwrap();
    let outside = chart.parent().unwrap().join("outside.yaml");
    write(&outside, b"precious\n");
    std::os::unix::fs::symlink(&outside, case.join("expected.yaml")).unwrap();
    let out = run(&[
        "golden",
        "--chart",
        chart.to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
        "--update",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    let expected = case.join("expected.yaml");
    assert!(!std::fs::symlink_metadata(&expected).unwrap().is_symlink());
    assert!(std::fs::read_to_string(&expected)
        .unwrap()
        .contains("kind: ConfigMap"));
}

// --- A reader that stops early ----------------------------------------------------------------

#[test]
fn inject_into_a_pipe_closed_early_says_how_far_it_got_and_fails() {
    let stream: String = (0..3000)
        .map(|i| {
            format!(
                "---\n{}",
                POD.replace("name: web\n", &format!("name: web-{i}\n"))
            )
        })
        .collect();
    let input = write(
        &scratch_dir("closed-pipe").join("big.yaml"),
        stream.as_bytes(),
    );
    let mut child = command(&["inject", &input, "-f", INJECT_VALUES])
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut head = [0u8; 100];
    std::io::Read::read_exact(&mut stdout, &mut head).expect("the first bytes");
    drop(stdout);
    let out = finish(child, "inject | head -c 100");
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("broken pipe") && stderr.contains("of 3000 document(s) were written whole"),
        "{stderr}"
    );
}

// --- Deep folders ------------------------------------------------------------------------------

/// Makes `levels` nested folders named `d` under `root` and returns the deepest.
fn nested_folders(root: &Path, levels: usize) -> PathBuf {
    let mut deepest = root.to_path_buf();
    for _ in 0..levels {
        deepest.push("d");
    }
    std::fs::create_dir_all(&deepest).unwrap();
    deepest
}

/// Walking a folder resolved each folder's real path anew and compared it with every folder
/// before it, cubic in the depth (a file 1,000 levels down took 14 s). The run must now finish
/// well inside the hang guard.
#[test]
fn a_file_fifteen_hundred_folders_deep_is_found_by_render_and_inject() {
    let chart = scratch_dir("deep-chart");
    write(
        &chart.join("Chart.yaml"),
        b"apiVersion: v2\nname: deep\nversion: 0.1.0\n",
    );
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    write(
        &chart.join("templates/cm.yaml"),
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n",
    );
    write(
        &nested_folders(&chart.join("files"), 1500).join("f.txt"),
        b"x",
    );
    let render = run(&["render", "--chart", chart.to_str().unwrap()]);
    assert!(render.status.success(), "{}", text(&render.stderr));
    assert!(text(&render.stdout).contains("name: deep"));

    let manifests = scratch_dir("deep-inject");
    write(
        &nested_folders(&manifests, 1500).join("pod.yaml"),
        POD.as_bytes(),
    );
    let inject = run(&["inject", manifests.to_str().unwrap(), "-f", INJECT_VALUES]);
    assert!(inject.status.success(), "{}", text(&inject.stderr));
    assert!(text(&inject.stderr).contains("pod \"web\" injected"));
}

// --- The temporary folder ------------------------------------------------------------------------

#[test]
fn inject_with_a_missing_tmpdir_is_an_error_naming_tmpdir_and_its_path() {
    let missing = scratch_dir("missing-tmpdir").join("not-there");
    let input = write(
        &scratch_dir("tmpdir-input").join("pod.yaml"),
        POD.as_bytes(),
    );
    let out = run_with_env(
        &["inject", &input, "-f", INJECT_VALUES],
        &[("TMPDIR", missing.to_str().unwrap())],
    );
    assert_refused(
        &out,
        1,
        &[
            &format!("$TMPDIR ({})", missing.display()),
            "temporary file",
        ],
    );
}
