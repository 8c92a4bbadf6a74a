#!/usr/bin/env bash
# Remakes the Helm chart corpus from its public sources: the chart archives (into CHARTS, outside
# the repository's history) and Helm 3.17.1's renders of every (chart, value set) with the random
# keys found by rendering three times (../renders.tar.xz, ../renders.sha256 and the `archive`,
# `sha256` and `random` lines of ../corpus.toml). Data only: it runs git, helm and python3.
#
# usage: HELM=path/to/helm-3.17.1 record.sh MIRRORS [CHARTS]
#   MIRRORS  a folder holding a bare git dir per source of corpus.toml, named OWNER+NAME/repo
#            (github.com/OWNER/NAME; the search tool's `fetch` makes exactly this layout)
#   CHARTS   where the chart archives go (default: ../charts, which git ignores)
# Upstream Linkerd's charts are prepared with shared/tools/prepare-upstream-charts.sh
# (PREP_EDGE overrides its path), as tests/reference/releases does.
set -euo pipefail
mirrors=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(dirname "$here")
charts=${2:-$corpus/charts}
HELM=${HELM:-helm}
PREP_EDGE=${PREP_EDGE:-$here/../../../../../shared/tools/prepare-upstream-charts.sh}
version=$("$HELM" version --template '{{.Version}}')
[[ $version == v3.17.1 ]] || { echo "record.sh: $HELM is Helm $version, not v3.17.1" >&2; exit 2; }
mkdir -p "$charts"
charts=$(cd "$charts" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/prepare.py" "$corpus/corpus.toml" "$mirrors" "$charts" "$HELM"
for tag in $(sed -n 's/^ref = "\(edge-[0-9.]*\)"$/\1/p' "$corpus/corpus.toml" | sort -u); do
  bash "$PREP_EDGE" "$mirrors/linkerd+linkerd2/repo" "$tag" "$work/linkerd/$tag" >/dev/null
  for chart in linkerd-crds linkerd-control-plane; do
    "$HELM" package "$work/linkerd/$tag/$chart" -d "$charts" >/dev/null
  done
done

python3 "$here/record.py" "$corpus/corpus.toml" "$charts" "$work/renders" "$HELM"
(cd "$work/renders" && find . -type f | sed 's,^\./,,' | LC_ALL=C sort | xargs sha256sum) > "$corpus/renders.sha256"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=2026-01-01 --format=gnu \
  -C "$work/renders" -cf - $(cd "$work/renders" && ls) | xz -9e > "$corpus/renders.tar.xz"
echo "charts: $(du -sh "$charts" | cut -f1) in $charts; renders.tar.xz: $(du -h "$corpus/renders.tar.xz" | cut -f1)"
