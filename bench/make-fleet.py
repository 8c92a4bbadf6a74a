#!/usr/bin/env python3
"""Writes a fleet folder of N clusters (`cluster-NNN.yaml`) for the fleet benchmark.

The clusters differ as a platform team's do: cluster domain, log level, HA replicas and the
proxy's resources vary; identity material comes from flags shared by the whole fleet.

usage: make-fleet.py DIR N
"""
import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
for i in range(n):
    ha = i % 4 == 0
    with open(os.path.join(out, f"cluster-{i:03}.yaml"), "w") as f:
        f.write(f"""# cluster {i}
clusterDomain: c{i}.example.org
controllerLogLevel: {"debug" if i % 5 == 0 else "info"}
controllerReplicas: {3 if ha else 1}
enablePodAntiAffinity: {"true" if ha else "false"}
proxy:
  logLevel: warn,linkerd=info
  resources:
    cpu:
      request: {100 + i % 7 * 50}m
    memory:
      request: {20 + i % 3 * 10}Mi
""")
