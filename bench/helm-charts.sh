#!/usr/bin/env bash
# The Helm chart corpus side by side (issue #36): for each chart of
# tests/reference/helm-charts/corpus.toml, with its default values, whole-process
# `meshchart render` vs `helm template` of the same archive, release name and namespace, in
# alternating paired runs (bench/paired.py's method); per chart the paired ratio (Helm's time
# over meshchart's) and meshchart's peak RSS (GNU time, %M), then the median and the minimum
# ratio and the largest peak RSS. A chart meshchart cannot render yet is named and left out.
#
# usage: bench/helm-charts.sh [CHART_ID...]   (default: every chart)
#   RUNS=N         paired rounds per chart (default 10; 3 warm-up rounds first)
#   HELM=PATH      Helm 3.17.1 (default: installed by ../shared/tools/get-helm.sh)
#   MESH=PATH      measure this meshchart executable instead of building one
#   PROFILE=NAME   cargo profile to build (default dist, as bench/compare.sh)
#   MESHCHART_HELM_CHARTS=DIR  the chart archives (default tests/reference/helm-charts/charts,
#                  made by tests/reference/helm-charts/tools/record.sh)
# Needs python3 and GNU time (/usr/bin/time, Debian package `time`). The machine is noisy:
# trust the paired ratios, and note the load (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-dist}
mesh=${MESH:-$(PROFILE=$profile bench/build-dist.sh)}
[[ -n ${MESH:-} ]] && profile="given (MESH)"
helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
charts=${MESHCHART_HELM_CHARTS:-tests/reference/helm-charts/charts}
linking=$(file -b "$mesh" 2>/dev/null | grep -o 'statically linked\|dynamically linked' || true)
echo "load: $(uptime | sed 's/.*load average/load average/'), $(nproc) cores"
echo "meshchart: $mesh ($("$mesh" --version), profile $profile${linking:+, $linking}); helm: $helm ($("$helm" version --short))"
exec python3 bench/helm_charts.py --runs "${RUNS:-10}" --mesh "$mesh" --helm "$helm" --charts "$charts" "$@"
