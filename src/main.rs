//! The `meshchart` command line: parses flags (see [`cli`]) and runs the command on a worker
//! thread under the process's ceilings.

mod cli;

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: meshchart::limits::CappedAllocator = meshchart::limits::CappedAllocator;

fn main() -> ExitCode {
    // Small blocks come from a huge-page arena (see meshchart::arena), big ones from the system.
    // The helper thread pages its start in on the second core while this one goes on; until
    // then small blocks come from the arena's static early buffer, whose pages it maps first.
    // Before paging in it builds the template environment and asks the processor for its
    // features, which the main thread needs sooner: as it reads flags and chooses the release,
    // and as it starts to render.
    meshchart::arena::reserve();
    if !meshchart::parallel::ahead(|| {
        meshchart::arena::populate_early();
        meshchart::engine::build_environment_ahead();
        learn_the_processors_features();
        meshchart::arena::page_in_and_open();
    }) {
        meshchart::arena::open();
    }
    meshchart::limits::catch_stack_overflow();
    let limits = meshchart::limits::set_ceiling_from_env()
        .and_then(|()| meshchart::limits::start_deadline());
    if let Err(e) = limits {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    // The work runs on a thread with room for deeply nested template values (see
    // meshchart::parallel), as do the threads render, fleet and inject start. The flags are
    // parsed there too: the blocks clap frees go back to that thread's lists in the arena,
    // and the command reuses them.
    let worker = std::thread::Builder::new()
        .name("meshchart".into())
        .stack_size(meshchart::parallel::STACK_BYTES)
        .spawn(|| {
            let outcome = cli::run(cli::parse().command);
            // A command that succeeded ends the process from here: returning would end this
            // thread and wake main to exit, 0.1 ms of a render's 3.
            if matches!(outcome, Ok(code) if code == ExitCode::SUCCESS) {
                exit_successfully();
            }
            outcome
        });
    let outcome = match worker {
        Ok(worker) => worker.join().unwrap_or_else(|_| {
            Err(meshchart::Error::Usage(
                "internal error: the worker thread panicked".into(),
            ))
        }),
        Err(e) => Err(meshchart::Error::Usage(format!(
            "cannot start a thread: {e}"
        ))),
    };
    match outcome {
        Ok(code) => code,
        // A reader that stopped early (`meshchart render | head`) is not an error: end quietly,
        // as other Unix tools do when their output is closed.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            // Any message may quote a value the user gave, and a value may be a key.
            eprintln!(
                "error: {}",
                meshchart::redact::mask_private_keys(&e.to_string())
            );
            ExitCode::from(1)
        }
    }
}

/// Has std and ring ask the processor for its features (for the SIMD searches and the SHA-256
/// code they choose), which each does once per process, on first use. Each `cpuid` instruction
/// exits to the hypervisor on a virtual machine (6.4 us on ours), and the two ask some fifteen
/// times: asked by the helper at start-up, while the main thread parses flags, the answers are
/// kept when the render needs them.
fn learn_the_processors_features() {
    #[cfg(target_arch = "x86_64")]
    let _ = std::arch::is_x86_feature_detected!("avx2");
    let _ = meshchart::digest::sha256(b"");
}

/// Flushes stdout and ends the process with status 0, at once. std's `process::exit` would
/// first unmap the main thread's signal stack, and unmapping memory in a process with threads
/// on other cores makes the kernel interrupt those cores to flush their TLBs: 0.05-0.3 ms on a
/// virtual machine whose idle cores halt. Nothing else is left to do: files are written and
/// renamed in place before a command returns, and nothing uses C's buffered stdio.
fn exit_successfully() -> ! {
    use std::io::Write;
    let status = match std::io::stdout().lock().flush() {
        // A reader that stopped early is no error (see main).
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: <stdout>: {e}");
            1
        }
    };
    // _exit runs no exit handlers, and the instrumented binary of a profile-guided build writes
    // its profile in one: written here instead.
    #[cfg(feature = "pgo-training")]
    {
        extern "C" {
            fn __llvm_profile_write_file() -> libc::c_int;
        }
        // SAFETY: the LLVM profiler runtime linked into an instrumented build provides it.
        unsafe { __llvm_profile_write_file() };
    }
    // SAFETY: _exit ends the process without running anything of ours.
    unsafe { libc::_exit(status) }
}
