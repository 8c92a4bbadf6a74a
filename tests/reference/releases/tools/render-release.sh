#!/usr/bin/env bash
# Renders one release's reference cases with real Helm, as stored in ../renders.tar.xz.
# Data only: it runs `helm template` on charts prepared from a linkerd/linkerd2 checkout; it
# builds nothing.
#
# usage: HELM=path/to/helm-3.17.1 render-release.sh LINKERD2_GIT_DIR TAG OUTDIR
#   run from the repository root (certificates are read from tests/certs/).
# Charts are prepared into OUTDIR/charts/ with shared/tools/prepare-upstream-charts.sh (edge tags)
# or tools/prepare-stable-charts.sh (stable-2.14.x), then OUTDIR/{crds,default,ha,overrides}.yaml
# are written, plus the chart's values files.
set -euo pipefail
git_dir=$1 tag=$2 out=$3
HELM=${HELM:-helm}
here=$(cd "$(dirname "$0")" && pwd)
PREP_EDGE=${PREP_EDGE:-$here/../../../../../shared/tools/prepare-upstream-charts.sh}
charts=$out/charts
mkdir -p "$out"
if [[ $tag == stable-* ]]; then "$here/prepare-stable-charts.sh" "$git_dir" "$tag" "$charts" >/dev/null
else bash "$PREP_EDGE" "$git_dir" "$tag" "$charts" >/dev/null; fi
C=tests/certs
ID=(--set-file identityTrustAnchorsPEM=$C/ca.crt --set-file identity.issuer.tls.crtPEM=$C/issuer.crt --set-file identity.issuer.tls.keyPEM=$C/issuer.key)
WH=(--set-file proxyInjector.crtPEM=$C/proxy-injector.crt --set-file proxyInjector.keyPEM=$C/proxy-injector.key
    --set-file profileValidator.crtPEM=$C/sp-validator.crt --set-file profileValidator.keyPEM=$C/sp-validator.key
    --set-file policyValidator.crtPEM=$C/policy-validator.crt --set-file policyValidator.keyPEM=$C/policy-validator.key)
CAB=(--set-file proxyInjector.caBundle=$C/proxy-injector.crt --set-file profileValidator.caBundle=$C/sp-validator.crt --set-file policyValidator.caBundle=$C/policy-validator.crt)
EXT=(--set proxyInjector.externalSecret=true --set profileValidator.externalSecret=true --set policyValidator.externalSecret=true "${CAB[@]}")
HB=(--set 'heartbeatSchedule=1 2 * * *')
# Before edge-25.6.4 (and in every stable-2.14.x) the chart refuses a caBundle without externalSecret.
if grep -q 'if caBundle, injectCaFrom, or injectCaFromSecret is set' "$charts/linkerd-control-plane/charts/partials/templates/_validate.tpl"
then DEF=("${ID[@]}" "${WH[@]}" "${HB[@]}")
else DEF=("${ID[@]}" "${WH[@]}" "${CAB[@]}" "${HB[@]}"); fi
OVR=("${ID[@]}" "${EXT[@]}" "${HB[@]}" --set proxy.await=false,proxy.defaultInboundPolicy=cluster-authenticated,proxy.nativeSidecar=true,controllerReplicas=2)
K=(-n linkerd --kube-version 1.32.0)
CP=$charts/linkerd-control-plane
"$HELM" template linkerd-crds "$charts/linkerd-crds" "${K[@]}" > "$out/crds.yaml"
"$HELM" template linkerd-control-plane "$CP" "${K[@]}" "${DEF[@]}" > "$out/default.yaml"
"$HELM" template linkerd-control-plane "$CP" "${K[@]}" "${DEF[@]}" -f "$CP/values-ha.yaml" > "$out/ha.yaml"
"$HELM" template linkerd-control-plane "$CP" "${K[@]}" "${OVR[@]}" > "$out/overrides.yaml"
cp "$CP/values.yaml" "$out/values.yaml"
cp "$CP/values-ha.yaml" "$out/values-ha.yaml"
cp "$charts/linkerd-crds/values.yaml" "$out/crds-values.yaml"
