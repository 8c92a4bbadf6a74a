//! The one place meshchart starts threads: every thread that renders templates or transforms
//! documents comes from here, with the stack [`STACK_BYTES`] sets explicitly.
//!
//! Three shapes of parallel work use it:
//! - [`alongside`]: a render's second core. The process keeps one helper thread, which
//!   compiles or renders templates from the same queue as the caller (`render`, `golden`);
//! - [`pool`]: a fleet's workers, one job per cluster, as many threads as `--jobs` asks;
//! - [`all_cores`]: inject's batch transforms, one thread per core, kept for the process, fed
//!   by a coordinator thread that [`beside`] runs while the caller reads and writes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
/// `meshchart-<role>-N`, each started on another core than the thread that starts it
/// ([`placement`]).
fn build(threads: Option<usize>, role: &'static str) -> Result<rayon::ThreadPool, String> {
    let cpus = placement::Cpus::of_this_thread();
    let widen_to = cpus.clone();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(STACK_BYTES)
        .thread_name(move |index| format!("meshchart-{role}-{index}"))
        .spawn_handler(move |thread| {
            let index = thread.index();
            let mut builder = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                builder = builder.name(name.to_owned());
            }
            if let Some(bytes) = thread.stack_size() {
                builder = builder.stack_size(bytes);
            }
            let started = builder.spawn(move || thread.run())?;
            if let Some(cpus) = &cpus {
                cpus.steer_away(&started, index);
            }
            Ok(())
        })
        .start_handler(move |_| {
            if let Some(cpus) = &widen_to {
                cpus.widen_this_thread();
            }
        })
        .build()
        .map_err(|e| format!("cannot start the threads: {e}"))
}

/// Where a new thread first runs.
///
/// Linux queues a new thread where it sees room, and on a virtual machine that is often the
/// starting thread's own core: measured on our 2-core CI machine, about half the threads started
/// while their starter was busy waited for it to sleep (2 ms in a 2 ms busy loop) instead of
/// taking the idle core. A render's helper, started as its render begins, then compiled nothing.
/// So each pool thread is pinned, as it is started, to a core other than the starter's (one of
/// those the process may use, in turn), and widened back to all of them once it runs, so that
/// the kernel balances it from then on as any other thread.
mod placement {
    /// The cores this process may use, and those of them other than the starting thread's.
    #[derive(Clone)]
    pub(super) struct Cpus {
        #[cfg(target_os = "linux")]
        allowed: libc::cpu_set_t,
        #[cfg(target_os = "linux")]
        others: Vec<usize>,
        /// The core the starting thread ran on (what the tests check against).
        #[cfg(all(test, target_os = "linux"))]
        here: usize,
    }

    impl Cpus {
        /// This thread's cores, or `None` where there is no other core to steer to (or the
        /// platform does not say).
        #[cfg(target_os = "linux")]
        pub(super) fn of_this_thread() -> Option<Cpus> {
            // SAFETY: a zeroed cpu_set_t is the empty set; the calls write within its size.
            unsafe {
                let mut allowed: libc::cpu_set_t = std::mem::zeroed();
                if libc::sched_getaffinity(0, std::mem::size_of_val(&allowed), &mut allowed) != 0 {
                    return None;
                }
                let here = usize::try_from(libc::sched_getcpu()).ok()?;
                let others: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&cpu| cpu != here && libc::CPU_ISSET(cpu, &allowed))
                    .collect();
                (!others.is_empty()).then_some(Cpus {
                    allowed,
                    others,
                    #[cfg(test)]
                    here,
                })
            }
        }

        #[cfg(not(target_os = "linux"))]
        pub(super) fn of_this_thread() -> Option<Cpus> {
            None
        }

        /// Pins the just started `thread` (the pool's `index`th) to one of the other cores:
        /// the kernel moves it there at once, whether it has run yet or not.
        #[cfg(target_os = "linux")]
        pub(super) fn steer_away<T>(&self, thread: &std::thread::JoinHandle<T>, index: usize) {
            use std::os::unix::thread::JoinHandleExt;
            let cpu = self.others[index % self.others.len()];
            // SAFETY: the handle names a live thread (not joined); the set is on our stack.
            unsafe {
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut one);
                // Advice only: a thread left where the kernel put it still works.
                // std calls musl's pthread_t an integer, the libc crate a pointer.
                #[allow(clippy::unnecessary_cast)]
                libc::pthread_setaffinity_np(
                    thread.as_pthread_t() as libc::pthread_t,
                    std::mem::size_of_val(&one),
                    &one,
                );
            }
        }

        #[cfg(not(target_os = "linux"))]
        pub(super) fn steer_away<T>(&self, _thread: &std::thread::JoinHandle<T>, _index: usize) {}

        /// Lets this thread run on every core the process may use again.
        #[cfg(target_os = "linux")]
        pub(super) fn widen_this_thread(&self) {
            // SAFETY: the set is a copy of what sched_getaffinity filled.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of_val(&self.allowed), &self.allowed);
            }
        }

        #[cfg(not(target_os = "linux"))]
        pub(super) fn widen_this_thread(&self) {}

        /// The core the starting thread ran on when these were read.
        #[cfg(all(test, target_os = "linux"))]
        pub(super) fn starter(&self) -> usize {
            self.here
        }
    }
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

/// Starts the process's helper thread now and gives it `first_work`, without waiting for it;
/// false (and `first_work` unrun) when there is no second core for it or it cannot start.
///
/// For work a process can do ahead, on its otherwise idle second core, while its main thread
/// parses flags (the binary pages its allocator's region in this way); the render that uses
/// the helper next finds it started and waits for `first_work` to end.
pub fn ahead(first_work: impl FnOnce() + Send + 'static) -> bool {
    if placement::Cpus::of_this_thread().is_none() {
        return false;
    }
    match helper() {
        Some(pool) => {
            pool.spawn(move || {
                first_work();
                stay_awake_until(&HELPER_WANTED, AWAKE_FOR_A_RENDER);
            });
            true
        }
        None => false,
    }
}

/// Set by [`alongside`]: a render wants the helper.
static HELPER_WANTED: AtomicBool = AtomicBool::new(false);

/// How long the helper stays awake after its [`ahead`] work, for a render to want it. A render
/// process reaches its render 0.2-0.7 ms after the helper has paged the arena in.
const AWAKE_FOR_A_RENDER: Duration = Duration::from_micros(1_500);

/// Keeps this thread running, not asleep, until `wanted` is set or `limit` has passed. A thread
/// that sleeps takes 0.1-0.25 ms to wake on a virtual machine whose idle core halts, and the
/// render that wakes the helper waits for it to share the work: kept awake, the helper made a
/// CRD render 0.90x the time and a control plane 0.94x (bench/paired.py-style runs, 150 rounds).
/// At most `limit` of one core is spent on it, once per process.
fn stay_awake_until(wanted: &AtomicBool, limit: Duration) {
    spin_until(limit, || wanted.load(Ordering::Relaxed));
}

/// Runs, without sleeping, until `done` holds or `limit` has passed; whether `done` held. The
/// one busy wait of the render threads (see [`stay_awake_until`] for why they do not sleep).
fn spin_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        std::hint::spin_loop();
    }
}

/// Runs `helper_work` on the kept helper thread while this thread runs `own_work`, and returns
/// when both are done. Renders on several threads at once share the helper, each taking it
/// when it is free. When the helper cannot start, `helper_work` is dropped unrun: `own_work`
/// must be able to finish the work alone (the two take from one queue), and whatever
/// `helper_work` holds (a channel's sending end) is dropped, so nothing waits for it.
pub fn alongside<R>(helper_work: impl FnOnce() + Send, own_work: impl FnOnce() -> R) -> R {
    HELPER_WANTED.store(true, Ordering::Relaxed);
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

/// How long a render thread waiting for its partner keeps running before it sleeps: a thread
/// that sleeps took 0.1-0.5 ms to wake on a virtual machine whose idle core halts, longer than
/// the waits of a render (a template compiling on the other thread, the values read before
/// the helper may render).
const SPIN_BEFORE_SLEEPING: Duration = Duration::from_millis(1);

/// Waits until `done` holds: running for up to [`SPIN_BEFORE_SLEEPING`], then yielding the
/// core between looks, for a condition another thread is about to make true.
pub fn wait_until(done: impl Fn() -> bool) {
    if spin_until(SPIN_BEFORE_SLEEPING, &done) {
        return;
    }
    while !done() {
        std::thread::yield_now();
    }
}

/// [`std::sync::mpsc::Receiver::recv`], running for up to [`SPIN_BEFORE_SLEEPING`] before it
/// sleeps: for a message the other render thread is about to send.
pub fn receive_soon<T>(
    receiver: &std::sync::mpsc::Receiver<T>,
) -> Result<T, std::sync::mpsc::RecvError> {
    use std::sync::mpsc::TryRecvError;
    let mut outcome = Err(TryRecvError::Empty);
    spin_until(SPIN_BEFORE_SLEEPING, || {
        outcome = receiver.try_recv();
        !matches!(outcome, Err(TryRecvError::Empty))
    });
    match outcome {
        Ok(message) => Ok(message),
        Err(TryRecvError::Disconnected) => Err(std::sync::mpsc::RecvError),
        Err(TryRecvError::Empty) => receiver.recv(),
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::placement::Cpus;
    use super::{receive_soon, stay_awake_until, wait_until};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn this_cpu() -> usize {
        // SAFETY: no arguments; -1 only where the kernel cannot say.
        usize::try_from(unsafe { libc::sched_getcpu() }).unwrap_or(usize::MAX)
    }

    #[test]
    fn a_steered_thread_runs_on_another_core_than_its_starter() {
        let Some(cpus) = Cpus::of_this_thread() else {
            eprintln!("SKIPPED: this test needs two cores the process may use");
            return;
        };
        let steered = Arc::new(AtomicBool::new(false));
        let told = Arc::clone(&steered);
        let widen = cpus.clone();
        let thread = std::thread::spawn(move || {
            while !told.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            let steered_to = this_cpu();
            widen.widen_this_thread();
            steered_to
        });
        cpus.steer_away(&thread, 0);
        steered.store(true, Ordering::Release);
        let ran_on = thread.join().expect("the steered thread ends");
        assert_ne!(
            ran_on,
            cpus.starter(),
            "the thread ran on its starter's core"
        );
    }

    #[test]
    fn the_helper_stays_awake_no_longer_than_its_limit_when_no_render_wants_it() {
        let limit = Duration::from_millis(20);
        let started = Instant::now();
        stay_awake_until(&AtomicBool::new(false), limit);
        assert!(started.elapsed() >= limit);
    }

    #[test]
    fn the_helper_stops_waiting_once_a_render_wants_it() {
        let wanted = Arc::new(AtomicBool::new(false));
        let waiter = Arc::clone(&wanted);
        let started = Instant::now();
        let waiting = std::thread::spawn(move || {
            stay_awake_until(&waiter, Duration::from_secs(10));
        });
        wanted.store(true, Ordering::Relaxed);
        waiting.join().expect("the waiting thread ends");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_waiting_render_thread_sees_a_condition_set_after_it_stopped_spinning() {
        let done = Arc::new(AtomicBool::new(false));
        let setter = Arc::clone(&done);
        let setting = std::thread::spawn(move || {
            // Past the spinning, into the yielding part of the wait.
            std::thread::sleep(Duration::from_millis(5));
            setter.store(true, Ordering::Release);
        });
        wait_until(|| done.load(Ordering::Acquire));
        setting.join().expect("the setting thread ends");
        assert!(done.load(Ordering::Acquire));
    }

    #[test]
    fn a_message_sent_after_the_spinning_still_arrives() {
        let (send, receive) = std::sync::mpsc::sync_channel::<u32>(1);
        let sending = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            send.send(7).expect("the receiver waits");
        });
        assert_eq!(receive_soon(&receive), Ok(7));
        sending.join().expect("the sending thread ends");
    }

    #[test]
    fn a_receiver_whose_sender_is_gone_stops_waiting() {
        let (send, receive) = std::sync::mpsc::sync_channel::<u32>(1);
        drop(send);
        assert!(receive_soon(&receive).is_err());
    }
}
