//! The record of what the last run wrote into a target.

use super::OutputError;
use camino::Utf8Path;
use std::collections::BTreeSet;

/// The record's file name inside a target folder. Its lines are the files meshchart wrote
/// there, relative, each as a JSON string (so any name, even one holding a newline, reads back
/// as written); lines starting with `#` are comments. It has no `.yaml` ending, so
/// `kubectl apply -R` passes it by.
pub const RECORD_NAME: &str = ".meshchart-outputs";

const HEADER: &str = "# Written by meshchart: the files its last run wrote into this folder. Only \
these are ever replaced or deleted by a later run;\n# everything else here is left alone. \
Removed, every file here counts as not meshchart's.\n";

/// Reads the record in `folder`: the files it names (empty when there is none).
pub(crate) fn read(folder: &Utf8Path) -> Result<BTreeSet<String>, OutputError> {
    let path = folder.join(RECORD_NAME);
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(OutputError::io("read", path)(e)),
    };
    let bad = |line: usize, reason: String| OutputError::Record {
        path: path.clone(),
        line,
        reason,
    };
    let text = String::from_utf8(text).map_err(|_| bad(1, "not UTF-8 text".to_owned()))?;
    let mut names = BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name: String = serde_json::from_str(line)
            .map_err(|e| bad(index + 1, format!("not a JSON string ({e})")))?;
        check_name(&name).map_err(|e| bad(index + 1, e.to_string()))?;
        names.insert(name);
    }
    Ok(names)
}

/// The record's text for `names`.
pub(crate) fn text(names: &BTreeSet<String>) -> String {
    let mut text = HEADER.to_owned();
    for name in names {
        // A String always serialises.
        text.push_str(&serde_json::Value::from(name.as_str()).to_string());
        text.push('\n');
    }
    text
}

/// Refuses a name that is not plain and relative: one that could leave its folder, or name the
/// record itself.
pub(crate) fn check_name(name: &str) -> Result<(), OutputError> {
    let plain = !name.is_empty()
        && !name.starts_with('/')
        && name.split('/').all(|part| !matches!(part, "" | "." | ".."))
        && !name.contains('\0')
        && name != RECORD_NAME;
    if plain {
        Ok(())
    } else {
        Err(OutputError::BadName {
            name: name.to_owned(),
        })
    }
}
