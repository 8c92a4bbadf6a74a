#!/usr/bin/env python3
"""Writes a stream of N mixed workloads (about 2 KB each) for the inject benchmark.

Kinds rotate through Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod and ReplicaSet; every
tenth workload is followed by a Service that passes through untouched; twenty namespaces, a few carrying
config.linkerd.io annotations, open the stream; one workload in seven tunes its proxy by
annotation, so inject meets a handful of distinct proxy configurations, as in a real repository.

usage: make-workloads.py N > workloads.yaml
"""
import sys

n = int(sys.argv[1])
out = sys.stdout
NAMESPACES = 20
for i in range(NAMESPACES):
    out.write(f"""---
apiVersion: v1
kind: Namespace
metadata:
  name: team-{i}
""")
    if i % 5 == 0:
        out.write("""  annotations:
    config.linkerd.io/proxy-log-level: warn,linkerd=debug
""")

TUNINGS = [
    "",
    """        config.linkerd.io/proxy-cpu-request: 250m
        config.linkerd.io/proxy-memory-limit: 512Mi
""",
    """        config.linkerd.io/skip-outbound-ports: "5432"
""",
    """        config.linkerd.io/proxy-await: disabled
""",
]

def pod_spec(i, indent):
    pad = " " * indent
    tuning = TUNINGS[(i // 7) % len(TUNINGS)] if i % 7 == 0 else ""
    spec = f"""metadata:
  labels:
    app: app-{i}
    tier: backend
    version: v{i % 3}
  annotations:
    prometheus.io/scrape: "true"
    prometheus.io/port: "9102"
{tuning.replace(' ' * 8, '    ')}spec:
  serviceAccountName: app-{i}
  containers:
  - name: app
    image: registry.example.com/team/app-{i % 50}:1.{i % 9}.0
    args: ["--port=8080", "--log-level=info", "--cache-size=512"]
    ports:
    - name: http
      containerPort: 8080
    - name: metrics
      containerPort: 9102
    env:
    - name: SERVICE_NAME
      value: app-{i}
    - name: POD_IP
      valueFrom:
        fieldRef:
          fieldPath: status.podIP
    - name: DATABASE_URL
      value: postgres://db.team-{i % NAMESPACES}.svc:5432/app
    resources:
      requests:
        cpu: 100m
        memory: 128Mi
      limits:
        cpu: "1"
        memory: 256Mi
    readinessProbe:
      httpGet:
        path: /ready
        port: 8080
      periodSeconds: 5
    livenessProbe:
      httpGet:
        path: /live
        port: 8080
      initialDelaySeconds: 10
    volumeMounts:
    - name: config
      mountPath: /etc/app
    - name: logs
      mountPath: /var/log/app
  - name: log-shipper
    image: registry.example.com/platform/log-shipper:2.4.1
    args: ["--input=/var/log/app/*.log", "--output=http://logs.platform.svc:9880"]
    env:
    - name: SHIPPER_BUFFER
      value: 8Mi
    resources:
      requests:
        cpu: 10m
        memory: 32Mi
      limits:
        memory: 64Mi
    volumeMounts:
    - name: logs
      mountPath: /var/log/app
      readOnly: true
  volumes:
  - name: logs
    emptyDir: {{}}
  - name: config
    configMap:
      name: app-{i}-config
"""
    return "".join(pad + line + "\n" if line else "\n" for line in spec.splitlines())


def workload(i):
    ns = f"team-{i % NAMESPACES}"
    kind = ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "ReplicaSet"][i % 7]
    head = f"""---
apiVersion: {"v1" if kind == "Pod" else "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"}
kind: {kind}
metadata:
  name: app-{i}
  namespace: {ns}
  labels:
    app: app-{i}
"""
    if kind == "Pod":
        body = pod_spec(i, 0)
        return head + body[body.index("spec:"):]
    if kind == "CronJob":
        return head + f"""spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
{pod_spec(i, 8)}"""
    extra = "  serviceName: app-%d\n" % i if kind == "StatefulSet" else ""
    selector = "" if kind == "Job" else f"""  selector:
    matchLabels:
      app: app-{i}
"""
    replicas = "  replicas: 3\n" if kind in ("Deployment", "StatefulSet", "ReplicaSet") else ""
    return head + "spec:\n" + replicas + extra + selector + "  template:\n" + pod_spec(i, 4)


for i in range(n):
    out.write(workload(i))
    if i % 10 == 9:
        out.write(f"""---
apiVersion: v1
kind: Service
metadata:
  name: app-{i}
  namespace: team-{i % NAMESPACES}
spec:
  selector:
    app: app-{i}
  ports:
  - name: http
    port: 80
    targetPort: 8080
""")
