#!/usr/bin/env bash
# Builds what we ship and benchmark, and prints the executable's path: `cargo build --profile
# dist` (fat LTO, opt-level 3 everywhere). On x86_64 Linux the executable is also linked
# statically (glibc's libc.a, from Debian's libc6-dev, which a Rust toolchain on Linux needs
# anyway) at a fixed address: no dynamic loader, no shared libraries to map and relocate at each
# start, which made a whole-process render 0.85x the time (bench/paired.py, 80 rounds). It needs
# an explicit --target, so build scripts and proc-macros stay dynamic; the executable lands in
# target/x86_64-unknown-linux-gnu/dist/. Its code starts with the functions a render and an inject
# run, in one block (bench/hot-symbols.txt, from bench/hot-text.sh): a whole line (both charts)
# takes 0.95x the time. DYNAMIC=1 builds the ordinary dynamic executable.
#
# usage: bench/build-dist.sh   (PROFILE=NAME for another profile; CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-dist}
target_dir=${CARGO_TARGET_DIR:-target}
if [[ "$(uname -s)-$(uname -m)" == Linux-x86_64 && -z ${DYNAMIC:-} ]]; then
  # The functions a render runs, gathered at the start of the code (bench/hot-text.sh says how
  # the list is made and why); rust-lld, the linker Rust uses here, reads the list.
  RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static \
-C link-arg=-Wl,--symbol-ordering-file=$PWD/bench/hot-symbols.txt \
-C link-arg=-Wl,--no-warn-symbol-ordering" \
    cargo build --profile "$profile" --target x86_64-unknown-linux-gnu --quiet
  echo "$target_dir/x86_64-unknown-linux-gnu/$profile/meshchart"
else
  cargo build --profile "$profile" --quiet
  echo "$target_dir/$profile/meshchart"
fi
