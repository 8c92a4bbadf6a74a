{#- The linkerd-proxy container, as a YAML mapping at column 0 (splice it as a list item).

    The 2.14 proxy: IPv4 listeners only, no native-sidecar mode, no control-stream or HTTP/2
    keep-alive settings, no extra env.

    Context: the caller's Values and Release. The caller puts its workload's settings into
    Values.proxy first, on its own copy (mergeOverwrite):
      component, workloadKind   e.g. linkerd-destination, deployment; destination and identity
                                reach their own service over localhost
      await                     a postStart hook (linkerd-await) holds the other containers until
                                the proxy is ready
      loadTrustBundleFromConfigMap  trust anchors from ConfigMap linkerd-identity-trust-roots
                                (the control plane's own pods) instead of inline
      podInboundPorts, requireTLSOnInboundPorts, defaultInboundPolicy, capabilities,
      resources, cores, waitBeforeExitSeconds
-#}
{%- set proxy = Values.proxy -%}
{%- set ns = Release.Namespace -%}
{%- set domain = Values.clusterDomain -%}
{%- set trust_domain = Values.identityTrustDomain | default(domain) -%}
{%- set component = proxy.component | default("") | toString -%}
{%- set ports = proxy.ports -%}
env:
- name: _pod_name
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: _pod_ns
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: _pod_nodeName
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
{%- if proxy.cores %}
- name: LINKERD2_PROXY_CORES
  value: {{ proxy.cores | quote }}
{%- endif %}
{%- if proxy.requireIdentityOnInboundPorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_REQUIRE_IDENTITY
  value: {{ proxy.requireIdentityOnInboundPorts | quote }}
{%- endif %}
{%- if proxy.requireTLSOnInboundPorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_REQUIRE_TLS
  value: {{ proxy.requireTLSOnInboundPorts | quote }}
{%- endif %}
- name: LINKERD2_PROXY_LOG
  value: {{ proxy.logLevel | quote }}
- name: LINKERD2_PROXY_LOG_FORMAT
  value: {{ proxy.logFormat | quote }}
- name: LINKERD2_PROXY_DESTINATION_SVC_ADDR
  value: {{ "localhost.:8086" if component == "linkerd-destination" else "linkerd-dst-headless." ~ ns ~ ".svc." ~ domain ~ ".:8086" }}
- name: LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS
  value: {{ Values.clusterNetworks | quote }}
- name: LINKERD2_PROXY_POLICY_SVC_ADDR
  value: {{ "localhost.:8090" if component == "linkerd-destination" else "linkerd-policy." ~ ns ~ ".svc." ~ domain ~ ".:8090" }}
- name: LINKERD2_PROXY_POLICY_WORKLOAD
  value: "$(_pod_ns):$(_pod_name)"
- name: LINKERD2_PROXY_INBOUND_DEFAULT_POLICY
  value: {{ proxy.defaultInboundPolicy }}
- name: LINKERD2_PROXY_POLICY_CLUSTER_NETWORKS
  value: {{ Values.clusterNetworks | quote }}
{%- if proxy.inboundConnectTimeout %}
- name: LINKERD2_PROXY_INBOUND_CONNECT_TIMEOUT
  value: {{ proxy.inboundConnectTimeout | quote }}
{%- endif %}
{%- if proxy.outboundConnectTimeout %}
- name: LINKERD2_PROXY_OUTBOUND_CONNECT_TIMEOUT
  value: {{ proxy.outboundConnectTimeout | quote }}
{%- endif %}
{%- if proxy.outboundDiscoveryCacheUnusedTimeout %}
- name: LINKERD2_PROXY_OUTBOUND_DISCOVERY_IDLE_TIMEOUT
  value: {{ proxy.outboundDiscoveryCacheUnusedTimeout | quote }}
{%- endif %}
{%- if proxy.inboundDiscoveryCacheUnusedTimeout %}
- name: LINKERD2_PROXY_INBOUND_DISCOVERY_IDLE_TIMEOUT
  value: {{ proxy.inboundDiscoveryCacheUnusedTimeout | quote }}
{%- endif %}
{%- if proxy.disableOutboundProtocolDetectTimeout %}
- name: LINKERD2_PROXY_OUTBOUND_DETECT_TIMEOUT
  value: "365d"
{%- endif %}
{%- if proxy.disableInboundProtocolDetectTimeout %}
- name: LINKERD2_PROXY_INBOUND_DETECT_TIMEOUT
  value: "365d"
{%- endif %}
- name: LINKERD2_PROXY_CONTROL_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.control }}
- name: LINKERD2_PROXY_ADMIN_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.admin }}
- name: LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR
  value: 127.0.0.1:{{ ports.outbound }}
- name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR
  value: 0.0.0.0:{{ ports.inbound }}
- name: LINKERD2_PROXY_INBOUND_IPS
  valueFrom:
    fieldRef:
      fieldPath: status.podIPs
- name: LINKERD2_PROXY_INBOUND_PORTS
  value: {{ proxy.podInboundPorts | quote }}
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
- name: LINKERD2_PROXY_DESTINATION_CONTEXT
  value: |
    {%- if semverCompare(">=1.16.5", Chart.Version) %}
    {"ns":"$(_pod_ns)", "nodeName":"$(_pod_nodeName)", "pod":"$(_pod_name)"}
    {%- else %}
    {"ns":"$(_pod_ns)", "nodeName":"$(_pod_nodeName)"}
    {%- endif %}
- name: _pod_sa
  valueFrom:
    fieldRef:
      fieldPath: spec.serviceAccountName
- name: _l5d_ns
  value: {{ ns }}
- name: _l5d_trustdomain
  value: {{ trust_domain }}
- name: LINKERD2_PROXY_IDENTITY_DIR
  value: /var/run/linkerd/identity/end-entity
- name: LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS
{%- if proxy.loadTrustBundleFromConfigMap %}
  valueFrom:
    configMapKeyRef:
      name: linkerd-identity-trust-roots
      key: ca-bundle.crt
{%- else %}
  value: |
    {{- required("Please provide the identity trust anchors (identityTrustAnchorsPEM)", Values.identityTrustAnchorsPEM) | trim | nindent(4) }}
{%- endif %}
- name: LINKERD2_PROXY_IDENTITY_TOKEN_FILE
  value: {{ "/var/run/secrets/tokens/linkerd-identity-token" if Values.identity.serviceAccountTokenProjection else "/var/run/secrets/kubernetes.io/serviceaccount/token" }}
- name: LINKERD2_PROXY_IDENTITY_SVC_ADDR
  value: {{ "localhost.:8080" if component == "linkerd-identity" else "linkerd-identity-headless." ~ ns ~ ".svc." ~ domain ~ ".:8080" }}
- name: LINKERD2_PROXY_IDENTITY_LOCAL_NAME
  value: $(_pod_sa).$(_pod_ns).serviceaccount.identity.{{ ns }}.{{ trust_domain }}
- name: LINKERD2_PROXY_IDENTITY_SVC_NAME
  value: linkerd-identity.{{ ns }}.serviceaccount.identity.{{ ns }}.{{ trust_domain }}
- name: LINKERD2_PROXY_DESTINATION_SVC_NAME
  value: linkerd-destination.{{ ns }}.serviceaccount.identity.{{ ns }}.{{ trust_domain }}
- name: LINKERD2_PROXY_POLICY_SVC_NAME
  value: linkerd-destination.{{ ns }}.serviceaccount.identity.{{ ns }}.{{ trust_domain }}
{%- if proxy.accessLog %}
- name: LINKERD2_PROXY_ACCESS_LOG
  value: {{ proxy.accessLog | quote }}
{%- endif %}
{%- if proxy.shutdownGracePeriod %}
- name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD
  value: {{ proxy.shutdownGracePeriod | quote }}
{%- endif %}
image: {{ proxy.image.name }}:{{ proxy.image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ proxy.image.pullPolicy | default(Values.imagePullPolicy) }}
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
  runAsNonRoot: true
  runAsUser: {{ proxy.uid }}
  seccompProfile:
    type: RuntimeDefault
terminationMessagePolicy: FallbackToLogsOnError
{%- if proxy.await or proxy.waitBeforeExitSeconds %}
lifecycle:
{%- if proxy.await %}
  postStart:
    exec:
      command:
      - /usr/lib/linkerd/linkerd-await
      - --timeout=2m
      - --port={{ ports.admin }}
{%- endif %}
{%- if proxy.waitBeforeExitSeconds %}
  preStop:
    exec:
      command:
      - /bin/sleep
      - {{ proxy.waitBeforeExitSeconds | quote }}
{%- endif %}
{%- endif %}
volumeMounts:
- mountPath: /var/run/linkerd/identity/end-entity
  name: linkerd-identity-end-entity
{%- if Values.identity.serviceAccountTokenProjection %}
- mountPath: /var/run/secrets/tokens
  name: linkerd-identity-token
{%- endif %}
{%- if proxy.saMountPath %}
- mountPath: {{ proxy.saMountPath.mountPath }}
  name: {{ proxy.saMountPath.name }}
  readOnly: {{ proxy.saMountPath.readOnly }}
{%- endif -%}
