#!/usr/bin/env bash
# Adapted copy of shared/tools/prepare-upstream-charts.sh for stable-2.14.x tags: stable charts carry
# their published version in Chart.yaml (1.8.0 / 1.16.x), so only appVersion (helm package
# --app-version TAG in bin/helm-build) and linkerdVersionValue (setValues in bin/helm-build) are set.
# usage: prepare-stable-charts.sh LINKERD2_GIT_DIR TAG DEST
set -euo pipefail
git_dir=$1 tag=$2 dest=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$git_dir" archive "$tag" charts | tar -x -C "$work"
mkdir -p "$dest"
for c in linkerd-crds linkerd-control-plane; do
  mkdir -p "$work/charts/$c/charts"
  cp -r "$work/charts/partials" "$work/charts/$c/charts/"
  rm -f "$work/charts/$c/Chart.lock"
  [[ $c == linkerd-control-plane ]] && sed -i "s/^appVersion: edge-XX.X.X/appVersion: $tag/" "$work/charts/$c/Chart.yaml"
  [[ -f $work/charts/$c/values.yaml ]] && sed -i "s/linkerdVersionValue/$tag/" "$work/charts/$c/values.yaml"
  rm -rf "${dest:?}/$c"
  cp -r "$work/charts/$c" "$dest/$c"
done
echo "$dest"
