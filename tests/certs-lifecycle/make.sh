#!/bin/sh
# Makes the certificate folders of this directory with meshchart itself (run once; the files are
# committed as data, so the golden cases that read them have fixed fingerprints). Keys are
# random: running it again changes every fingerprint, and the golden cases need
# `UPDATE_GOLDEN=1 cargo test --test integration certs_lifecycle` after it.
#
# Instants, against the golden instant 2023-11-14T22:13:20Z (SOURCE_DATE_EPOCH=1700000000):
# - kept/      made 2023-01-01: issuer and webhook pairs valid until 2024-01-01 (47 days left)
# - expiring/  made 2022-12-01: issuer and webhook pairs valid until 2023-12-01 (16 days left,
#              within the 30 days render warns in)
# - offline/   kept/ without ca.key (the root kept offline); root.key is that key, elsewhere
# - bundle/    kept/ after `certs rotate-root --phase bundle` on 2023-06-01
set -eu
cd "$(dirname "$0")"
mesh=${MESH:-meshchart}
rm -rf kept expiring offline bundle root.key
for spec in kept:1672531200 expiring:1669852800; do
  name=${spec%%:*}; at=${spec#*:}
  SOURCE_DATE_EPOCH=$at "$mesh" certs create "$name" >/dev/null 2>&1
  # The webhook serving pairs, as render --certs-dir makes them.
  SOURCE_DATE_EPOCH=$at "$mesh" render -n linkerd --certs-dir "$name" >/dev/null 2>&1
done
cp -r kept offline
mv offline/ca.key root.key
cp -r kept bundle
"$mesh" certs rotate-root bundle --phase bundle --now 2023-06-01T00:00:00Z >/dev/null 2>&1
# The output door's record is bookkeeping of a run, not data.
rm -f */.meshchart-outputs
