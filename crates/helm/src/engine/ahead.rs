//! The process's first engine environment, built ahead on an idle core.
//!
//! Building an environment registers a few hundred functions and filters: 0.17 ms of a
//! render process's 2-4 ms when its code is not yet in the processor's caches. It depends on no
//! chart, so the binary's helper thread builds one while the main thread is still reading
//! flags and choosing the release ([`build_environment_ahead`]), and the first engine takes it
//! ([`take_or_build`]). Every later engine, and every engine of a process that built none
//! ahead, builds its own.

use minijinja::Environment;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// Nobody has built or taken the environment yet.
const IDLE: u8 = 0;
/// The helper is building it: the first engine waits for it rather than build a second.
const BUILDING: u8 = 1;
/// Built, in [`BUILT`], for the first engine to take.
const READY: u8 = 2;
/// Taken, or no longer on offer: engines build their own.
const GONE: u8 = 3;

static STATE: AtomicU8 = AtomicU8::new(IDLE);
static BUILT: Mutex<Option<Environment<'static>>> = Mutex::new(None);

/// Builds the environment the process's first engine will take, unless an engine already
/// exists (it built its own) or another thread is building it.
pub fn build_environment_ahead() {
    if STATE
        .compare_exchange(IDLE, BUILDING, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return;
    }
    let env = super::our_environment();
    if let Ok(mut built) = BUILT.lock() {
        *built = Some(env);
    }
    STATE.store(READY, Ordering::Release);
}

/// The environment [`build_environment_ahead`] built, waiting for it if it is still being built; a new one
/// if none was, or it was taken already.
pub(super) fn take_or_build() -> Environment<'static> {
    loop {
        match STATE.compare_exchange(IDLE, GONE, Ordering::Acquire, Ordering::Acquire) {
            // Nothing on offer, now or later.
            Ok(_) | Err(GONE) => return super::our_environment(),
            // The helper is at it on the other core and takes a fraction of a millisecond:
            // less than building a second one here.
            Err(BUILDING) => std::thread::yield_now(),
            Err(_) => {
                if STATE
                    .compare_exchange(READY, GONE, Ordering::Acquire, Ordering::Acquire)
                    .is_ok()
                {
                    let taken = BUILT.lock().ok().and_then(|mut built| built.take());
                    return taken.unwrap_or_else(super::our_environment);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the state is the process's, and tests run on threads of one process.
    #[test]
    fn the_environment_built_ahead_is_taken_once_and_later_engines_build_their_own() {
        build_environment_ahead();
        // Whatever engine another test made first, what is on offer now is taken at most once.
        let first = take_or_build();
        assert_eq!(STATE.load(Ordering::Acquire), GONE);
        assert!(BUILT.lock().map(|built| built.is_none()).unwrap_or(false));
        let second = take_or_build();
        for env in [&first, &second] {
            let rendered = env
                .render_str("{{ \"mesh\" | upper }}", ())
                .expect("our environment renders");
            assert_eq!(rendered, "MESH");
        }
        // A second build ahead, once taken, offers nothing.
        build_environment_ahead();
        assert!(BUILT.lock().map(|built| built.is_none()).unwrap_or(false));
    }
}
