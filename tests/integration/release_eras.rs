//! Every release meshchart renders, against real Helm's render of upstream's charts at that tag
//! (#35): `tests/reference/releases/renders.tar.xz` holds Helm 3.17.1's renders of every tag
//! (its README says how they were made), four cases each: `crds`, `default` (identity and webhook
//! material given), `ha` (plus upstream's `values-ha.yaml` of the tag) and `overrides` (external
//! webhook secrets, `proxy.await=false`, `cluster-authenticated`, native sidecars, two replicas).
//!
//! For each release of each era with a template set, meshchart renders the same four cases with
//! `--linkerd RELEASE` and both streams are flattened to leaves (`Kind/name` + field path, lists
//! of named items keyed by name). A leaf that differs must be covered by a row of the table
//! "Release eras" of `tests/reference/DEVIATIONS.md` (release, case, resource, field path), and
//! every row must cover some difference, so the table stays true. The keys Helm fills with
//! random values (README "What is random") are compared by shape.
//!
//! `ERA_COUNTS=1 cargo test --test integration release_eras -- --nocapture` prints, per era, the
//! releases served and the largest leaf difference count of any release and case;
//! `ERA_ONLY=edge-24.1` limits the run to releases whose names start so (comma-separated).

use crate::support;

use meshchart::values::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use support::deviations::{read_table, unmatched};

const ARCHIVE: &str = "tests/reference/releases/renders.tar.xz";
const DEVIATIONS_HEADING: &str = "## Release eras (";
/// The render's instant: the pinned issuer certificate in `tests/certs/` is valid then (it
/// expired in November 2024, and meshchart checks it; Helm does not).
const SOURCE_DATE_EPOCH: &str = "1704067200";
/// The first release whose chart accepts a webhook `caBundle` without `externalSecret`; before
/// it the reference renders of `default` and `ha` carry a random caBundle (README).
const CA_BUNDLE_ACCEPTED_FROM: &str = "edge-25.6.4";
const CASES: [&str; 4] = ["crds", "default", "ha", "overrides"];

/// The archive's files, `TAG/FILE` to text, for the served releases only.
fn archive() -> &'static BTreeMap<String, String> {
    static FILES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let served = meshchart::releases::embedded_releases();
        let path = support::repo_root().join(ARCHIVE);
        let packed = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut tar_bytes = Vec::new();
        lzma_rs::xz_decompress(&mut packed.as_slice(), &mut tar_bytes)
            .unwrap_or_else(|e| panic!("{path}: not xz: {e:?}"));
        let mut files = BTreeMap::new();
        let mut tar = tar::Archive::new(tar_bytes.as_slice());
        for entry in tar.entries().expect("a tar stream") {
            let mut entry = entry.expect("a tar entry");
            let name = entry.path().expect("a path").to_string_lossy().into_owned();
            let tag = name.split('/').next().unwrap_or_default();
            if !served.contains(&tag) {
                continue;
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut entry, &mut text)
                .unwrap_or_else(|e| panic!("{path}: {name}: {e}"));
            files.insert(name, text);
        }
        files
    })
}

fn reference(release: &str, file: &str) -> &'static str {
    archive()
        .get(&format!("{release}/{file}"))
        .unwrap_or_else(|| panic!("{ARCHIVE} has no {release}/{file}"))
}

/// Whether `release` comes at or after `other` in the table's order.
fn at_or_after(release: &str, other: &str) -> bool {
    let position = |r: &str| {
        meshchart::releases::RELEASES
            .iter()
            .position(|row| row.release == r)
            .unwrap_or_else(|| panic!("{r} is not in the release table"))
    };
    position(release) >= position(other)
}

/// The arguments the README gives for `case`, for meshchart (`--linkerd RELEASE` added).
fn case_args(release: &str, case: &str, ha_values: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["render", "--linkerd", release, "--namespace", "linkerd"]
        .map(str::to_owned)
        .to_vec();
    args.extend(["--kube-version", "1.32.0"].map(str::to_owned));
    if case == "crds" {
        args.extend(["--crds", "--name", "linkerd-crds"].map(str::to_owned));
        return args;
    }
    args.extend(["--name", "linkerd-control-plane"].map(str::to_owned));
    let file =
        |key: &str, file: &str| ["--set-file".to_owned(), format!("{key}=tests/certs/{file}")];
    args.extend(file("identityTrustAnchorsPEM", "ca.crt"));
    args.extend(file("identity.issuer.tls.crtPEM", "issuer.crt"));
    args.extend(file("identity.issuer.tls.keyPEM", "issuer.key"));
    let webhooks = [
        ("proxyInjector", "proxy-injector"),
        ("profileValidator", "sp-validator"),
        ("policyValidator", "policy-validator"),
    ];
    let ca_bundle = case == "overrides" || at_or_after(release, CA_BUNDLE_ACCEPTED_FROM);
    for (key, name) in webhooks {
        if case == "overrides" {
            args.extend(["--set".to_owned(), format!("{key}.externalSecret=true")]);
        } else {
            args.extend(file(&format!("{key}.crtPEM"), &format!("{name}.crt")));
            args.extend(file(&format!("{key}.keyPEM"), &format!("{name}.key")));
        }
        if ca_bundle {
            args.extend(file(&format!("{key}.caBundle"), &format!("{name}.crt")));
        }
    }
    args.extend(["--set".to_owned(), "heartbeatSchedule=1 2 * * *".to_owned()]);
    match case {
        "ha" => args.extend(["-f".to_owned(), ha_values.to_string_lossy().into_owned()]),
        "overrides" => args.extend([
            "--set".to_owned(),
            "proxy.await=false,proxy.defaultInboundPolicy=cluster-authenticated,\
             proxy.nativeSidecar=true,controllerReplicas=2"
                .to_owned(),
        ]),
        _ => {}
    }
    args
}

fn meshchart_render(args: &[String]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(support::repo_root())
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .expect("run meshchart");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("utf-8 output"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A stream's leaves: `Kind/name` to field path to scalar. linkerd-config's `data.values` is
/// parsed first, so its leaves compare one by one.
fn leaves(stream: &str, label: &str) -> BTreeMap<String, BTreeMap<String, Value>> {
    let docs = meshchart::yaml::parse_documents(stream)
        .unwrap_or_else(|e| panic!("{label}: not valid YAML: {e}"));
    let mut out = BTreeMap::new();
    for mut doc in docs {
        if doc == Value::Null {
            continue;
        }
        let text = |path: &[&str]| {
            doc.get_path(path)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let resource = format!("{}/{}", text(&["kind"]), text(&["metadata", "name"]));
        if resource == "ConfigMap/linkerd-config" {
            let values = doc
                .as_map_mut()
                .and_then(|m| m.get_mut("data"))
                .and_then(Value::as_map_mut)
                .and_then(|d| d.get_mut("values"));
            if let Some(values) = values {
                *values = meshchart::yaml::parse_document(values.as_str().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{label}: linkerd-config data.values: {e}"));
            }
        }
        let mut fields = BTreeMap::new();
        flatten("", &doc, &mut fields);
        assert!(
            out.insert(resource.clone(), fields).is_none(),
            "{label}: {resource} twice"
        );
    }
    out
}

/// The `name`s of a list whose items are all maps with distinct string names.
fn item_names(items: &[Value]) -> Option<Vec<String>> {
    let names: Vec<String> = items
        .iter()
        .map(|i| i.as_map()?.get("name")?.as_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    (!names.is_empty() && unique.len() == names.len()).then_some(names)
}

/// Every leaf of `value` under `path`; a list of named items is keyed by name, with its order
/// as one more leaf (`path.(order)`).
fn flatten(path: &str, value: &Value, out: &mut BTreeMap<String, Value>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Map(map) if !map.is_empty() => {
            for (key, item) in map {
                flatten(&join(key), item, out);
            }
        }
        Value::Seq(items) if !items.is_empty() => match item_names(items) {
            Some(names) => {
                for (name, item) in names.iter().zip(items) {
                    flatten(&format!("{path}[name={name}]"), item, out);
                }
                out.insert(join("(order)"), Value::from(names.join(",").as_str()));
            }
            None => {
                for (index, item) in items.iter().enumerate() {
                    flatten(&format!("{path}[{index}]"), item, out);
                }
            }
        },
        _ => {
            out.insert(path.to_owned(), value.clone());
        }
    }
}

/// Whether Helm's and our values at `path` are both what a random key holds: a base64 PEM
/// certificate (`caBundle`) or a sha256 in hex (`checksum/config`).
fn same_random_shape(path: &str, helm: &Value, ours: &Value) -> bool {
    let (Some(helm), Some(ours)) = (helm.as_str(), ours.as_str()) else {
        return false;
    };
    if path.ends_with(".caBundle") {
        let pem = |s: &str| {
            s.len() > 100
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        };
        pem(helm) && pem(ours)
    } else if path.ends_with("checksum/config") {
        let hex = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
        hex(helm) && hex(ours)
    } else {
        false
    }
}

/// One leaf that differs between Helm's render and ours.
struct Difference {
    release: &'static str,
    case: &'static str,
    resource: String,
    path: String,
    what: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} {}: {}",
            self.release, self.case, self.resource, self.path, self.what
        )
    }
}

fn short(value: &Value) -> String {
    let text = format!("{value:?}");
    match text.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

/// Every leaf difference of one release and case. `random` says whether Helm's render of it has
/// random keys.
fn differences(release: &'static str, case: &'static str, scratch: &Path) -> Vec<Difference> {
    let ha_values = scratch.join(format!("{release}-values-ha.yaml"));
    if case == "ha" {
        std::fs::write(&ha_values, reference(release, "values-ha.yaml")).expect("write values-ha");
    }
    let ours = meshchart_render(&case_args(release, case, &ha_values))
        .unwrap_or_else(|e| panic!("{release} {case}: meshchart failed:\n{e}"));
    let random = !at_or_after(release, CA_BUNDLE_ACCEPTED_FROM) && matches!(case, "default" | "ha");
    let helm = leaves(
        reference(release, &format!("{case}.yaml")),
        &format!("{release}/{case}.yaml"),
    );
    let ours = leaves(&ours, &format!("{release} {case}: our render"));
    let empty = BTreeMap::new();
    let mut found = Vec::new();
    let resources: std::collections::BTreeSet<&String> = helm.keys().chain(ours.keys()).collect();
    for resource in resources {
        let (h, o) = (
            helm.get(resource).unwrap_or(&empty),
            ours.get(resource).unwrap_or(&empty),
        );
        let paths: std::collections::BTreeSet<&String> = h.keys().chain(o.keys()).collect();
        for path in paths {
            let what = match (h.get(path), o.get(path)) {
                (Some(a), Some(b)) if a == b => continue,
                (Some(a), Some(b)) if random && same_random_shape(path, a, b) => continue,
                (Some(a), Some(b)) => format!("Helm {}, ours {}", short(a), short(b)),
                (Some(a), None) => format!("only Helm ({})", short(a)),
                (None, Some(b)) => format!("only ours ({})", short(b)),
                (None, None) => continue,
            };
            found.push(Difference {
                release,
                case,
                resource: resource.clone(),
                path: path.clone(),
                what,
            });
        }
    }
    found
}

/// Every served release's four cases, rendered two at a time.
fn all_differences() -> Vec<(&'static str, &'static str, Vec<Difference>)> {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let jobs: Vec<(&'static str, &'static str)> = meshchart::releases::embedded_releases()
        .into_iter()
        .filter(|release| archive().contains_key(&format!("{release}/default.yaml")))
        .filter(|release| {
            std::env::var("ERA_ONLY")
                .map_or(true, |only| only.split(',').any(|o| release.starts_with(o)))
        })
        .flat_map(|release| CASES.map(|case| (release, case)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(release, case)) = jobs.get(index) else {
                    break;
                };
                let found = differences(release, case, scratch.path());
                results
                    .lock()
                    .expect("no panic while held")
                    .push((index, release, case, found));
            });
        }
    });
    let mut results = results.into_inner().expect("no panic while held");
    results.sort_by_key(|(index, ..)| *index);
    results.into_iter().map(|(_, r, c, f)| (r, c, f)).collect()
}

#[test]
fn every_served_release_renders_what_helm_renders_from_upstreams_charts_at_its_tag() {
    let results = all_differences();
    assert!(
        !results.is_empty(),
        "no served release has reference renders"
    );
    let rows = read_table(
        DEVIATIONS_HEADING,
        &["release", "case", "resource", "field path", "reason"],
    );
    let found: Vec<&Difference> = results.iter().flat_map(|(_, _, f)| f).collect();
    let report = unmatched(DEVIATIONS_HEADING, &rows, &found, |d| {
        vec![
            d.release.to_owned(),
            d.case.to_owned(),
            d.resource.clone(),
            d.path.clone(),
        ]
    });
    if std::env::var_os("ERA_COUNTS").is_some() {
        print_era_counts(&results);
    }
    assert!(report.is_empty(), "{report}");
}

/// Per era: the releases served and compared, and the largest leaf difference counts of any
/// release and case, in all and leaving out the CRD description texts (a DEVIATIONS row).
fn print_era_counts(results: &[(&'static str, &'static str, Vec<Difference>)]) {
    for era in meshchart::releases::ERAS
        .iter()
        .filter(|e| e.templates.is_some())
    {
        let of_era: Vec<_> = results
            .iter()
            .filter(|(r, ..)| meshchart::releases::row(r).is_some_and(|row| row.era == era.name))
            .collect();
        if of_era.is_empty() {
            eprintln!("era {}: no reference renders in {ARCHIVE}", era.name);
            continue;
        }
        let served: std::collections::BTreeSet<&str> = of_era.iter().map(|(r, ..)| *r).collect();
        let largest = |keep: &dyn Fn(&Difference) -> bool| {
            of_era
                .iter()
                .map(|(r, c, f)| (f.iter().filter(|d| keep(d)).count(), *r, *c))
                .max_by_key(|(count, ..)| *count)
                .map(|(count, r, c)| format!("{count} ({r} {c})"))
                .unwrap_or_default()
        };
        eprintln!(
            "era {}: {} releases served and compared ({} .. {}); largest leaf difference count \
             {}; without CRD descriptions {}",
            era.name,
            served.len(),
            era.first,
            era.last,
            largest(&|_| true),
            largest(&|d| !d.path.ends_with(".description")),
        );
    }
}

#[test]
fn the_readme_names_every_era_its_releases_and_whether_it_is_embedded() {
    let readme =
        std::fs::read_to_string(support::repo_root().join("README.md")).expect("README.md");
    let top = &readme[..readme
        .find("## On a fresh machine")
        .expect("the README's first section")];
    for era in meshchart::releases::ERAS {
        let named = format!("`{}`", era.name);
        assert!(
            top.contains(&named),
            "README's releases table does not name era {named}"
        );
        let served: Vec<&str> = meshchart::releases::RELEASES
            .iter()
            .filter(|row| row.era == era.name && meshchart::releases::template_set(row).is_some())
            .map(|row| row.release)
            .collect();
        if let (Some(set), Some(first), Some(last)) = (era.templates, served.first(), served.last())
        {
            let range = if first == last {
                (*first).to_owned()
            } else {
                format!("{first} .. {last}")
            };
            assert!(
                top.contains(&range),
                "README's releases table does not give {range}"
            );
            assert!(
                top.contains(&format!("`templates/{set}`")),
                "README's releases table does not name templates/{set}"
            );
        }
    }
}
