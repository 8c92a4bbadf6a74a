//! `meshchart releases`: every Linkerd release of the table, its era, and whether this binary
//! renders it.

use meshchart::Error;

/// What `meshchart releases` prints: one line per release, or (`json`) one JSON document,
/// `{"releases": [{"release", "charts": [{"name", "version"}], "kubernetes", "default", "era",
/// "served", "templates"}]}`; `templates` is the template set rendering it (null when its era is
/// not embedded yet).
pub fn table(json: bool) -> Result<String, Error> {
    let lines = meshchart::releases::release_lines()?;
    if json {
        let lines: Vec<serde_json::Value> = lines
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
                    "era": line.era,
                    "served": line.templates.is_some(),
                    "templates": line.templates,
                })
            })
            .collect();
        return Ok(super::json_text(&serde_json::json!({ "releases": lines })));
    }
    let mut text = String::from("RELEASE\tCHARTS\tKUBERNETES\tERA\tSERVED\tDEFAULT\n");
    for line in lines {
        let charts: Vec<String> = line
            .charts
            .iter()
            .map(|(name, version)| format!("{name}-{version}"))
            .collect();
        let served = match line.templates {
            Some(set) => format!("yes (templates {set})"),
            None => "not yet".to_owned(),
        };
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            line.release,
            charts.join(","),
            line.kube_version,
            line.era,
            served,
            if line.default { "yes" } else { "" }
        ));
    }
    Ok(text)
}
