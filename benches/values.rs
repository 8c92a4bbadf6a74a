//! `values`, `values --explain` and `lint` of large values files: the work must grow linearly
//! with the number of keys (issue 11: provenance re-parsed the whole file for every leaf).
//!
//! `cargo bench --bench values` writes files of 1,000, 10,000 and 100,000 keys (half of them
//! overriding keys the chart knows is not possible at that size, so they sit under one map the
//! chart does not use, as a typo'd or stray block would) and prints the median of a few runs of
//! each command, in process, with the embedded chart. Target: 10,000 keys well under a second.

use meshchart::chart::Chart;
use meshchart::render::show_values;
use meshchart::render::RenderRequest;
use meshchart::values::ValueOverrides;
use meshchart::ChartSource;
use std::time::{Duration, Instant};

fn values_file(keys: usize) -> String {
    let mut text = String::from("proxy:\n  logLevel: debug\nextra:\n");
    for i in 0..keys {
        // Groups of 100 keys, so the tree has depth as real values files do.
        if i % 100 == 0 {
            text.push_str(&format!("  group{:04}:\n", i / 100));
        }
        text.push_str(&format!("    key{i:06}: value-{i}\n"));
    }
    text
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let dir = std::env::temp_dir().join(format!("meshchart-bench-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let chart: Chart = ChartSource::default_line().load().expect("embedded chart");
    println!("keys      values      values --explain   lint");
    for keys in [1_000, 10_000, 100_000] {
        let path = dir.join(format!("values-{keys}.yaml"));
        std::fs::write(&path, values_file(keys)).expect("write values");
        let file = path.to_string_lossy().into_owned();
        let overrides = ValueOverrides {
            files: vec![file.clone()],
            ..ValueOverrides::default()
        };
        let runs = if keys >= 100_000 { 3 } else { 5 };
        let show = |explain: bool| {
            let (text, _) =
                show_values(&chart, &overrides, explain, &mut std::io::empty()).expect("values");
            std::hint::black_box(text);
        };
        let plain = time(runs, || show(false));
        let explained = time(runs, || show(true));
        let mut flags = RenderRequest::default();
        flags.values.files = vec![file.clone()];
        let lint = time(runs, || {
            let report =
                meshchart::lint::lint(&ChartSource::default_line(), &flags, &mut std::io::empty());
            std::hint::black_box(report.to_text());
        });
        println!("{keys:<9} {plain:<11.2?} {explained:<18.2?} {lint:.2?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
