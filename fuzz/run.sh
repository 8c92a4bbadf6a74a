#!/bin/sh
# Runs one fuzz target for SECONDS (default 600) with the settings fuzz/README.md gives: one
# worker process, 2 GB memory cap, 10 s per input. libFuzzer's own log (with the final stats)
# ends up in fuzz/logs/TARGET.log, cargo's in fuzz/logs/TARGET.cargo.log.
set -u
target=$1
seconds=${2:-600}
cd "$(dirname "$0")"
mkdir -p logs "corpus/$target"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
rm -f fuzz-0.log
cargo fuzz run -O "$target" "corpus/$target" -- \
    -jobs=1 -workers=1 -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 >"logs/$target.cargo.log" 2>&1
status=$?
[ -f fuzz-0.log ] && mv fuzz-0.log "logs/$target.log"
exit $status
