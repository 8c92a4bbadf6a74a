//! Checks of identity material that passed recently on this thread, by their exact inputs.
//!
//! A fleet's clusters share their identity material (flags given to the whole fleet), so each
//! cluster would parse the same certificates and check the same issuer again; comparing the
//! texts with those that passed before costs a small part of that. Failures are never kept:
//! they run again and report with their own origin.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Checks kept per kind and thread, the most recent first.
const KEPT: usize = 8;
/// Inputs larger than this (all texts together) are checked every time.
const LARGEST_INPUTS: usize = 256 << 10;

/// Inputs of checks that passed, with what each gave.
pub(crate) type Passes<V> = RefCell<Vec<(Box<[Box<str>]>, V)>>;

/// What `check` gives for `inputs`: remembered from an earlier pass on this thread with the
/// same inputs, or run now (and remembered when it passes).
pub(crate) fn passed<V: Clone, E>(
    passes: &'static LocalKey<Passes<V>>,
    inputs: &[&str],
    check: impl FnOnce() -> Result<V, E>,
) -> Result<V, E> {
    let same = |kept: &[Box<str>]| {
        kept.len() == inputs.len() && kept.iter().zip(inputs).all(|(k, i)| **k == **i)
    };
    let known = passes.with(|passes| {
        let mut passes = passes.borrow_mut();
        let at = passes.iter().position(|(kept, _)| same(kept))?;
        let hit = passes.remove(at);
        let value = hit.1.clone();
        passes.insert(0, hit);
        Some(value)
    });
    if let Some(value) = known {
        return Ok(value);
    }
    let value = check()?;
    if inputs.iter().map(|i| i.len()).sum::<usize>() <= LARGEST_INPUTS {
        passes.with(|passes| {
            let mut passes = passes.borrow_mut();
            passes.insert(
                0,
                (inputs.iter().map(|&i| i.into()).collect(), value.clone()),
            );
            passes.truncate(KEPT);
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static LENGTHS: Passes<usize> = const { RefCell::new(Vec::new()) };
    }

    fn length(text: &str, runs: &Cell<u32>) -> Result<usize, String> {
        passed(&LENGTHS, &[text], || {
            runs.set(runs.get() + 1);
            if text.is_empty() {
                Err("empty".to_owned())
            } else {
                Ok(text.len())
            }
        })
    }

    #[test]
    fn a_pass_is_remembered_for_the_same_inputs_only() {
        let runs = Cell::new(0);
        assert_eq!(length("abc", &runs), Ok(3));
        assert_eq!(length("abc", &runs), Ok(3));
        assert_eq!(runs.get(), 1);
        assert_eq!(length("abcd", &runs), Ok(4));
        assert_eq!(runs.get(), 2);
    }

    #[test]
    fn a_failure_runs_again() {
        let runs = Cell::new(0);
        assert!(length("", &runs).is_err());
        assert!(length("", &runs).is_err());
        assert_eq!(runs.get(), 2);
    }

    #[test]
    fn inputs_split_differently_are_different_inputs() {
        thread_local! {
            static JOINED: Passes<String> = const { RefCell::new(Vec::new()) };
        }
        let join = |parts: &[&str]| passed(&JOINED, parts, || Ok::<_, ()>(parts.join("|")));
        assert_eq!(join(&["ab", "c"]), Ok("ab|c".to_owned()));
        assert_eq!(join(&["a", "bc"]), Ok("a|bc".to_owned()));
    }
}
