//! Public charts nobody here wrote (`tests/reference/helm-charts/corpus.toml`), each with its
//! default values and two more value sets, rendered by `meshchart render` and compared byte for
//! byte with Helm 3.17.1's recorded `helm template` output (issue #36).
//!
//! Only the keys the corpus lists as random (Helm's randAlphaNum passwords, genCA certificates,
//! their checksums, random test pod names) are masked, on both sides alike. Cases that do not
//! match yet are listed in `NOT-YET.toml` with a reason: an unlisted case that differs fails the
//! test, and so does a listed case that now matches, so the list stays true.
//!
//! The chart archives themselves are not in the repository (they are other projects' charts,
//! made by `tools/record.sh` from their public sources): the test reads them from
//! `MESHCHART_HELM_CHARTS` or `tests/reference/helm-charts/charts/`, checks each against the
//! content digest corpus.toml records, and skips visibly where they are absent (it fails instead when
//! `MESHCHART_REQUIRED_TOOLS` names `helm-charts`).

use crate::support::cli::{command, skip};
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

mod masking;

/// One `meshchart render` to compare: a chart of the corpus with one of its value sets.
struct Case {
    chart_id: String,
    value_set: String,
    release: String,
    namespace: String,
    archive: PathBuf,
    values_file: Option<PathBuf>,
    /// Keys whose value Helm makes up at random: `(source template, key path)`.
    random: Vec<(String, String)>,
}

impl Case {
    fn name(&self) -> String {
        format!("{}/{}", self.chart_id, self.value_set)
    }
}

/// What one case came to.
enum Outcome {
    Matches,
    /// Why not, in a few lines: the head of the diff, or meshchart's error.
    Differs(String),
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/helm-charts")
}

fn charts_dir() -> PathBuf {
    std::env::var_os("MESHCHART_HELM_CHARTS")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| corpus_dir().join("charts"))
}

fn read_toml(path: &Path) -> toml::Table {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{} is not TOML: {e}", path.display()))
}

fn string<'a>(table: &'a toml::Table, key: &str) -> &'a str {
    table
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("corpus.toml: a chart has no string `{key}`: {table:?}"))
}

fn strings(table: &toml::Table, key: &str) -> Vec<String> {
    table
        .get(key)
        .and_then(|v| v.as_array())
        .map(|items| {
            items
                .iter()
                .map(|i| i.as_str().expect("a list of strings").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The digest `tools/record.py` records as `content_sha256`: sha256 over the archive's files,
/// sorted by path, each as `PATH NUL LENGTH NUL BYTES` (the archive's own bytes change with every
/// `helm package`, which stamps the time).
fn content_sha256(path: &Path) -> String {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut files = Vec::new();
    for entry in archive.entries().expect("a tar archive") {
        let mut entry = entry.expect("a tar entry");
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .expect("an entry path")
            .to_string_lossy()
            .into_owned();
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .expect("read an archive entry");
        files.push((name, bytes));
    }
    files.sort();
    let mut digest = Sha256::new();
    for (name, bytes) in files {
        digest.update(name.as_bytes());
        digest.update(format!("\0{}\0", bytes.len()).as_bytes());
        digest.update(&bytes);
    }
    digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every case of the corpus, or `Err(why)` when the chart archives are not on this machine.
fn cases() -> Result<Vec<Case>, String> {
    let corpus = read_toml(&corpus_dir().join("corpus.toml"));
    let charts = charts_dir();
    let mut cases = Vec::new();
    for chart in corpus["chart"].as_array().expect("[[chart]] rows") {
        let chart = chart.as_table().expect("a [[chart]] table");
        let id = string(chart, "id");
        let archive = charts.join(string(chart, "archive"));
        if !archive.is_file() {
            return Err(format!(
                "the corpus's chart archives are not in {} ({} is missing); \
                 tests/reference/helm-charts/tools/record.sh makes them",
                charts.display(),
                archive.display()
            ));
        }
        assert_eq!(
            content_sha256(&archive),
            string(chart, "content_sha256"),
            "{} does not hold the files corpus.toml records for {id}",
            archive.display()
        );
        let random: Vec<(String, String, String)> = strings(chart, "random")
            .iter()
            .map(|entry| {
                let mut parts = entry.splitn(3, '|');
                let mut next = || parts.next().unwrap_or_default().to_owned();
                (next(), next(), next())
            })
            .collect();
        for value_set in strings(chart, "sets") {
            let values_file = (value_set != "default").then(|| {
                corpus_dir()
                    .join("values")
                    .join(id)
                    .join(format!("{value_set}.yaml"))
            });
            cases.push(Case {
                chart_id: id.to_owned(),
                release: string(chart, "release").to_owned(),
                namespace: string(chart, "namespace").to_owned(),
                archive: archive.clone(),
                values_file,
                random: random
                    .iter()
                    .filter(|(set, _, _)| *set == value_set)
                    .map(|(_, source, path)| (source.clone(), path.clone()))
                    .collect(),
                value_set,
            });
        }
    }
    Ok(cases)
}

/// Helm's recorded output, `ID/SET.yaml` to text, from `renders.tar.xz`.
fn helm_renders() -> BTreeMap<String, String> {
    let path = corpus_dir().join("renders.tar.xz");
    let packed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut tar_bytes = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut tar_bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut archive = tar::Archive::new(tar_bytes.as_slice());
    let mut renders = BTreeMap::new();
    for entry in archive.entries().expect("a tar archive") {
        let mut entry = entry.expect("a tar entry");
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .expect("an entry path")
            .to_string_lossy()
            .into_owned();
        let mut text = String::new();
        entry.read_to_string(&mut text).expect("UTF-8 render");
        renders.insert(name, text);
    }
    renders
}

/// `NOT-YET.toml`: `"ID/SET"` (or `"ID"` for all of a chart's sets) to the reason it differs.
fn not_yet() -> BTreeMap<String, String> {
    let table = read_toml(&corpus_dir().join("NOT-YET.toml"));
    table
        .get("not-yet")
        .and_then(|t| t.as_table())
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn run_case(case: &Case, expected: &str) -> Outcome {
    let archive = case.archive.to_string_lossy().into_owned();
    let mut args = vec!["render", &case.release, &archive, "-n", &case.namespace];
    let values = case
        .values_file
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    if let Some(values) = &values {
        args.extend(["-f", values.as_str()]);
    }
    let out = command(&args).output().expect("run meshchart");
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let head: Vec<&str> = stderr.lines().take(4).collect();
        return Outcome::Differs(format!(
            "meshchart exits {:?}: {}",
            out.status.code(),
            head.join("\n    ")
        ));
    }
    let actual = String::from_utf8_lossy(&out.stdout);
    let expected = masking::mask(expected, &case.random);
    let actual = masking::mask(&actual, &case.random);
    if expected == actual {
        return Outcome::Matches;
    }
    let diff = similar::TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .context_radius(2)
        .header("helm", "meshchart")
        .to_string();
    let head: Vec<&str> = diff.lines().take(16).collect();
    Outcome::Differs(head.join("\n    "))
}

#[test]
fn every_corpus_chart_renders_as_helm_does_or_is_listed_as_not_yet() {
    let test = "every_corpus_chart_renders_as_helm_does_or_is_listed_as_not_yet";
    let cases = match cases() {
        Ok(cases) => cases,
        Err(why) => return skip(test, "helm-charts", &why),
    };
    let renders = helm_renders();
    let not_yet = not_yet();
    for listed in not_yet.keys() {
        assert!(
            cases
                .iter()
                .any(|c| c.chart_id == *listed || c.name() == *listed),
            "NOT-YET.toml lists {listed}, which is no case of the corpus"
        );
    }
    let outcomes = Mutex::new(Vec::new());
    let next = Mutex::new(cases.iter());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let Some(case) = next.lock().unwrap().next() else {
                    break;
                };
                let key = format!("{}.yaml", case.name());
                let expected = renders
                    .get(&key)
                    .unwrap_or_else(|| panic!("renders.tar.xz has no {key}"));
                let outcome = run_case(case, expected);
                outcomes
                    .lock()
                    .unwrap()
                    .push((case.name(), case.chart_id.clone(), outcome));
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut problems = Vec::new();
    let (mut matching, mut waiting) = (0, 0);
    for (name, chart_id, outcome) in &outcomes {
        let listed = not_yet.contains_key(name) || not_yet.contains_key(chart_id);
        match (outcome, listed) {
            (Outcome::Matches, false) => matching += 1,
            (Outcome::Differs(_), true) => waiting += 1,
            (Outcome::Matches, true) => problems.push(format!(
                "{name} now renders exactly as Helm does: take it out of NOT-YET.toml \
                 (for a whole chart listed, list its other sets one by one)"
            )),
            (Outcome::Differs(why), false) => {
                problems.push(format!("{name} differs from Helm's output:\n    {why}"))
            }
        }
    }
    eprintln!(
        "helm chart corpus: {matching} of {} cases match Helm byte for byte; {waiting} listed as not yet",
        outcomes.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
