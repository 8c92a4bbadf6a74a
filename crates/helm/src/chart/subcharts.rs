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
            // Only the subchart's own files are taken (a subchart's folder lies among the
            // parent's other files; Chart.yaml, templates and values are never under charts/).
            // Their texts are shared with the parent, not copied: a subchart of CRDs holds
            // megabytes. Each was decoded as the parent's file, and is again under its own
            // path (the one rule that could differ: a second byte-order mark is dropped too).
            let text = self.other_files.iter().filter_map(|f| {
                let inner = f.path.strip_prefix(&prefix)?.to_owned();
                let text = match f.text.strip_prefix('\u{feff}') {
                    Some(rest) => rest.into(),
                    None => f.text.clone(),
                };
                Some(super::ChartFile { path: inner, text })
            });
            let binary = self.binary_files.iter().filter_map(|(p, bytes)| {
                Some((p.strip_prefix(&prefix)?.to_owned(), bytes.clone()))
            });
            let (mut files, binary) = super::text_files(&origin, binary.collect())?;
            files.extend(text);
            let mut chart = Chart::from_files(&origin, files)?;
            chart.binary_files = binary;
            loaded.push(chart);
        }
        Ok(loaded)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ChartFile;
    use super::*;

    fn file(path: &str, text: &str) -> ChartFile {
        ChartFile {
            path: path.to_owned(),
            text: text.into(),
        }
    }

    fn parent_with(sub_files: &[(&str, &str)]) -> Chart {
        let mut files = vec![file(
            "Chart.yaml",
            "apiVersion: v2\nname: top\nversion: 0.1.0\n",
        )];
        files.extend(
            sub_files
                .iter()
                .map(|(path, text)| file(&format!("charts/sub/{path}"), text)),
        );
        Chart::from_files("test", files).expect("the parent loads")
    }

    #[test]
    fn a_folder_subchart_shares_its_files_texts_with_the_parent() {
        let parent = parent_with(&[
            ("Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
            ("crds/big.yaml", "kind: CustomResourceDefinition\n"),
        ]);
        let subs = parent.load_subcharts().expect("the subchart loads");
        let in_parent = parent
            .file("charts/sub/crds/big.yaml")
            .expect("the parent holds it");
        let in_sub = subs[0]
            .file("crds/big.yaml")
            .expect("the subchart holds it");
        assert!(std::sync::Arc::ptr_eq(
            &in_parent.text.shared(),
            &in_sub.text.shared()
        ));
    }

    #[test]
    fn a_folder_subchart_file_loses_a_second_byte_order_mark_as_when_decoded_twice() {
        let parent = parent_with(&[
            ("Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
            ("files/marked.txt", "\u{feff}text\n"),
        ]);
        let subs = parent.load_subcharts().expect("the subchart loads");
        let marked = subs[0]
            .file("files/marked.txt")
            .expect("the subchart holds it");
        assert_eq!(&*marked.text, "text\n");
    }
}
