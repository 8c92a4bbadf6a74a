//! A values file (`-f -`) of any bytes: it loads or fails with an error, never panics; loaded
//! values coalesced onto the chart's defaults print as YAML that reads back the same (what
//! `meshchart values` writes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshchart::chart::Chart;
use meshchart::values::{effective_values, Value, ValueOverrides};
use std::sync::OnceLock;

fn defaults() -> &'static Value {
    static DEFAULTS: OnceLock<Value> = OnceLock::new();
    DEFAULTS.get_or_init(|| {
        Chart::embedded()
            .and_then(|chart| chart.default_values())
            .expect("the embedded chart's defaults")
    })
}

fuzz_target!(|data: &[u8]| {
    let overrides = ValueOverrides {
        files: vec!["-".to_owned()],
        ..Default::default()
    };
    let mut stdin = data;
    if let Ok((values, _warnings)) = effective_values(defaults(), &overrides, &mut stdin) {
        meshchart_fuzz::assert_yaml_round_trip(&values);
    }
});
