#!/usr/bin/env python3
"""Builds a Helm chart that emits the reference control plane as static templates.

Helm renders it with no template logic at all, so its time is a lower bound on what
`helm template` needs for the real upstream chart (0.43 s here): a conservative baseline.
usage: make-helm-baseline.py REFERENCE.yaml OUT_DIR
"""
import os
import re
import sys

reference, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "templates"), exist_ok=True)
with open(os.path.join(out, "Chart.yaml"), "w") as f:
    f.write("apiVersion: v2\nname: baseline\nversion: 0.1.0\n")
files = {}
current = None
for line in open(reference):
    m = re.match(r"# Source: [^/]+/templates/(.+)$", line)
    if m:
        current = m.group(1)
        files.setdefault(current, []).append("---\n")
        continue
    if line.strip() == "---" or current is None:
        continue
    # Escape Go-template delimiters so Helm emits the text verbatim.
    files[current].append(line.replace("{{", '{{ "{{" }}'))
for name, lines in files.items():
    with open(os.path.join(out, "templates", name), "w") as f:
        f.writelines(lines)
