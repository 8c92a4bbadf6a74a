//! `render_with` renders on the caller's thread and the process's one helper thread: renders on
//! several threads at once share that helper and still give each the bytes of a render alone.

use meshchart::engine::Engine;
use meshchart::render::RenderRequest;
use meshchart::render::{render_with, render_with_kept, Clock};
use meshchart::values::KeptFiles;
use std::time::{Duration, UNIX_EPOCH};

fn flags() -> RenderRequest {
    RenderRequest {
        certs_dir: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/certs").into()),
        kube_version: Some("1.24.0".into()),
        ..RenderRequest::default()
    }
}

fn clock() -> Clock {
    Clock::Fixed(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

#[test]
fn renders_on_several_threads_at_once_each_give_the_bytes_of_a_render_alone() {
    let chart = meshchart::releases::embedded_line("edge-21.4.4", "linkerd-control-plane")
        .expect("the embedded chart");
    let engine = Engine::new(&chart).expect("the chart compiles");
    let flags = flags();
    let alone = render_with_kept(
        &engine,
        &chart,
        &flags,
        &mut std::io::empty(),
        clock(),
        KeptFiles::new(),
    )
    .expect("renders")
    .rendered
    .to_stream();
    let outputs: Vec<String> = std::thread::scope(|scope| {
        let renders: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    (0..5)
                        .map(|_| {
                            render_with(&engine, &chart, &flags, &mut std::io::empty(), clock())
                                .expect("renders")
                                .rendered
                                .to_stream()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        renders
            .into_iter()
            .flat_map(|render| render.join().expect("no panic"))
            .collect()
    });
    assert_eq!(outputs.len(), 20);
    for output in outputs {
        assert!(output == alone, "a render on several threads differs");
    }
}
