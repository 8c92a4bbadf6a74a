#!/usr/bin/env bash
# Builds what we ship and benchmark, and prints the executable's path: `cargo build --profile
# dist` (fat LTO, opt-level 3 everywhere). On x86_64 Linux the executable is also linked
# statically against musl at a fixed address: no dynamic loader, no shared libraries to map and
# relocate at each start (static glibc made a whole-process render 0.85x the time), and none of
# glibc's start-up, which runs about a hundred `cpuid` instructions to size the caches, each an
# exit to the hypervisor on a virtual machine (0.45 ms of every process on ours; src/copy.rs
# says more, and replaces musl's slow memcpy). It needs an explicit --target, so build scripts
# and proc-macros stay native; the executable lands in target/x86_64-unknown-linux-musl/dist/.
# The target's standard library comes from rustup (added here when missing); ring's few C files
# are compiled by the system's gcc, and Rust's own lld links (its gcc-ld wrapper), since it
# reads the symbol order. The executable's code starts with the functions a render and an inject
# run, in one block (bench/hot-symbols.txt, from bench/hot-text.sh): a whole line (both charts)
# took 0.95x the time. DYNAMIC=1 builds the ordinary dynamic executable.
#
# The static executable is also optimised from a profile of its own runs: an instrumented build
# (the pgo-training feature, in a target folder of its own) runs bench/pgo-train.sh, LLVM's
# llvm-profdata (rustup's llvm-tools, added here when missing) merges what it counted, and the
# executable is built again with it, so that the compiler lays out and inlines for the branches a
# render takes. Paired against the same code built without it, both executables freshly copied
# (a copy's page-cache state alone moved a render by up to 0.89x here): a control plane took
# 0.898x the time, a CRD chart 1.015x. It doubles the build time; NO_PGO=1 leaves it out.
#
# usage: bench/build-dist.sh   (PROFILE=NAME for another profile; CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-dist}
target_dir=${CARGO_TARGET_DIR:-target}
if [[ "$(uname -s)-$(uname -m)" == Linux-x86_64 && -z ${DYNAMIC:-} ]]; then
  target=x86_64-unknown-linux-musl
  if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    rustup target add "$target" >&2
  fi
  host=$(rustc -vV | sed -n 's/^host: //p')
  gcc_ld="$(rustc --print sysroot)/lib/rustlib/$host/bin/gcc-ld"
  # The functions a render runs, gathered at the start of the code (bench/hot-text.sh says how
  # the list is made and why).
  static_flags="-C target-feature=+crt-static -C relocation-model=static \
-C link-arg=-B$gcc_ld -C link-arg=-fuse-ld=lld \
-C link-arg=-Wl,--symbol-ordering-file=$PWD/bench/hot-symbols.txt \
-C link-arg=-Wl,--no-warn-symbol-ordering"
  export CC_x86_64_unknown_linux_musl=${CC_x86_64_unknown_linux_musl:-gcc}
  pgo_flags=
  if [[ -z ${NO_PGO:-} ]]; then
    if ! rustup component list --installed 2>/dev/null | grep -q '^llvm-tools'; then
      rustup component add llvm-tools >&2
    fi
    profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
    training_dir="$target_dir/pgo-training"
    # A fixed folder, so that the flags stay the same from one build to the next and cargo
    # rebuilds only what changed; the counts of an earlier training go first.
    mkdir -p "$target_dir"
    profiles="$(cd "$target_dir" && pwd)/pgo-profile"
    rm -rf "$profiles"
    mkdir -p "$profiles"
    RUSTFLAGS="$static_flags -C profile-generate=$profiles" CARGO_TARGET_DIR="$training_dir" \
      cargo build --profile "$profile" --target "$target" --features pgo-training --quiet
    LLVM_PROFILE_FILE="$profiles/%m.profraw" \
      bench/pgo-train.sh "$training_dir/$target/$profile/meshchart"
    "$profdata" merge -o "$profiles/merged.profdata" "$profiles"/*.profraw
    # A function the profile does not know (the training feature's few lines) is no error.
    pgo_flags="-C profile-use=$profiles/merged.profdata -C llvm-args=-no-pgo-warn-mismatch"
  fi
  RUSTFLAGS="$static_flags $pgo_flags" cargo build --profile "$profile" --target "$target" --quiet
  echo "$target_dir/$target/$profile/meshchart"
else
  cargo build --profile "$profile" --quiet
  echo "$target_dir/$profile/meshchart"
fi
