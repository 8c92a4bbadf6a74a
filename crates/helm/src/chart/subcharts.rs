//! A chart's subcharts as Helm loads them: each folder under `charts/` that holds a
//! `Chart.yaml`, and each archive `charts/*.tgz`, read from the parent's files in memory.

use super::{Chart, ChartError};
use crate::input::archive::read_archive;

impl Chart {
    /// The subcharts under `charts/`, loaded, in path order ([`Chart::subcharts`]'s).
    pub fn load_subcharts(&self) -> Result<Vec<Chart>, ChartError> {
        let mut loaded = Vec::new();
        for path in self.subcharts() {
            let origin = format!("{}/{path}", self.origin);
            if path.ends_with(".tgz") {
                let Some((_, bytes)) = self.binary_files.iter().find(|(p, _)| *p == path) else {
                    continue;
                };
                let contents = read_archive(bytes.as_slice(), &origin)?;
                loaded.push(Chart::from_read_files(&origin, contents.files)?);
                continue;
            }
            let prefix = format!("{path}/");
            // Only the subchart's own files are copied (a subchart's folder lies among the
            // parent's other files; Chart.yaml, templates and values are never under charts/).
            let text = self.other_files.iter().filter_map(|f| {
                let inner = f.path.strip_prefix(&prefix)?.to_owned();
                Some((inner, f.text.clone().into_bytes()))
            });
            let binary = self.binary_files.iter().filter_map(|(p, bytes)| {
                Some((p.strip_prefix(&prefix)?.to_owned(), bytes.clone()))
            });
            loaded.push(Chart::from_read_files(
                &origin,
                text.chain(binary).collect(),
            )?);
        }
        Ok(loaded)
    }
}
