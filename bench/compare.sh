#!/usr/bin/env bash
# Whole-process render: meshchart vs `helm template`, side by side in one run (hyperfine),
# plus peak memory (GNU time). The machine is noisy: compare the ratio, not absolute times.
#
# usage: bench/compare.sh            (needs hyperfine; installs Helm via ../shared/tools/get-helm.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --quiet
helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/make-helm-baseline.py ../shared/reference/pr5967-default.yaml "$work/baseline"

export SOURCE_DATE_EPOCH=1700000000
mesh="target/release/meshchart render --certs-dir tests/certs"
helm_cmd="$helm template linkerd $work/baseline --namespace linkerd"
$mesh >/dev/null
$helm_cmd >/dev/null

hyperfine -N --warmup 10 --runs ${RUNS:-100} \
  --command-name "meshchart render" "$mesh" \
  --command-name "helm template (static baseline)" "$helm_cmd" \
  --export-json "$work/times.json" | tee "$work/hyperfine.txt"

python3 - "$work/times.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
mesh, helm = r[0], r[1]
print(f"\nmedian: meshchart {mesh['median']*1e3:.2f} ms, helm {helm['median']*1e3:.1f} ms, "
      f"helm/meshchart = {helm['median']/mesh['median']:.0f}x")
PY

peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
echo "peak RSS: meshchart $(peak $mesh) KiB, helm $(peak $helm_cmd) KiB"
