//! Ceilings on the whole process's heap and running time: the last line of defence against input
//! that makes us build something enormous or work forever.
//!
//! Every input is capped at the door ([`crate::input`]) and templates run on a step and data
//! budget, but a template can still ask minijinja for work no budget sees: past minijinja's lazy
//! depth (32), doubling a list with `+` sizes and copies the whole list inside one uncharged
//! operation. Rather than let such a run take the machine, the binary installs
//! [`CappedAllocator`] (once the live heap would pass the ceiling, 4 GiB or
//! `MESHCHART_MAX_MEMORY`, plus the arena's fixed 32 MiB region, it says so on stderr and
//! stops) and [`start_deadline`] (after 10 minutes, or `MESHCHART_MAX_SECONDS`, likewise). A control-plane render needs under 16 MiB
//! and a few milliseconds. Both stop the process before it writes a partial render.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

pub use meshchart_helm::limits::{
    FUEL_PER_RENDER, MAX_LIST_ITEMS, MAX_NESTING, MAX_STRING_BYTES, TEMPLATE_DATA_BYTES,
};

/// The environment variable that sets the heap ceiling.
pub const MAX_MEMORY_ENV: &str = "MESHCHART_MAX_MEMORY";

/// The ceiling when the environment sets none.
pub const DEFAULT_MAX_MEMORY: usize = 4 << 30;

/// Live bytes, as flushed by the threads (see [`UNCOUNTED`]); may dip below zero in between.
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static CEILING: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_MEMORY);

/// How far a thread's own count may run before it is added to [`LIVE_BYTES`].
const FLUSH_BYTES: isize = 256 << 10;

thread_local! {
    /// Bytes this thread allocated (freed, if negative) and has not yet added to the shared
    /// count: updating one counter on every allocation had two rendering threads fight over its
    /// cache line. The ceiling is checked on every flush, so it holds to within this slack.
    static UNCOUNTED: Cell<isize> = const { Cell::new(0) };
}

/// The process's allocator: small blocks from [`crate::arena`], the rest from the system's, and
/// no growing the system's live blocks past the ceiling (the arena adds its fixed region).
pub struct CappedAllocator;

impl CappedAllocator {
    fn admit(size: usize) {
        let size = isize::try_from(size).unwrap_or(isize::MAX);
        if let Some(bytes) = Self::count(size) {
            let live = LIVE_BYTES
                .fetch_add(bytes, Ordering::Relaxed)
                .saturating_add(bytes);
            if usize::try_from(live).is_ok_and(|live| live > CEILING.load(Ordering::Relaxed)) {
                exceeded();
            }
        }
    }

    fn release(size: usize) {
        let size = isize::try_from(size).unwrap_or(isize::MAX);
        if let Some(bytes) = Self::count(-size) {
            LIVE_BYTES.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Adds `bytes` (negative when freed) to this thread's count; returns what is due to the
    /// shared count once it runs past [`FLUSH_BYTES`] either way (at once without a count).
    fn count(bytes: isize) -> Option<isize> {
        UNCOUNTED
            .try_with(|uncounted| {
                let pending = uncounted.get().saturating_add(bytes);
                let due = !(-FLUSH_BYTES + 1..FLUSH_BYTES).contains(&pending);
                uncounted.set(if due { 0 } else { pending });
                due.then_some(pending)
            })
            .unwrap_or(Some(bytes))
    }
}

/// Stops the process with a message; no allocation happens here (we are inside the allocator).
#[cold]
fn exceeded() -> ! {
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(
        b"error: meshchart needed more memory than its ceiling allows (4 GiB unless MESHCHART_MAX_MEMORY says otherwise): \
          an input or a template builds something enormous (a list or string doubled in a loop?); \
          nothing was written\n",
    );
    std::process::abort()
}

// SAFETY: every block comes from the arena or from `System` and goes back to the one that owns
// its address, with the layout it was allocated with; the counter only observes sizes.
unsafe impl GlobalAlloc for CappedAllocator {
    // Only the system allocator's blocks are counted: the arena is one region of fixed size
    // (32 MiB), so its blocks cannot grow the heap far, and counting each of them cost a
    // sixteenth of inject's instructions.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = crate::arena::alloc(layout);
        if !block.is_null() {
            return block;
        }
        Self::admit(layout.size());
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires it.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = crate::arena::alloc(layout);
        if block.is_null() {
            Self::admit(layout.size());
            // SAFETY: forwarded unchanged.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: the arena block has at least layout.size() bytes; reused blocks are not zero.
        unsafe { std::ptr::write_bytes(block, 0, layout.size()) };
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if crate::arena::owns(ptr) {
            // SAFETY: an arena block, with the layout it was allocated with.
            unsafe { crate::arena::free(ptr, layout) }
        } else {
            // SAFETY: a System block, with its layout.
            unsafe { System.dealloc(ptr, layout) }
            Self::release(layout.size());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !crate::arena::owns(ptr) {
            if new_size > layout.size() {
                Self::admit(new_size - layout.size());
            } else {
                Self::release(layout.size() - new_size);
            }
            // SAFETY: a System block, with its layout, as GlobalAlloc::realloc requires.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        if crate::arena::fits_in_place(layout.size(), new_size) {
            return ptr;
        }
        // SAFETY: GlobalAlloc::realloc promises new_size, rounded to the alignment, fits a Layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a new block for the new layout (counted when the system's); the old one is
        // copied (as much as both hold) and then returned to the arena, which owns it.
        unsafe {
            let moved = self.alloc(new_layout);
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                crate::arena::free(ptr, layout);
            }
            moved
        }
    }
}

/// The environment variable that sets the running-time ceiling, in seconds.
pub const MAX_SECONDS_ENV: &str = "MESHCHART_MAX_SECONDS";

/// The running-time ceiling when the environment sets none.
pub const DEFAULT_MAX_SECONDS: u64 = 600;

/// What the deadline prints; written before the alarm is set, read by its signal handler.
static DEADLINE_MESSAGE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Starts a watchdog that stops the process, with a message, once it has run for the ceiling
/// ([`MAX_SECONDS_ENV`], else [`DEFAULT_MAX_SECONDS`]); an unreadable value is an error naming it.
///
/// The watchdog is the kernel's alarm clock rather than a thread: a whole render takes a few
/// milliseconds, and starting a thread (its stack, its own heap arena) was a measurable share.
pub fn start_deadline() -> Result<(), String> {
    let seconds = match std::env::var_os(MAX_SECONDS_ENV) {
        None => DEFAULT_MAX_SECONDS,
        Some(text) => {
            let text = text.to_string_lossy();
            text.trim()
                .parse::<u64>()
                .ok()
                .filter(|&s| s > 0 && s <= u64::from(u32::MAX))
                .ok_or_else(|| {
                    format!("{MAX_SECONDS_ENV}={text:?}: not a whole number of seconds")
                })?
        }
    };
    DEADLINE_MESSAGE.get_or_init(|| {
        format!(
            "error: meshchart ran for {seconds} s, its time limit ({MAX_SECONDS_ENV}): an input \
             or a template asks for endless work (a list doubled in a loop?); nothing more is \
             written\n"
        )
        .into_bytes()
    });
    let handler: extern "C" fn(libc::c_int) = deadline_reached;
    // SAFETY: the handler only reads an initialised static, then calls write(2) and abort(3),
    // both async-signal-safe.
    unsafe {
        if libc::signal(libc::SIGALRM, handler as libc::sighandler_t) == libc::SIG_ERR {
            return Err("cannot start the deadline watchdog: signal(SIGALRM) failed".to_owned());
        }
        libc::alarm(u32::try_from(seconds).unwrap_or(u32::MAX));
    }
    Ok(())
}

extern "C" fn deadline_reached(signal: libc::c_int) {
    static FIRST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    let first = FIRST.swap(false, std::sync::atomic::Ordering::SeqCst);
    if first {
        if let Some(message) = DEADLINE_MESSAGE.get() {
            // SAFETY: a valid buffer and its length; a short write only shortens the message.
            unsafe {
                libc::write(2, message.as_ptr().cast(), message.len());
            }
        }
        // Staging a run was filling is removed by the output door's cleanup thread, which
        // then aborts; should it not within two seconds, the next alarm aborts here.
        if crate::output::notify_from_signal(signal) {
            // SAFETY: alarm(2) is async-signal-safe.
            unsafe {
                libc::alarm(2);
            }
            return;
        }
    }
    std::process::abort()
}

/// Sets the ceiling from [`MAX_MEMORY_ENV`] (a size as [`crate::input::parse_size`] reads it);
/// an unreadable value is an error naming it.
pub fn set_ceiling_from_env() -> Result<(), String> {
    let Some(text) = std::env::var_os(MAX_MEMORY_ENV) else {
        return Ok(());
    };
    let text = text.to_string_lossy();
    let bytes = crate::input::parse_size(&text)
        .and_then(|b| usize::try_from(b).ok())
        .filter(|&b| b > 0)
        .ok_or_else(|| {
            format!("{MAX_MEMORY_ENV}={text:?}: not a size (a byte count, or with KiB, MiB or GiB)")
        })?;
    CEILING.store(bytes, Ordering::Relaxed);
    Ok(())
}

/// What a thread that ran out of stack says before the process ends.
const STACK_OVERFLOW_MESSAGE: &[u8] = b"error: meshchart ran out of stack (SIGSEGV): a template \
    built a value nested too deeply to print (lists or maps inside each other, far past 10,000 \
    levels); nothing was written\n";

/// Makes running out of a thread's stack end the process with a clear error and exit code 1,
/// not an abort. Values we read or convert are bounded ([`MAX_NESTING`]), but minijinja prints
/// a value a template built (`~`, `string`) by recursing through it, and the fuel lets a
/// template nest one far deeper than any stack we reserve ([`crate::parallel::STACK_BYTES`]).
/// Outputs are written only once complete (through [`crate::output`]), so nothing is left half
/// written. Runs on the signal stack Rust's runtime gives every thread it starts.
pub fn catch_stack_overflow() {
    #[cfg(unix)]
    // SAFETY: installs a handler that only calls async-signal-safe functions (write, _exit).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_stack_overflow as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(unix)]
extern "C" fn on_stack_overflow(
    _signal: libc::c_int,
    _info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: write and _exit are async-signal-safe; the message is a static.
    unsafe {
        libc::write(
            2,
            STACK_OVERFLOW_MESSAGE.as_ptr().cast(),
            STACK_OVERFLOW_MESSAGE.len(),
        );
        libc::_exit(1);
    }
}
