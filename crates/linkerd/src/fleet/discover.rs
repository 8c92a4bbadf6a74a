//! Finding a fleet's clusters: one per `NAME.yaml` or `NAME/` folder, with the notes and errors
//! about entries that are neither. Separate because it only reads the folder's listing, before
//! anything renders.

use super::{fleet_error, Cluster, CLUSTER_CERTS, CLUSTER_VALUES};
use crate::error::Error;
use camino::Utf8Path;

/// The clusters of the fleet folder `dir`, sorted by name (see the module for what counts);
/// warnings about entries passed by are left out.
pub fn discover(dir: &Utf8Path) -> Result<Vec<Cluster>, Error> {
    discover_noting(dir, &mut Vec::new())
}

/// The cluster name of a file named `file_name`: its stem when it ends in `.yaml` or `.yml`,
/// in any case.
fn yaml_stem(file_name: &str) -> Option<&str> {
    let lower = file_name.to_ascii_lowercase();
    [".yaml", ".yml"]
        .iter()
        .find(|suffix| lower.ends_with(*suffix) && lower.len() > suffix.len())
        // The suffix is ASCII, so its length in bytes is a character boundary.
        .map(|suffix| &file_name[..file_name.len() - suffix.len()])
}

/// [`discover`], adding a warning to `notes` for each entry that is not a cluster. A folder
/// without `values.yaml`, two clusters with one name, a name with a control character, or a
/// special file where a cluster's values would be read is an error naming it.
pub fn discover_noting(dir: &Utf8Path, notes: &mut Vec<String>) -> Result<Vec<Cluster>, Error> {
    let mut clusters = Vec::new();
    let mut special = Vec::new();
    let mut skipped = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(Error::io(dir))? {
        let entry = entry.map_err(Error::io(dir))?;
        let Ok(file_name) = entry.file_name().into_string() else {
            skipped.push(format!(
                "{:?} (its name is not UTF-8)",
                entry.file_name().to_string_lossy()
            ));
            continue;
        };
        let path = dir.join(&file_name);
        if file_name.starts_with('.') {
            // Hidden entries are not clusters; one that would be, had it no leading dot, is
            // named, so a `.prod.yaml` or a `...yaml` is not dropped without a word.
            let meta = std::fs::metadata(&path);
            if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                if path.join(CLUSTER_VALUES).is_file() {
                    skipped.push(format!("{file_name}/ (hidden: its name starts with a dot)"));
                }
            } else if yaml_stem(&file_name).is_some() {
                skipped.push(format!("{file_name} (hidden: its name starts with a dot)"));
            }
            continue;
        }
        // Links are followed, as a render's -f follows them.
        let Ok(meta) = std::fs::metadata(&path) else {
            skipped.push(format!("{file_name} (a link to nothing)"));
            continue;
        };
        let stem = yaml_stem(&file_name);
        let name = if meta.is_dir() {
            Some(file_name.as_str())
        } else {
            stem
        };
        if let Some(name) = name {
            if name.chars().any(char::is_control) {
                return Err(fleet_error(
                    dir,
                    format!("{file_name:?}: a cluster name may not hold control characters"),
                ));
            }
        }
        if meta.is_dir() {
            let values = path.join(CLUSTER_VALUES);
            match std::fs::metadata(&values) {
                Ok(m) if m.is_file() => {}
                Ok(_) => special.push(values.clone()),
                Err(_) => {
                    return Err(fleet_error(
                        dir,
                        format!("cluster folder {file_name}/ has no {CLUSTER_VALUES}"),
                    ))
                }
            }
            let certs = path.join(CLUSTER_CERTS);
            clusters.push(Cluster {
                name: file_name.clone(),
                values,
                certs_dir: certs.is_dir().then_some(certs),
            });
        } else if let Some(stem) = stem {
            if !meta.is_file() {
                special.push(path);
                continue;
            }
            clusters.push(Cluster {
                name: stem.to_owned(),
                values: path,
                certs_dir: None,
            });
        } else {
            skipped.push(file_name);
        }
    }
    if !special.is_empty() {
        let names: Vec<&str> = special.iter().map(|p| p.as_str()).collect();
        return Err(fleet_error(
            dir,
            format!(
                "not a regular file (a FIFO, device or socket could block or never end), so not \
                 read: {}",
                names.join(", ")
            ),
        ));
    }
    skipped.sort();
    for name in skipped {
        notes.push(format!(
            "warning: --fleet {dir}: skipped {name}: a cluster is a NAME.yaml or NAME.yml file \
             or a NAME/ folder"
        ));
    }
    clusters.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = clusters.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(fleet_error(
            dir,
            format!(
                "two clusters are named {}: {} and {}",
                pair[0].name, pair[0].values, pair[1].values
            ),
        ));
    }
    if clusters.is_empty() {
        return Err(fleet_error(
            dir,
            "no clusters (NAME.yaml files or NAME/ folders with values.yaml)",
        ));
    }
    // Names are told apart by case here, but a checkout on a case-insensitive disk (macOS,
    // Windows) keeps one file of the two, and the two outputs would land on one file there.
    let mut by_folded: Vec<(String, &Cluster)> = clusters
        .iter()
        .map(|c| (c.name.to_lowercase(), c))
        .collect();
    by_folded.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    for pair in by_folded.windows(2).filter(|w| w[0].0 == w[1].0) {
        notes.push(format!(
            "warning: --fleet {dir}: {} and {} name clusters that differ only in case; on a \
             case-insensitive disk (macOS, Windows) a checkout keeps only one of them and their \
             outputs land on one file",
            pair[0].1.values, pair[1].1.values
        ));
    }
    Ok(clusters)
}
