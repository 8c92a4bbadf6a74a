//! The one place meshchart starts threads: every thread that renders templates or transforms
//! documents comes from here, with the stack [`STACK_BYTES`] sets explicitly.
//!
//! Three shapes of parallel work use it:
//! - [`alongside`]: a render's second core. The process keeps one helper thread, which
//!   compiles or renders templates from the same queue as the caller (`render`, `golden`);
//! - [`pool`]: a fleet's workers, one job per cluster, as many threads as `--jobs` asks;
//! - [`all_cores`]: inject's batch transforms, one thread per core, kept for the process, fed
//!   by a coordinator thread that [`beside`] runs while the caller reads and writes.

use std::sync::OnceLock;

/// The stack of every thread that renders templates: reserved address space, of which only
/// what is used becomes memory, but which an address-space limit (`ulimit -v`) counts whole.
///
/// What a thread may recurse through is bounded: values we read or convert nest at most
/// [`crate::limits::MAX_NESTING`] levels, and every walk of ours stays within that. A template
/// can still build a value nested as deep as its fuel allows (about 200,000 levels), which
/// minijinja drops recursively: that took 16 to 32 MiB, measured with minijinja optimised as the
/// shipped binary has it (and as `cargo test` builds it, see Cargo.toml), so 64 MiB leaves room.
/// Printing such a value as a string (`~`, `string`) recurses deeper; it ends in the clear
/// error of [`crate::limits::catch_stack_overflow`], not in a crash. (At 512 MiB a thread, as
/// before, `--jobs 7` did not start under a 4 GiB address-space limit.)
pub const STACK_BYTES: usize = 64 << 20;

/// A rayon pool of `threads` threads (`None`: one per core) with [`STACK_BYTES`] stacks, named
/// `meshchart-<role>-N`.
fn build(threads: Option<usize>, role: &'static str) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(STACK_BYTES)
        .thread_name(move |index| format!("meshchart-{role}-{index}"))
        .build()
        .map_err(|e| format!("cannot start the threads: {e}"))
}

/// A pool of `threads` workers (`None`: one per core) for one piece of work, such as a fleet.
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    build(threads, "worker")
}

/// The process's pool of one thread per core, started on first use and kept (inject's batches);
/// `None` when its threads cannot start.
pub fn all_cores() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| build(None, "core").ok()).as_ref()
}

/// The process's one helper thread, started on first use and kept: a thread started per render
/// cost its start-up every time and took its allocator state with it when it ended (with the
/// binary's arena, 2,000 renders in one process grew it to the arena's whole 32 MiB region).
fn helper() -> Option<&'static rayon::ThreadPool> {
    static HELPER: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    HELPER
        .get_or_init(|| build(Some(1), "helper").ok())
        .as_ref()
}

/// Runs `helper_work` on the kept helper thread while this thread runs `own_work`, and returns
/// when both are done. Renders on several threads at once share the helper, each taking it
/// when it is free. When the helper cannot start, `helper_work` is dropped unrun: `own_work`
/// must be able to finish the work alone (the two take from one queue), and whatever
/// `helper_work` holds (a channel's sending end) is dropped, so nothing waits for it.
pub fn alongside<R>(helper_work: impl FnOnce() + Send, own_work: impl FnOnce() -> R) -> R {
    match helper() {
        Some(pool) => pool.in_place_scope(|scope| {
            scope.spawn(move |_| helper_work());
            own_work()
        }),
        None => {
            drop(helper_work);
            own_work()
        }
    }
}

/// The stack of a coordinator thread ([`beside`]): it hands work to a pool and waits, and
/// renders nothing itself.
const COORDINATOR_STACK_BYTES: usize = 256 << 10;

/// Runs `coordinator` on a thread of its own while this thread runs `own_work`, and returns when
/// both are done. For a pipeline whose coordinator blocks for as long as the work lasts (inject
/// hands batches to [`all_cores`]), which must not hold the helper [`alongside`] shares: a
/// render on a pool thread would wait for it. The error says the thread could not start.
pub fn beside<R>(
    coordinator: impl FnOnce() + Send,
    own_work: impl FnOnce() -> R,
) -> Result<R, String> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("meshchart-coordinator".to_owned())
            .stack_size(COORDINATOR_STACK_BYTES)
            .spawn_scoped(scope, coordinator)
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        Ok(own_work())
    })
}
