//! `meshchart inject` on any input stream, with the embedded chart: it injects or fails with an
//! error, never panics; what it writes injects again without error, and uninjects.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshchart::chart::Chart;
use meshchart::inject::workload::set_path;
use meshchart::inject::{self, ChartSidecars, InjectOptions, Namespaces, Source};
use meshchart::values::Value;
use std::sync::OnceLock;

struct Setup {
    sidecars: ChartSidecars,
    values: Value,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let chart = Chart::embedded().expect("the embedded chart");
        let mut values = chart.default_values().expect("default values");
        let anchors = include_str!("../../tests/certs/ca.crt");
        set_path(
            &mut values,
            &["identityTrustAnchorsPEM"],
            Value::from(anchors),
        );
        Setup {
            sidecars: ChartSidecars::new(&chart).expect("the chart compiles"),
            values,
        }
    })
}

fn source(name: &str, text: &str) -> Source {
    Source {
        name: name.to_owned(),
        text: text.to_owned(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let s = setup();
    let options = InjectOptions {
        values: s.values.clone(),
        namespaces: Namespaces::default(),
        sidecars: &s.sidecars,
    };
    let _ = inject::uninject(&[source("input.yaml", text)]);
    let Ok(first) = inject::inject(&[source("input.yaml", text)], &options) else {
        return;
    };
    let output = first.output;
    if let Err(e) = inject::inject(&[source("output.yaml", &output)], &options) {
        panic!("our inject output does not inject again: {e}\n{output}");
    }
    if let Err(e) = inject::uninject(&[source("output.yaml", &output)]) {
        panic!("our inject output does not uninject: {e}\n{output}");
    }
});
