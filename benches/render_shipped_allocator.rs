//! `benches/render.rs` with the allocator the meshchart binary installs
//! ([`meshchart::limits::CappedAllocator`], small blocks from the per-thread huge-page arena):
//! what a render costs inside the shipped executable, and in a program that installs it too.

#[path = "support/render_timing.rs"]
mod render_timing;

#[global_allocator]
static ALLOCATOR: meshchart::limits::CappedAllocator = meshchart::limits::CappedAllocator;

fn main() {
    meshchart::arena::start();
    println!("allocator: meshchart::limits::CappedAllocator (the binary's)");
    render_timing::run();
}
