//! In-process render time of the embedded control plane: compile once, render many times.
//!
//! `cargo bench --bench render` prints the median and spread of `render_with` (the helper thread
//! renders templates beside the caller's), and of the same render on the caller's thread alone
//! (`render_with_kept`, as a fleet's workers call it), the two run by turns; the target is under
//! 1 ms a render. This one allocates with the system's allocator, as a program using the
//! library does unless it says otherwise; `render_shipped_allocator` times the same with the
//! binary's.

#[path = "support/render_timing.rs"]
mod render_timing;

fn main() {
    println!("allocator: the system's (glibc malloc on Linux)");
    render_timing::run();
}
