//! Prints the control plane rendered with the reference values (see `tests/support`), for
//! checking with external tools, e.g. the schema validation CI runs:
//!
//! ```text
//! cargo run -q --example render_control_plane -- default > /tmp/control-plane.yaml
//! cargo run -q --example render_control_plane -- ha > /tmp/control-plane-ha.yaml
//! kubernetes-validate --strict -k 1.30.0 /tmp/control-plane.yaml /tmp/control-plane-ha.yaml
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::ExitCode;

fn main() -> ExitCode {
    let values = match std::env::args().nth(1).as_deref() {
        None | Some("default") => support::reference_values(),
        Some("ha") => support::reference_values_ha(),
        Some(other) => {
            eprintln!("unknown variant {other:?}: use `default` or `ha`");
            return ExitCode::from(2);
        }
    };
    print!("{}", support::render(&values).to_stream());
    ExitCode::SUCCESS
}
