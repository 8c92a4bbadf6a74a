#!/usr/bin/env bash
# Writes bench/hot-symbols.txt: the functions a render and an inject run, hottest first, which
# bench/build-dist.sh hands the linker (--symbol-ordering-file) to place in one block at the start
# of the shipped executable's code.
#
# Why: a render runs about 1,500 of the binary's functions, and where the linker leaves them they
# are spread over its 8.7 MB of code: a process faults in a hundred 64 KiB windows of it and
# misses the TLB on many more pages. Gathered, a CRD render took 108 page faults instead of 162.
#
# How: each command runs once under valgrind's callgrind with names left mangled; every function
# that ran is listed, ordered by the instructions it ran in the command that ran it most. The
# names are exact (a mangled name's hash is fixed by the crate, its version and dependencies, the
# profile, the target and the compiler, not by the code), so the list fits the executable
# build-dist.sh builds with the same toolchain and Cargo.lock; a name the executable lacks (a
# function renamed since, another compiler) is skipped by the linker, and a function added since
# is left where the linker puts it. Rerun after changing which functions a render runs, or the
# toolchain. The next bench/build-dist.sh links with the new list.
#
# usage: bench/hot-text.sh [MESHCHART]   (default: the executable bench/build-dist.sh builds)
# Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "hot-text.sh: needs valgrind" >&2; exit 2; }
mesh=${1:-}
if [[ -z $mesh ]]; then
  mesh=$(bench/build-dist.sh)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000
certs=(
  --set-file identityTrustAnchorsPEM=tests/certs/ca.crt
  --set-file identity.issuer.tls.crtPEM=tests/certs/issuer.crt
  --set-file identity.issuer.tls.keyPEM=tests/certs/issuer.key
)
for hook in proxyInjector:proxy-injector profileValidator:sp-validator policyValidator:policy-validator; do
  certs+=(--set-file "${hook%%:*}.crtPEM=tests/certs/${hook#*:}.crt"
    --set-file "${hook%%:*}.keyPEM=tests/certs/${hook#*:}.key")
done
python3 bench/make-workloads.py 200 --seed 1 >"$work/workloads.yaml"
run() {
  local name=$1
  shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" \
    "$mesh" "$@" >/dev/null 2>"$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
}
for line in edge-24.10.2 edge-26.8.3; do
  run "crds-$line" render --linkerd "$line" --crds --namespace linkerd
  run "cp-$line" render --linkerd "$line" --namespace linkerd "${certs[@]}"
  run "ha-$line" render --linkerd "$line" --namespace linkerd --ha "${certs[@]}"
done
run inject inject "$work/workloads.yaml" --set-file identityTrustAnchorsPEM=tests/certs/ca.crt
python3 - "$work"/*.out >bench/hot-symbols.txt <<'PY'
import re, sys
# Exclusive instructions per function, summed over a profile's threads; per name, the most
# any one profile ran.
cost = {}
for path in sys.argv[1:]:
    names, here, current, call_cost_next = {}, {}, None, False
    for line in open(path, encoding="utf-8", errors="replace"):
        # Names are compressed: "(id) name" the first time, in fn= or cfn= lines, "(id)" after.
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                current = names.get(m.group(2))
            continue
        if line.startswith("calls="):
            # The next cost line is the call's inclusive cost, not this function's own.
            call_cost_next = True
            continue
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            if call_cost_next:
                call_cost_next = False
            elif current:
                here[current] = here.get(current, 0) + int(parts[1])
    for name, instructions in here.items():
        cost[name] = max(cost.get(name, 0), instructions)

for name, _ in sorted(cost.items(), key=lambda kv: (-kv[1], kv[0])):
    if not name.startswith("0x"):
        print(name)
PY
echo "bench/hot-symbols.txt: $(wc -l <bench/hot-symbols.txt) functions" >&2
# Cargo relinks when the code changes, not when this list does (build-dist.sh names the file in
# RUSTFLAGS, which stay the same): touch the binary's root so that the next build links with it.
touch src/main.rs
