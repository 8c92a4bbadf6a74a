//! Links the `meshchart` binary at a fixed address (see below). The release lines' charts are
//! embedded by crates/linkerd's build script.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    link_executable_without_pie();
}

/// A position-independent executable makes the dynamic loader relocate every pointer in the
/// binary's data at each start. Linked at a fixed address instead, those are resolved once, by
/// the linker: a whole-process render starts faster and touches fewer pages.
fn link_executable_without_pie() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux") && target.starts_with("x86_64") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
