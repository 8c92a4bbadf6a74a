#!/usr/bin/env bash
# The training run of bench/build-dist.sh's profile-guided build: what users run most, run by the
# instrumented executable MESHCHART, which counts the branches and calls it takes. Both charts of
# every template era's line (the control plane with the pinned material of tests/certs, then
# with --ha, then with other proxy settings), the 2021 line, and inject of eleven golden inputs.
# Everything it reads is in the repository; it takes a few seconds.
#
# usage: bench/pgo-train.sh MESHCHART   (the profile goes where LLVM_PROFILE_FILE says)
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=$1
export SOURCE_DATE_EPOCH=1700000000
certs=(
  --set-file identityTrustAnchorsPEM=tests/certs/ca.crt
  --set-file identity.issuer.tls.crtPEM=tests/certs/issuer.crt
  --set-file identity.issuer.tls.keyPEM=tests/certs/issuer.key
)
webhooks=()
for hook in proxyInjector:proxy-injector profileValidator:sp-validator policyValidator:policy-validator; do
  key=${hook%%:*} file=tests/certs/${hook#*:}
  webhooks+=(--set-file "$key.crtPEM=$file.crt" --set-file "$key.keyPEM=$file.key")
done
# Each command must succeed: a training run that only met errors would guide the build
# towards error paths.
for _round in 1 2 3; do
  for line in edge-24.10.2 edge-25.6.2 edge-25.8.2 edge-25.11.2 edge-26.8.3 stable-2.14.10; do
    "$mesh" render --linkerd "$line" --crds --namespace linkerd >/dev/null
    "$mesh" render --linkerd "$line" --namespace linkerd "${certs[@]}" "${webhooks[@]}" \
      --set "heartbeatSchedule=1 2 * * *" >/dev/null 2>&1
    "$mesh" render --linkerd "$line" --namespace linkerd "${certs[@]}" --ha >/dev/null 2>&1
  done
  "$mesh" render --linkerd edge-21.4.4 --kube-version 1.24.0 "${certs[@]}" >/dev/null 2>&1
  "$mesh" render --namespace linkerd "${certs[@]}" --set proxy.nativeSidecar=true \
    --set proxy.logLevel=debug >/dev/null 2>&1
  # The golden inject cases that succeed with the trust anchors alone (the others test errors,
  # or need their case's own flags).
  for case in deployment daemonset cronjob job pod list multi-container-init native-sidecar-deployment \
    headless-not-ready-peers job-proxy-shutdown job-native-sidecar; do
    for input in tests/golden/inject*/"$case"/input.yaml; do
      "$mesh" inject "$input" --set-file identityTrustAnchorsPEM=tests/certs/ca.crt >/dev/null 2>&1
    done
  done
done
