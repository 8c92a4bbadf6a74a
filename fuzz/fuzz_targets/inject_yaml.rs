//! `meshchart inject` on any input stream, with the embedded chart: it injects or fails with an
//! error, never panics; what it writes injects again without error, and uninjects.
#![no_main]

#[path = "../../tests/integration/support/inject_setup.rs"]
mod inject_setup;

use inject_setup::Setup;
use libfuzzer_sys::fuzz_target;
use meshchart::chart::Chart;
use meshchart::inject::{self, InjectOptions, Namespaces, Source};
use std::sync::OnceLock;

fn setup() -> &'static Setup {
    static CHART: OnceLock<Chart> = OnceLock::new();
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let chart = CHART.get_or_init(|| Chart::embedded().expect("the embedded chart"));
        Setup::new(chart, include_str!("../../tests/certs/ca.crt"))
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
