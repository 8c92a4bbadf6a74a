//! The in-process render timing that `benches/render.rs` (the system allocator, as a library
//! user's program has by default) and `benches/render_shipped_allocator.rs` (the allocator the
//! meshchart binary installs) both run.

use meshchart::engine::Engine;
use meshchart::render::RenderRequest;
use meshchart::render::{render_with, render_with_kept, Clock, RenderOutcome};
use meshchart::values::KeptFiles;
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn timed(render: impl FnOnce() -> RenderOutcome) -> Duration {
    let t = Instant::now();
    std::hint::black_box(render().rendered.to_stream());
    t.elapsed()
}

fn report(what: &str, bytes: usize, times: &mut [Duration]) {
    times.sort();
    println!(
        "{what} ({bytes} bytes) over {} runs: min {:?}, median {:?}, p90 {:?}, max {:?}",
        times.len(),
        times[0],
        percentile(times, 0.5),
        percentile(times, 0.9),
        times[times.len() - 1]
    );
}

/// Times `render_with` and `render_with_kept` by turns and prints what `cargo bench` shows.
pub fn run() {
    std::env::set_var("SOURCE_DATE_EPOCH", "1700000000");
    let started = Instant::now();
    let chart = meshchart::releases::default_control_plane().expect("embedded chart");
    let engine = Engine::new(&chart).expect("chart compiles");
    let compile = started.elapsed();
    let flags = RenderRequest {
        certs_dir: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/certs").into()),
        ..RenderRequest::default()
    };
    let two_threads = || {
        render_with(
            &engine,
            &chart,
            &flags,
            &mut std::io::empty(),
            Clock::FromEnv,
        )
        .expect("renders")
    };
    let one_thread = || {
        let kept = KeptFiles::new();
        render_with_kept(
            &engine,
            &chart,
            &flags,
            &mut std::io::empty(),
            Clock::FromEnv,
            kept,
        )
        .expect("renders")
    };
    let mut bytes = 0;
    for _ in 0..50 {
        bytes = two_threads().rendered.to_stream().len();
        one_thread();
    }
    let runs = 1000;
    let (mut both, mut alone) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    let mut ratios = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (b, a) = (timed(two_threads), timed(one_thread));
        ratios.push(a.as_secs_f64() / b.as_secs_f64());
        both.push(b);
        alone.push(a);
    }
    ratios.sort_by(f64::total_cmp);
    println!("chart load + compile: {compile:?}");
    report("render", bytes, &mut both);
    report("render on one thread", bytes, &mut alone);
    println!(
        "one thread / render: paired median ratio {:.2}x",
        ratios[runs / 2]
    );
}
