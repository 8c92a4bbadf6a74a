//! `meshchart package` as a user runs it: Helm's layout, reproducible bytes, atomic writes, and
//! archives that render like their folders and that Helm itself reads.

use crate::support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::cli::{command, helm_or_skip, legacy_command, run, scratch_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn meshchart_in(dir: &Path, args: &[&str]) -> Output {
    run(legacy_command(args)
        .current_dir(dir)
        .env_remove("SOURCE_DATE_EPOCH"))
}

fn meshchart(args: &[&str]) -> Output {
    meshchart_in(Path::new(ROOT), args)
}

fn fixture(name: &str) -> String {
    format!("{ROOT}/tests/fixtures/{name}")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Packages `chart` (None: the embedded chart) into `out`; returns (archive path, printed sha256).
fn package(chart: Option<&str>, out: &Path, extra: &[&str]) -> (PathBuf, String) {
    let mut args = vec!["package", "-d", out.to_str().unwrap()];
    if let Some(chart) = chart {
        args.extend(["--chart", chart]);
    }
    args.extend(extra);
    let stdout = ok(&meshchart(&args));
    let (sha, path) = stdout
        .trim_end()
        .split_once("  ")
        .expect("sha256sum format");
    (PathBuf::from(path), sha.to_owned())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

struct Entry {
    path: String,
    mode: u32,
    uid: u64,
    gid: u64,
    mtime: u64,
    ustar: bool,
    data: Vec<u8>,
}

fn entries(archive: &Path) -> Vec<Entry> {
    let file = std::fs::File::open(archive).unwrap();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    tar.entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let header = e.header().clone();
            let mut data = Vec::new();
            e.read_to_end(&mut data).unwrap();
            Entry {
                path: e.path().unwrap().to_string_lossy().into_owned(),
                mode: header.mode().unwrap(),
                uid: header.uid().unwrap(),
                gid: header.gid().unwrap(),
                mtime: header.mtime().unwrap(),
                ustar: header.as_ustar().is_some(),
                data,
            }
        })
        .collect()
}

fn names(archive: &Path) -> Vec<String> {
    entries(archive).into_iter().map(|e| e.path).collect()
}

#[test]
fn the_archive_has_helms_layout_and_entry_order() {
    let out = scratch_dir("layout");
    let (archive, _) = package(Some(&fixture("package-demo")), &out, &[]);
    assert_eq!(archive, out.join("package-demo-0.3.0.tgz"));
    assert_eq!(
        names(&archive),
        [
            "package-demo/Chart.yaml",
            "package-demo/values.yaml",
            "package-demo/templates/_helpers.tpl",
            "package-demo/templates/configmap.yaml",
            "package-demo/templates/service.yaml",
            "package-demo/.helmignore",
            "package-demo/README.md",
            "package-demo/docs/usage.md",
            "package-demo/values/values-ha.yaml",
        ]
    );
}

#[test]
fn helmignore_leaves_matching_files_out() {
    let out = scratch_dir("ignored");
    let (archive, _) = package(Some(&fixture("package-demo")), &out, &[]);
    let names = names(&archive);
    assert!(!names.iter().any(|n| n.contains("scratch")), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn every_header_is_fixed_ustar_0644_root_owned() {
    let out = scratch_dir("headers");
    let (archive, _) = package(Some(&fixture("package-demo")), &out, &[]);
    for e in entries(&archive) {
        assert!(e.ustar, "{}", e.path);
        assert_eq!((e.mode, e.uid, e.gid), (0o644, 0, 0), "{}", e.path);
        assert_eq!(e.mtime, 315_532_800, "{}: 1980-01-01 by default", e.path);
    }
}

#[test]
fn source_date_epoch_sets_every_entry_mtime() {
    let out = scratch_dir("epoch");
    let stdout = ok(&run(legacy_command(&[
        "package",
        "--chart",
        &fixture("package-demo"),
        "-d",
    ])
    .arg(&out)
    .env("SOURCE_DATE_EPOCH", "1700000000")));
    let archive = PathBuf::from(stdout.trim_end().split_once("  ").unwrap().1);
    assert!(entries(&archive).iter().all(|e| e.mtime == 1_700_000_000));
}

/// What packaging adds to a Chart.yaml without annotations: the template language, at the end.
const LANGUAGE_ANNOTATION: &str = "annotations:\n  meshchart.io/template-language: jinja\n";

#[test]
fn chart_yaml_and_values_are_copied_byte_for_byte_but_for_the_template_language() {
    let out = scratch_dir("bytes");
    let (archive, _) = package(Some(&fixture("package-demo")), &out, &[]);
    let entries = entries(&archive);
    let get = |name: &str| {
        entries
            .iter()
            .find(|e| e.path == format!("package-demo/{name}"))
            .unwrap()
            .data
            .clone()
    };
    let dir = PathBuf::from(fixture("package-demo"));
    let mut chart_yaml = std::fs::read(dir.join("Chart.yaml")).unwrap();
    chart_yaml.extend_from_slice(LANGUAGE_ANNOTATION.as_bytes());
    assert_eq!(get("Chart.yaml"), chart_yaml);
    assert_eq!(
        get("values.yaml"),
        std::fs::read(dir.join("values/values.yaml")).unwrap()
    );
}

#[test]
fn version_flags_rewrite_only_their_own_lines() {
    let out = scratch_dir("version");
    let (archive, _) = package(
        Some(&fixture("package-demo")),
        &out,
        &["--version", "1.2.3-rc.1", "--app-version", "2.10"],
    );
    assert_eq!(archive, out.join("package-demo-1.2.3-rc.1.tgz"));
    let chart_yaml = entries(&archive)
        .into_iter()
        .find(|e| e.path == "package-demo/Chart.yaml")
        .unwrap()
        .data;
    let original = std::fs::read_to_string(fixture("package-demo/Chart.yaml")).unwrap();
    let expected = original
        .replace(
            "version: 0.3.0 # bumped by hand",
            "version: 1.2.3-rc.1 # bumped by hand",
        )
        .replace("appVersion: \"1.0\"", "appVersion: \"2.10\"")
        + LANGUAGE_ANNOTATION;
    assert_eq!(String::from_utf8(chart_yaml).unwrap(), expected);
}

#[test]
fn a_version_that_is_not_semver_2_is_refused_and_nothing_is_written() {
    let out = scratch_dir("bad-version");
    let result = meshchart(&[
        "package",
        "--chart",
        &fixture("package-demo"),
        "-d",
        out.to_str().unwrap(),
        "--version",
        "v1.2",
    ]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("--version \"v1.2\": not a SemVer 2 version"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn an_invalid_chart_yaml_field_is_named_in_the_error() {
    let chart = scratch_dir("package-bad-chart");
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: x\nversion: 1.0\n",
    )
    .unwrap();
    let out = scratch_dir("bad-chart-out");
    let result = meshchart(&[
        "package",
        "--chart",
        chart.to_str().unwrap(),
        "-d",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("Chart.yaml: version: must be a string"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn a_failed_write_leaves_no_partial_file() {
    let out = scratch_dir("blocked");
    // A folder where the archive should go makes the final rename fail.
    std::fs::create_dir_all(out.join("package-demo-0.3.0.tgz/occupied")).unwrap();
    let result = meshchart(&[
        "package",
        "--chart",
        &fixture("package-demo"),
        "-d",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["package-demo-0.3.0.tgz"]);
}

#[test]
fn packaging_twice_gives_the_same_sha256() {
    let (a, sha_a) = package(Some(&fixture("package-demo")), &scratch_dir("twice-a"), &[]);
    let (b, sha_b) = package(Some(&fixture("package-demo")), &scratch_dir("twice-b"), &[]);
    assert_eq!(sha_a, sha_b);
    assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
}

#[test]
fn two_copies_of_a_chart_give_the_same_sha256() {
    let first = scratch_dir("checkout-1").join("chart");
    let second = scratch_dir("checkout-2").join("elsewhere/chart");
    copy_dir(Path::new(&fixture("package-demo")), &first);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    copy_dir(Path::new(&fixture("package-demo")), &second);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let file = second.join("templates/service.yaml");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (_, sha_a) = package(
        Some(first.to_str().unwrap()),
        &scratch_dir("checkout-1-out"),
        &[],
    );
    let (_, sha_b) = package(
        Some(second.to_str().unwrap()),
        &scratch_dir("checkout-2-out"),
        &[],
    );
    assert_eq!(
        sha_a, sha_b,
        "mtimes, modes and paths must not reach the archive"
    );
}

#[test]
fn the_printed_sha256_is_the_archives() {
    use sha2::Digest;
    let (archive, sha) = package(Some(&fixture("package-demo")), &scratch_dir("sha"), &[]);
    let digest = sha2::Sha256::digest(std::fs::read(archive).unwrap());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(sha, hex);
}

/// The files of the default line's control-plane chart in the repository, as the binary embeds
/// them: `templates/<release>/<chart>/` holds Chart.yaml, README.md and the templates,
/// `values/<release>/<chart>/` the values files and the schema.
fn control_plane_chart_files() -> Vec<String> {
    let mut files = Vec::new();
    for top in ["templates", "values"] {
        let dir = Path::new(ROOT)
            .join(top)
            .join("edge-21.4.4/linkerd-control-plane");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            files.push(match (top, name.as_str()) {
                ("templates", "Chart.yaml" | "README.md") => name,
                ("templates", _) => format!("templates/{name}"),
                (_, "values.schema.json") => name,
                // The packaged chart keeps its defaults at the root, as Helm's charts do.
                (_, "values.yaml") => name,
                _ => format!("values/{name}"),
            });
        }
    }
    files.sort();
    files
}

#[test]
fn the_embedded_chart_archive_holds_exactly_its_release_line_folders() {
    let (archive, _) = package(None, &scratch_dir("embedded"), &[]);
    let mut names: Vec<String> = names(&archive)
        .iter()
        .map(|name| {
            name.strip_prefix("linkerd-control-plane/")
                .unwrap_or_else(|| panic!("{name} is outside the chart folder"))
                .to_owned()
        })
        .collect();
    names.sort();
    assert_eq!(names, control_plane_chart_files());
}

#[test]
fn a_file_dropped_in_the_repository_root_is_no_chart_of_ours() {
    // The README's first command writes control-plane.yaml there; the root is not a chart.
    let out = meshchart(&[
        "package",
        "--chart",
        ROOT,
        "-d",
        &scratch_dir("root").to_string_lossy(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Chart.yaml is missing"), "{stderr}");
}

#[test]
fn rendering_an_archive_gives_the_same_bytes_as_its_folder() {
    let (archive, _) = package(Some(&fixture("package-demo")), &scratch_dir("render"), &[]);
    let overlay = fixture("package-demo/values/values-ha.yaml");
    for flags in [vec![], vec!["-f", &overlay, "--set", "proxy.await=false"]] {
        let render = |chart: &str| {
            let mut args = vec!["render", "--chart", chart];
            args.extend(&flags);
            ok(&meshchart(&args))
        };
        let folder = render(&fixture("package-demo"));
        assert!(folder.contains("kind: ConfigMap"), "{folder}");
        assert_eq!(render(archive.to_str().unwrap()), folder);
    }
}

/// The pinned certificate set and a fixed schedule, so both renders are reproducible.
fn required_values() -> Vec<String> {
    vec![
        "--certs-dir".into(),
        format!("{ROOT}/tests/certs"),
        "--set".into(),
        "heartbeatSchedule=1 2 3 4 5".into(),
    ]
}

#[test]
fn rendering_the_packaged_control_plane_equals_the_embedded_render() {
    let (archive, _) = package(None, &scratch_dir("control-plane"), &[]);
    let required = required_values();
    let render = |chart: Option<&str>, extra: &[&str]| {
        // The packaged chart is the edge-21.4.4 line's, for Kubernetes 1.24 at the newest.
        let mut args = vec!["render", "--kube-version", "1.24.0"];
        match chart {
            Some(chart) => args.extend(["--chart", chart]),
            None => args.extend(["--linkerd", "edge-21.4.4"]),
        }
        args.extend(required.iter().map(String::as_str));
        args.extend(extra);
        // The pinned set's issuer is valid at the golden instant, which the render checks.
        ok(&run(command(&args).env("SOURCE_DATE_EPOCH", "1700000000")))
    };
    for extra in [
        &[][..],
        &[
            "-f",
            "values/edge-21.4.4/linkerd-control-plane/values-ha.yaml",
        ][..],
    ] {
        let embedded = render(None, extra);
        assert!(embedded.contains("kind: Deployment"), "{embedded}");
        assert_eq!(render(Some(archive.to_str().unwrap()), extra), embedded);
    }
}

#[test]
fn helm_reads_our_chart_yaml_and_default_values() {
    let Some(helm) = helm_or_skip("helm_reads_our_chart_yaml_and_default_values") else {
        return;
    };
    for chart in [Some(fixture("package-demo")), None] {
        let out_dir = scratch_dir("helm");
        let (archive, _) = package(chart.as_deref(), &out_dir, &[]);
        let show = |what: &str| {
            let out = Command::new(&helm)
                .args(["show", what])
                .arg(&archive)
                .output()
                .expect("run helm");
            assert!(
                out.status.success(),
                "helm show {what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let entries = entries(&archive);
        let stored = |name: &str| {
            let data = &entries
                .iter()
                .find(|e| e.path.ends_with(&format!("/{name}")))
                .unwrap()
                .data;
            String::from_utf8(data.clone()).unwrap()
        };
        // Helm re-serialises Chart.yaml (keys sorted, comments dropped): compare the fields.
        let ours = meshchart::yaml::parse_document(&stored("Chart.yaml")).unwrap();
        let helms = meshchart::yaml::parse_document(&show("chart")).unwrap();
        assert_eq!(helms, ours);
        // Values are printed as stored.
        assert_eq!(show("values").trim_end(), stored("values.yaml").trim_end());
    }
}

#[test]
fn the_template_language_goes_first_under_existing_annotations() {
    let text = "name: x\nannotations:\n    owner: me # hand-written\nversion: 1.0.0\n";
    assert_eq!(
        meshchart::package::with_template_language(text).unwrap(),
        "name: x\nannotations:\n    meshchart.io/template-language: jinja\n    owner: me # hand-written\nversion: 1.0.0\n"
    );
    assert_eq!(
        meshchart::package::with_template_language(
            &meshchart::package::with_template_language(text).unwrap()
        )
        .unwrap(),
        meshchart::package::with_template_language(text).unwrap(),
        "adding it twice changes nothing"
    );
}

#[test]
fn golden_cases_are_left_out_of_a_package_unless_asked_for() {
    let chart = scratch_dir("golden-left-out");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::create_dir_all(chart.join("golden/default")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: g\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/cm.yaml"), "kind: ConfigMap\n").unwrap();
    std::fs::write(chart.join("golden/default/expected.yaml"), "x\n").unwrap();
    let out = scratch_dir("golden-left-out-out");
    let (archive, _) = package(Some(chart.to_str().unwrap()), &out, &[]);
    let paths: Vec<String> = entries(&archive).into_iter().map(|e| e.path).collect();
    assert!(!paths.iter().any(|p| p.contains("golden")), "{paths:?}");
    let kept = scratch_dir("golden-kept-out");
    let (archive, _) = package(Some(chart.to_str().unwrap()), &kept, &["--include-golden"]);
    let paths: Vec<String> = entries(&archive).into_iter().map(|e| e.path).collect();
    assert!(
        paths.contains(&"g/golden/default/expected.yaml".to_owned()),
        "{paths:?}"
    );
}
