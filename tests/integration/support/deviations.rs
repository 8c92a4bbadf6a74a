//! The tables of `tests/reference/DEVIATIONS.md`: every difference from a reference must match a
//! row, and every row must match a difference, so the tables cannot rot.

use std::fmt::{Display, Write as _};

/// Where the deviations tables live.
pub const DEVIATIONS_FILE: &str = "tests/reference/DEVIATIONS.md";

/// `*` matches any run of characters (dots and brackets included); everything else literally.
pub fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).any(|i| go(rest, &t[i..])),
            Some((c, rest)) => t.first() == Some(c) && go(rest, &t[1..]),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

/// A row of a deviations table: its line in the file and its cells, the reason last.
#[derive(Debug)]
pub struct Row {
    /// 1-based line in [`DEVIATIONS_FILE`].
    pub line: usize,
    /// The cells, backquotes trimmed.
    pub cells: Vec<String>,
}

impl Row {
    /// Whether each cell before the reason globs the part of `key` in its column.
    pub fn covers(&self, key: &[&str]) -> bool {
        let patterns = &self.cells[..self.cells.len() - 1];
        patterns.len() == key.len() && patterns.iter().zip(key).all(|(p, k)| glob(p, k))
    }
}

/// Reads the table under the first heading starting with `heading`; `columns` names its columns
/// (the reason last), and every row must fill each of them.
pub fn read_table(heading: &str, columns: &[&str]) -> Vec<Row> {
    let path = super::repo_root().join(DEVIATIONS_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let needs = match columns {
        [] => String::new(),
        [only] => format!("a {only}"),
        [first @ .., last] => format!("a {} and a {last}", first.join(", a ")),
    };
    let mut rows = Vec::new();
    let mut in_section = false;
    let mut seen_header = false;
    for (index, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line.starts_with(heading);
            continue;
        }
        let line = line.trim();
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').trim().to_owned())
            .collect();
        if !seen_header {
            seen_header = true; // the header row
            continue;
        }
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue; // the separator row
        }
        assert!(
            cells.len() == columns.len() && cells.iter().all(|c| !c.is_empty()),
            "{DEVIATIONS_FILE}:{}: a row needs {needs}: {line}",
            index + 1
        );
        rows.push(Row {
            line: index + 1,
            cells,
        });
    }
    assert!(
        !rows.is_empty(),
        "{DEVIATIONS_FILE}: no table under a heading starting with {heading:?}"
    );
    rows
}

/// What is wrong between the differences `found` and the table's `rows`: differences no row
/// covers, and rows that cover no difference. Empty when they match. `key` gives a difference's
/// cells, one per column but the reason.
pub fn unmatched<D: Display>(
    heading: &str,
    rows: &[Row],
    found: &[D],
    key: impl Fn(&D) -> Vec<String>,
) -> String {
    let keys: Vec<Vec<String>> = found.iter().map(key).collect();
    let covers = |row: &Row, key: &[String]| {
        let key: Vec<&str> = key.iter().map(String::as_str).collect();
        row.covers(&key)
    };
    let mut report = String::new();
    let uncovered: Vec<&D> = found
        .iter()
        .zip(&keys)
        .filter(|(_, key)| !rows.iter().any(|row| covers(row, key)))
        .map(|(d, _)| d)
        .collect();
    if !uncovered.is_empty() {
        let _ = writeln!(
            report,
            "{} difference(s) from the reference not listed in {DEVIATIONS_FILE} ({heading}):",
            uncovered.len()
        );
        for d in &uncovered {
            let _ = writeln!(report, "  {d}");
        }
    }
    let unused: Vec<&Row> = rows
        .iter()
        .filter(|row| !keys.iter().any(|key| covers(row, key)))
        .collect();
    if !unused.is_empty() {
        let _ = writeln!(
            report,
            "{} row(s) of {DEVIATIONS_FILE} ({heading}) match no difference (remove or fix them):",
            unused.len()
        );
        for row in &unused {
            let _ = writeln!(report, "  line {}: {}", row.line, row.cells.join(" | "));
        }
    }
    report
}
