//! What a process that renders one chart and then exits may leave to the system.
//!
//! Freeing a render's parsed templates, its compiled environment and its values node by node
//! hands memory back just before the system takes the whole process back anyway: for a Go
//! chart with subcharts, about a twentieth of the process's instructions; for an embedded
//! control plane, 0.23 ms of a 4 ms render, on the thread the process waits for. The command
//! line's `render` asks for this ([`keep_until_exit`]); renders then leave those structures
//! allocated instead of dropping them.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether renders leave what they built to the process's end.
static KEPT_UNTIL_EXIT: AtomicBool = AtomicBool::new(false);

/// Asks every later render to leave its parsed templates, compiled environment and values
/// unfreed, for a process that renders one chart and then exits. A caller that goes on
/// rendering (a fleet, a library user) must not ask this: each render's structures would stay
/// allocated.
pub fn keep_until_exit() {
    KEPT_UNTIL_EXIT.store(true, Ordering::Relaxed);
}

/// Whether [`keep_until_exit`] was asked.
pub fn kept_until_exit() -> bool {
    KEPT_UNTIL_EXIT.load(Ordering::Relaxed)
}

/// Drops `value`, or leaves it allocated until the process ends when [`keep_until_exit`] was
/// asked.
pub fn release<T>(value: T) {
    if kept_until_exit() {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct CountsDrops<'a>(&'a AtomicUsize);

    impl Drop for CountsDrops<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    // One test: the setting is the process's, and once asked it cannot be taken back.
    #[test]
    fn a_released_value_is_dropped_until_the_process_asks_to_keep_what_it_renders() {
        let drops = AtomicUsize::new(0);
        if !kept_until_exit() {
            release(CountsDrops(&drops));
            assert_eq!(drops.load(Ordering::Relaxed), 1);
        }
        keep_until_exit();
        let before = drops.load(Ordering::Relaxed);
        release(CountsDrops(&drops));
        assert_eq!(drops.load(Ordering::Relaxed), before);
        assert!(kept_until_exit());
    }
}
