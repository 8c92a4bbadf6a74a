//! `meshchart releases`: the embedded release lines.

use meshchart::Error;

/// What `meshchart releases` prints: one line per embedded release line, or (`json`) one
/// JSON document, `{"releases": [{"release", "charts": [{"name", "version"}], "kubernetes",
/// "default"}]}`.
pub fn table(json: bool) -> Result<String, Error> {
    if json {
        let lines: Vec<serde_json::Value> = meshchart::releases::release_lines()?
            .iter()
            .map(|line| {
                let charts: Vec<serde_json::Value> = line
                    .charts
                    .iter()
                    .map(|(name, version)| serde_json::json!({"name": name, "version": version}))
                    .collect();
                serde_json::json!({
                    "release": line.release,
                    "charts": charts,
                    "kubernetes": line.kube_version,
                    "default": line.default,
                })
            })
            .collect();
        return Ok(super::json_text(&serde_json::json!({ "releases": lines })));
    }
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
