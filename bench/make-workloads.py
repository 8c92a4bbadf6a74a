#!/usr/bin/env python3
"""Writes a stream of N mixed workloads (about 2 KB each) for the inject benchmark.

Kinds rotate through Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod and ReplicaSet; every
tenth workload is followed by a Service that passes through untouched; twenty namespaces, a few carrying
config.linkerd.io annotations, open the stream; one workload in seven tunes its proxy by
annotation, so inject meets a handful of distinct proxy configurations, as in a real repository.

With --seed S the stream is drawn at random from S instead (bench/compare.sh picks a fresh seed
each run and prints it, so no figure is tuned to one stream): the kinds, how many containers,
ports, environment variables, arguments and volumes each workload has, block or flow lists,
quoting, and comment lines and trailing comments all vary; the same seed gives the same stream.

usage: make-workloads.py N [--seed S] > workloads.yaml
"""
import random
import sys

n = int(sys.argv[1])
seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else None
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


KINDS = ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "ReplicaSet"]
WORDS = ["alpha", "bravo", "cache", "delta", "edge", "fetch", "gamma", "queue", "relay", "store"]


def drawn_list(rng, items, pad):
    """`items` (already YAML scalars) as a block list at `pad`, or as a flow list."""
    if rng.random() < 0.4:
        return " [" + ", ".join(items) + "]\n"
    return "\n" + "".join(f"{pad}- {item}\n" for item in items)


def drawn_scalar(rng, text):
    """`text` plain, single- or double-quoted."""
    return rng.choice([text, f"'{text}'", f'"{text}"'])


def comment(rng, pad):
    """Now and then a comment line at `pad`."""
    return f"{pad}# {rng.choice(WORDS)} {rng.choice(WORDS)}: owned by team {rng.randrange(40)}\n" \
        if rng.random() < 0.25 else ""


def trailing(rng):
    """Now and then a comment after a value."""
    return f"  # {rng.choice(WORDS)}" if rng.random() < 0.1 else ""


def drawn_container(rng, i, c, pad):
    """One container of workload `i`, its lists and sizes drawn from `rng`."""
    name = "app" if c == 0 else f"{rng.choice(WORDS)}-{c}"
    text = f"{pad}- name: {name}\n"
    text += comment(rng, pad + "  ")
    text += f"{pad}  image: registry.example.com/{rng.choice(WORDS)}/{name}:{rng.randrange(9)}.{rng.randrange(30)}.0{trailing(rng)}\n"
    if rng.random() < 0.7:
        args = [drawn_scalar(rng, f"--{rng.choice(WORDS)}={rng.randrange(10000)}")
                for _ in range(rng.randrange(1, 8))]
        text += f"{pad}  args:" + drawn_list(rng, args, pad + "  ")
    ports = rng.randrange(0, 5)
    if ports:
        text += f"{pad}  ports:\n"
        for p in range(ports):
            text += f"{pad}  - name: {rng.choice(WORDS)[:6]}-{p}\n{pad}    containerPort: {8000 + p * 7 + rng.randrange(5)}\n"
            if rng.random() < 0.3:
                text += f"{pad}    protocol: TCP\n"
    env = rng.randrange(0, 13)
    if env:
        text += f"{pad}  env:\n"
        for e in range(env):
            text += comment(rng, pad + "  ")
            if rng.random() < 0.2:
                text += (f"{pad}  - name: FIELD_{e}\n{pad}    valueFrom:\n{pad}      fieldRef:\n"
                         f"{pad}        fieldPath: status.podIP\n")
            else:
                value = drawn_scalar(rng, "-".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6))))
                text += f"{pad}  - name: {rng.choice(WORDS).upper()}_{e}\n{pad}    value: {value}{trailing(rng)}\n"
    if rng.random() < 0.8:
        text += (f"{pad}  resources:\n{pad}    requests:\n{pad}      cpu: {rng.randrange(1, 20) * 50}m\n"
                 f"{pad}      memory: {rng.randrange(1, 16) * 64}Mi\n")
        if rng.random() < 0.5:
            text += f"{pad}    limits:\n{pad}      memory: {rng.randrange(16, 32) * 64}Mi\n"
    if rng.random() < 0.5:
        text += (f"{pad}  readinessProbe:\n{pad}    httpGet:\n{pad}      path: /{rng.choice(WORDS)}\n"
                 f"{pad}      port: {8000 + rng.randrange(100)}\n{pad}    periodSeconds: {rng.randrange(1, 30)}\n")
    return text


def drawn_workload(rng, i):
    """Workload `i`, drawn from `rng`."""
    ns = f"team-{rng.randrange(NAMESPACES)}"
    kind = rng.choice(KINDS)
    api = "v1" if kind == "Pod" else "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"
    labels = "".join(f"    {rng.choice(WORDS)}-{k}: {drawn_scalar(rng, rng.choice(WORDS))}\n"
                     for k in range(rng.randrange(0, 6)))
    head = (f"---\n{comment(rng, '')}apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: app-{i}\n"
            f"  namespace: {ns}\n  labels:\n    app: app-{i}\n{labels}")
    depth = {"Pod": 0, "CronJob": 8}.get(kind, 4)
    pad = " " * depth
    meta = f"{pad}metadata:\n{pad}  labels:\n{pad}    app: app-{i}\n"
    if rng.random() < 0.3:
        tuning = rng.choice(TUNINGS[1:]).replace(" " * 8, pad + "    ")
        meta += f"{pad}  annotations:\n" + tuning
    containers = "".join(drawn_container(rng, i, c, pad + "  ")
                         for c in range(1 + min(3, int(rng.expovariate(1.2)))))
    volumes = rng.randrange(0, 4)
    pod = meta + f"{pad}spec:\n" + comment(rng, pad + "  ") + f"{pad}  containers:\n" + containers
    if volumes:
        pod += f"{pad}  volumes:\n" + "".join(
            f"{pad}  - name: vol-{v}\n{pad}    emptyDir: {{}}\n" for v in range(volumes))
    if kind == "Pod":
        return head + pod[pod.index("spec:"):]
    if kind == "CronJob":
        return head + f'spec:\n  schedule: "*/{rng.randrange(1, 60)} * * * *"\n  jobTemplate:\n    spec:\n      template:\n' + pod
    selector = "" if kind == "Job" else f"  selector:\n    matchLabels:\n      app: app-{i}\n"
    replicas = f"  replicas: {rng.randrange(1, 6)}\n" if kind in ("Deployment", "StatefulSet", "ReplicaSet") else ""
    extra = f"  serviceName: app-{i}\n" if kind == "StatefulSet" else ""
    return head + "spec:\n" + replicas + extra + selector + "  template:\n" + pod


rng = random.Random(seed)
for i in range(n):
    out.write(workload(i) if seed is None else drawn_workload(rng, i))
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
