//! `meshchart releases`: the embedded release lines.

use meshchart::Error;

/// What `meshchart releases` prints: one line per embedded release line.
pub fn table() -> Result<String, Error> {
    let mut text = String::from("RELEASE\tCHARTS\tKUBERNETES\tDEFAULT\n");
    for line in meshchart::releases::release_lines()? {
        let charts: Vec<String> = line
            .charts
            .iter()
            .map(|(name, version)| format!("{name}-{version}"))
            .collect();
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            line.release,
            charts.join(","),
            line.kube_version,
            if line.default { "yes" } else { "" }
        ));
    }
    Ok(text)
}
