{#- The linkerd-proxy container, as a YAML mapping at column 0 (splice it as a list item).

    Context: Values only, so that `meshchart inject` renders workloads' proxies with this very
    partial. Whoever includes it puts the per-workload settings into Values.proxy first (on a copy):
      proxy.component        the workload's name, e.g. linkerd-destination (the destination and
                             identity components talk to their own service over localhost)
      proxy.workloadKind     e.g. deployment
      proxy.await            the app waits until the proxy is ready: a postStart hook running
                             linkerd-await (--port=the admin port, and --timeout=proxy.awaitTimeout
                             when set),
                             or, for a native sidecar, a startupProbe (proxy.startupProbe)
      proxy.nativeSidecar    the proxy runs as a native sidecar (an init container with
                             restartPolicy: Always; Kubernetes 1.29 or newer, checked against
                             Capabilities.KubeVersion); it then has no lifecycle hooks, so
                             proxy.waitBeforeExitSeconds does not apply (Kubernetes stops it
                             after the app containers)
      proxy.resources        resources of this proxy
      proxy.defaultInboundPolicy
    Placing the container (first in containers when proxy.await, else after the app containers;
    in initContainers right after linkerd-init when proxy.nativeSidecar) is the caller's job:
    _deployment.tpl for the control plane, place_containers in src/inject/mutate.rs for inject.

    Fails on a proxy.awaitTimeout that is not a Go duration, and on proxy.nativeSidecar when
    rendering for Kubernetes older than 1.29. -#}
{%- set proxy = Values.proxy -%}
{%- set cp_ns = Values.namespace -%}
{%- set domain = Values.clusterDomain -%}
{%- set component = proxy.component if proxy.component is defined else "" -%}
{%- set ports = proxy.ports -%}
{%- set native = true if proxy.nativeSidecar else false -%}
{%- set await_timeout = proxy.awaitTimeout | default("") | toString -%}
{%- if await_timeout and not regexMatch("^(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$", await_timeout) -%}
{{ fail("proxy.awaitTimeout: " ~ (await_timeout | quote) ~ " is not a duration: use Go's duration syntax, like 2m, 90s or 1m30s") }}
{%- endif -%}
{%- if native and not semverCompare(">=1.29.0-0", Capabilities.KubeVersion.Version) -%}
{{ fail("proxy.nativeSidecar needs Kubernetes 1.29 or newer (rendering for " ~ Capabilities.KubeVersion.Version ~ "): older clusters do not run init containers with restartPolicy: Always as sidecars; give the cluster's version with --kube-version, or leave proxy.nativeSidecar off") }}
{%- endif -%}
env:
{%- if proxy.cores %}
- name: LINKERD2_PROXY_CORES
  value: {{ proxy.cores | quote }}
{%- endif %}
{%- if proxy.requireIdentityOnInboundPorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_REQUIRE_IDENTITY
  value: {{ proxy.requireIdentityOnInboundPorts | quote }}
{%- endif %}
- name: LINKERD2_PROXY_LOG
  value: {{ proxy.logLevel | quote }}
- name: LINKERD2_PROXY_LOG_FORMAT
  value: {{ proxy.logFormat | quote }}
- name: LINKERD2_PROXY_DESTINATION_SVC_ADDR
  value: {{ "localhost.:8086" if component == "linkerd-destination" else ("linkerd-dst-headless." ~ cp_ns ~ ".svc." ~ domain ~ ".:8086") }}
- name: LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS
  value: {{ Values.clusterNetworks | quote }}
- name: LINKERD2_PROXY_INBOUND_DEFAULT_POLICY
  value: {{ proxy.defaultInboundPolicy | default("all-unauthenticated") }}
{%- if proxy.inboundConnectTimeout %}
- name: LINKERD2_PROXY_INBOUND_CONNECT_TIMEOUT
  value: {{ proxy.inboundConnectTimeout | quote }}
{%- endif %}
{%- if proxy.outboundConnectTimeout %}
- name: LINKERD2_PROXY_OUTBOUND_CONNECT_TIMEOUT
  value: {{ proxy.outboundConnectTimeout | quote }}
{%- endif %}
- name: LINKERD2_PROXY_CONTROL_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.control }}
- name: LINKERD2_PROXY_ADMIN_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.admin }}
- name: LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR
  value: 127.0.0.1:{{ ports.outbound }}
- name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.inbound }}
{%- if proxy.isGateway %}
- name: LINKERD2_PROXY_INBOUND_GATEWAY_SUFFIXES
  value: svc.{{ domain }}.
{%- endif %}
{%- if proxy.isIngress %}
- name: LINKERD2_PROXY_INGRESS_MODE
  value: "true"
{%- endif %}
- name: LINKERD2_PROXY_DESTINATION_PROFILE_SUFFIXES
  value: {{ "." if proxy.enableExternalProfiles else "svc." ~ domain ~ "." }}
- name: LINKERD2_PROXY_INBOUND_ACCEPT_KEEPALIVE
  value: 10000ms
- name: LINKERD2_PROXY_OUTBOUND_CONNECT_KEEPALIVE
  value: 10000ms
{%- if proxy.opaquePorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION
  value: {{ proxy.opaquePorts | quote }}
{%- endif %}
- name: _pod_ns
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: _pod_nodeName
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: LINKERD2_PROXY_DESTINATION_CONTEXT
  value: |
    {"ns":"$(_pod_ns)", "nodeName":"$(_pod_nodeName)"}
{%- if proxy.disableIdentity %}
- name: LINKERD2_PROXY_IDENTITY_DISABLED
  value: disabled
{%- else %}
- name: LINKERD2_PROXY_IDENTITY_DIR
  value: /var/run/linkerd/identity/end-entity
- name: LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS
  value: |
    {{- required("Please provide the identity trust anchors (identityTrustAnchorsPEM)", Values.identityTrustAnchorsPEM) | trim | nindent(4) }}
- name: LINKERD2_PROXY_IDENTITY_TOKEN_FILE
  value: /var/run/secrets/kubernetes.io/serviceaccount/token
- name: LINKERD2_PROXY_IDENTITY_SVC_ADDR
  value: {{ "localhost.:8080" if component == "linkerd-identity" else ("linkerd-identity-headless." ~ cp_ns ~ ".svc." ~ domain ~ ".:8080") }}
- name: _pod_sa
  valueFrom:
    fieldRef:
      fieldPath: spec.serviceAccountName
- name: _l5d_ns
  value: {{ cp_ns }}
- name: _l5d_trustdomain
  value: {{ Values.identityTrustDomain or domain }}
- name: LINKERD2_PROXY_IDENTITY_LOCAL_NAME
  value: $(_pod_sa).$(_pod_ns).serviceaccount.identity.$(_l5d_ns).$(_l5d_trustdomain)
- name: LINKERD2_PROXY_IDENTITY_SVC_NAME
  value: linkerd-identity.$(_l5d_ns).serviceaccount.identity.$(_l5d_ns).$(_l5d_trustdomain)
- name: LINKERD2_PROXY_DESTINATION_SVC_NAME
  value: linkerd-destination.$(_l5d_ns).serviceaccount.identity.$(_l5d_ns).$(_l5d_trustdomain)
{%- endif %}
image: {{ proxy.image.name }}:{{ proxy.image.version or Values.linkerdVersion }}
imagePullPolicy: {{ proxy.image.pullPolicy or Values.imagePullPolicy }}
livenessProbe:
  httpGet:
    path: /live
    port: {{ ports.admin }}
  initialDelaySeconds: 10
name: linkerd-proxy
ports:
- containerPort: {{ ports.inbound }}
  name: linkerd-proxy
- containerPort: {{ ports.admin }}
  name: linkerd-admin
readinessProbe:
  httpGet:
    path: /ready
    port: {{ ports.admin }}
  initialDelaySeconds: 2
{%- if proxy.resources %}
{{ include("_resources.tpl", {"resources": proxy.resources}) | trim }}
{%- endif %}
{%- if native %}
restartPolicy: Always
{%- endif %}
securityContext:
  allowPrivilegeEscalation: false
{%- if proxy.capabilities %}
  capabilities:
  {%- if proxy.capabilities.add %}
    add:
    {{- proxy.capabilities.add | toYaml | trim | nindent(4) }}
  {%- endif %}
  {%- if proxy.capabilities.drop %}
    drop:
    {{- proxy.capabilities.drop | toYaml | trim | nindent(4) }}
  {%- endif %}
{%- endif %}
  readOnlyRootFilesystem: true
  runAsUser: {{ proxy.uid }}
{%- if native and proxy.await %}
{%- set probe = proxy.startupProbe or {} %}
startupProbe:
  failureThreshold: {{ probe.failureThreshold if probe.failureThreshold is number else 120 }}
  httpGet:
    path: /ready
    port: {{ ports.admin }}
{%- if probe.initialDelaySeconds %}
  initialDelaySeconds: {{ probe.initialDelaySeconds }}
{%- endif %}
  periodSeconds: {{ probe.periodSeconds if probe.periodSeconds is number else 1 }}
{%- endif %}
terminationMessagePolicy: FallbackToLogsOnError
{%- if not native and (proxy.await or proxy.waitBeforeExitSeconds) %}
lifecycle:
{%- if proxy.await %}
  postStart:
    exec:
      command:
      - /usr/lib/linkerd/linkerd-await
{%- if await_timeout %}
      - --timeout={{ await_timeout }}
{%- endif %}
      - --port={{ ports.admin }}
{%- endif %}
{%- if proxy.waitBeforeExitSeconds %}
  preStop:
    exec:
      command:
      - /bin/bash
      - -c
      - sleep {{ proxy.waitBeforeExitSeconds }}
{%- endif %}
{%- endif %}
{%- if not proxy.disableIdentity or proxy.saMountPath %}
volumeMounts:
{%- if not proxy.disableIdentity %}
- mountPath: /var/run/linkerd/identity/end-entity
  name: linkerd-identity-end-entity
{%- endif %}
{%- if proxy.saMountPath %}
- mountPath: {{ proxy.saMountPath.mountPath }}
  name: {{ proxy.saMountPath.name }}
  readOnly: {{ proxy.saMountPath.readOnly if proxy.saMountPath.readOnly is defined else true }}
{%- endif %}
{%- endif -%}
