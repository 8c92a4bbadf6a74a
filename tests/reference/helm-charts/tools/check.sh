#!/usr/bin/env bash
# Checks a meshchart binary against the Helm chart corpus: PASS/FAIL per chart and value set with
# the first differing lines, then totals. usage: check.sh BIN [check.py options...]
exec python3 "$(dirname "$0")/check.py" "$@"
