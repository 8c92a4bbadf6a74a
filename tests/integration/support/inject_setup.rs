//! What inject needs from a chart: its sidecar partials and its default values with trust
//! anchors. Shared by `tests/integration/inject_properties.rs` and `fuzz/fuzz_targets/inject_yaml.rs`.

use meshchart::chart::Chart;
use meshchart::inject::workload::set_path;
use meshchart::inject::ChartSidecars;
use meshchart::values::Value;

/// The chart's sidecar partials and the values to inject with.
pub struct Setup {
    /// Renders the proxy and init containers (borrowing the chart's templates: the callers keep
    /// the chart and its setup for the whole process).
    pub sidecars: ChartSidecars<'static>,
    /// The chart's defaults with `identityTrustAnchorsPEM` set.
    pub values: Value,
}

impl Setup {
    /// Compiles `chart`'s partials and takes its defaults, with `trust_anchors` (PEM) added.
    pub fn new(chart: &'static Chart, trust_anchors: &str) -> Setup {
        let mut values = chart.default_values().expect("default values");
        set_path(
            &mut values,
            &["identityTrustAnchorsPEM"],
            Value::from(trust_anchors),
        );
        Setup {
            sidecars: ChartSidecars::new(chart).expect("the chart compiles"),
            values,
        }
    }
}
