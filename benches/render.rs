//! In-process render time of the embedded control plane: compile once, render many times.
//!
//! `cargo bench --bench render` prints the median and spread; the target is under 1 ms a render.

use meshchart::chart::Chart;
use meshchart::engine::Engine;
use meshchart::flags::RenderFlags;
use meshchart::render::{render_with, Clock};
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    std::env::set_var("SOURCE_DATE_EPOCH", "1700000000");
    let started = Instant::now();
    let chart = Chart::embedded().expect("embedded chart");
    let engine = Engine::new(&chart).expect("chart compiles");
    let compile = started.elapsed();
    let flags = RenderFlags {
        certs_dir: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/certs").into()),
        ..RenderFlags::default()
    };
    let mut bytes = 0;
    for _ in 0..50 {
        bytes = render_with(
            &engine,
            &chart,
            &flags,
            &mut std::io::empty(),
            Clock::FromEnv,
        )
        .expect("renders")
        .rendered
        .to_stream()
        .len();
    }
    let runs = 1000;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let out = render_with(
            &engine,
            &chart,
            &flags,
            &mut std::io::empty(),
            Clock::FromEnv,
        )
        .expect("renders");
        std::hint::black_box(out.rendered.to_stream());
        times.push(t.elapsed());
    }
    times.sort();
    println!("chart load + compile: {:?}", compile);
    println!(
        "render ({bytes} bytes) over {runs} runs: min {:?}, median {:?}, p90 {:?}, max {:?}",
        times[0],
        percentile(&times, 0.5),
        percentile(&times, 0.9),
        times[runs - 1]
    );
}
