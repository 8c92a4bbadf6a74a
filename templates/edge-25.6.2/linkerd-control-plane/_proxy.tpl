{#- The linkerd-proxy container, as a YAML mapping at column 0 (splice it in as a list item).

    Context: Values, Release. The including component sets, on its own copy of Values.proxy:
      component, workloadKind   the workload (linkerd-destination and linkerd-identity reach
                                their own service on localhost)
      await                     hold the other containers until the proxy is ready: a
                                startupProbe for a native sidecar, else a postStart hook
      nativeSidecar             run as an init container with restartPolicy: Always
      podInboundPorts, loadTrustBundleFromConfigMap, requireTLSOnInboundPorts, capabilities
    Where the container goes (containers or initContainers) is the caller's choice. -#}
{%- set proxy = Values.proxy -%}
{%- set ns = Release.Namespace -%}
{%- set domain = Values.clusterDomain -%}
{%- set trust_domain = Values.identityTrustDomain or domain -%}
{%- set component = proxy.component | default("") | toString -%}
{%- set ports = proxy.ports -%}
{%- set any_addr = "0.0.0.0" if Values.disableIPv6 else "[::]" -%}
{%- if proxy.nativeSidecar and proxy.waitBeforeExitSeconds -%}
{{ fail("proxy.nativeSidecar and waitBeforeExitSeconds cannot be used simultaneously") }}
{%- endif -%}
{%- set headers = proxy.logHTTPHeaders | default("") -%}
{%- if headers not in ["insecure", "off", ""] -%}
{{ fail("logHTTPHeaders must be one of: insecure | off") }}
{%- endif -%}
{%- set streams = (proxy.control or {}).streams or {} -%}
{%- set workers = (proxy.runtime or {}).workers -%}
{#- This era's releases differ by Chart.Version (20YY.M.P of edge-YY.M.P): see releases/releases.toml:
    runtime workers (and CORES_MIN) from edge-25.3.3, hostname labels from edge-25.3.4, _pod_ip
    from edge-25.5.5. -#}
{%- set from_25_3_3 = semverCompare(">=2025.3.3", Chart.Version) -%}
env:
- name: _pod_name
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: _pod_ns
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: _pod_uid
  valueFrom:
    fieldRef:
      fieldPath: metadata.uid
{%- if semverCompare(">=2025.5.5", Chart.Version) %}
- name: _pod_ip
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{%- endif %}
- name: _pod_nodeName
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: _pod_containerName
  value: linkerd-proxy
{#- proxy.cores pins the worker count (deprecated); otherwise proxy.runtime.workers bounds it. #}
{%- if proxy.cores %}
- name: LINKERD2_PROXY_CORES
  value: {{ proxy.cores | quote }}
{%- if from_25_3_3 %}
- name: LINKERD2_PROXY_CORES_MIN
  value: {{ proxy.cores | quote }}
{%- endif %}
{%- elif workers and from_25_3_3 %}
- name: LINKERD2_PROXY_CORES
  value: {{ workers.minimum | default(1) | quote }}
- name: LINKERD2_PROXY_CORES_MIN
  value: {{ workers.minimum | default(1) | quote }}
{%- if workers.maximum %}
- name: LINKERD2_PROXY_CORES_MAX
  value: {{ workers.maximum | quote }}
{%- endif %}
{%- if workers.maximumCPURatio %}
- name: LINKERD2_PROXY_CORES_MAX_RATIO
  value: {{ workers.maximumCPURatio | quote }}
{%- endif %}
{%- endif %}
{%- if proxy.requireIdentityOnInboundPorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_REQUIRE_IDENTITY
  value: {{ proxy.requireIdentityOnInboundPorts | quote }}
{%- endif %}
{%- if proxy.requireTLSOnInboundPorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_REQUIRE_TLS
  value: {{ proxy.requireTLSOnInboundPorts | quote }}
{%- endif %}
- name: LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED
  value: {{ proxy.enableShutdownEndpoint | quote }}
- name: LINKERD2_PROXY_LOG
  value: {{ (proxy.logLevel ~ ("" if headers == "insecure" else ",[{headers}]=off,[{request}]=off")) | quote }}
- name: LINKERD2_PROXY_LOG_FORMAT
  value: {{ proxy.logFormat | quote }}
- name: LINKERD2_PROXY_DESTINATION_SVC_ADDR
  value: {{ "localhost.:8086" if component == "linkerd-destination" else "linkerd-dst-headless." ~ ns ~ ".svc." ~ domain ~ ".:8086" }}
- name: LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS
  value: {{ Values.clusterNetworks | quote }}
- name: LINKERD2_PROXY_POLICY_SVC_ADDR
  value: {{ "localhost.:8090" if component == "linkerd-destination" else "linkerd-policy." ~ ns ~ ".svc." ~ domain ~ ".:8090" }}
- name: LINKERD2_PROXY_POLICY_WORKLOAD
  value: |
    {"ns":"$(_pod_ns)", "pod":"$(_pod_name)"}
- name: LINKERD2_PROXY_INBOUND_DEFAULT_POLICY
  value: {{ proxy.defaultInboundPolicy }}
- name: LINKERD2_PROXY_POLICY_CLUSTER_NETWORKS
  value: {{ Values.clusterNetworks | quote }}
- name: LINKERD2_PROXY_CONTROL_STREAM_INITIAL_TIMEOUT
  value: {{ streams.initialTimeout | default("") | quote }}
- name: LINKERD2_PROXY_CONTROL_STREAM_IDLE_TIMEOUT
  value: {{ streams.idleTimeout | default("") | quote }}
- name: LINKERD2_PROXY_CONTROL_STREAM_LIFETIME
  value: {{ streams.lifetime | default("") | quote }}
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
  value: "{{ any_addr }}:{{ ports.control }}"
- name: LINKERD2_PROXY_ADMIN_LISTEN_ADDR
  value: "{{ any_addr }}:{{ ports.admin }}"
{#- The single-address form is kept for proxies older than v2.228.0. #}
- name: LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR
  value: "127.0.0.1:{{ ports.outbound }}"
- name: LINKERD2_PROXY_OUTBOUND_LISTEN_ADDRS
  value: "127.0.0.1:{{ ports.outbound }}{% if not Values.disableIPv6 %},[::1]:{{ ports.outbound }}{% endif %}"
- name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR
  value: "{{ any_addr }}:{{ ports.inbound }}"
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
- name: LINKERD2_PROXY_INBOUND_ACCEPT_USER_TIMEOUT
  value: 30s
- name: LINKERD2_PROXY_OUTBOUND_CONNECT_USER_TIMEOUT
  value: 30s
{%- if semverCompare(">=2025.3.4", Chart.Version) %}
- name: LINKERD2_PROXY_OUTBOUND_METRICS_HOSTNAME_LABELS
  value: {{ proxy.metrics.hostnameLabels | quote }}
{%- endif %}
{#- Each leaf of proxy.inbound / proxy.outbound (direction.scope.protocol.parameter, e.g.
    inbound.server.http2.keepAliveInterval) becomes LINKERD2_PROXY_<DIRECTION>_<SCOPE>_<PROTOCOL>_<PARAMETER>,
    camelCase turned into SNAKE_CASE. #}
{%- for direction in ["inbound", "outbound"] %}
{%- for scope, protocols in (proxy[direction] or {}) | items %}
{%- for protocol, params in protocols | items %}
{%- for param, val in params | items %}
{%- set acc = namespace(words=[]) %}
{%- for word in [direction, scope, protocol, param] %}
{%- set acc.words = acc.words + [regexReplaceAll("([a-z0-9])([A-Z])", word | toString, "${1}_${2}")] %}
{%- endfor %}
- name: LINKERD2_PROXY_{{ acc.words | join("_") | upper }}
  value: {{ val | quote }}
{%- endfor %}
{%- endfor %}
{%- endfor %}
{%- endfor %}
{%- if proxy.opaquePorts %}
- name: LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION
  value: {{ proxy.opaquePorts | quote }}
{%- endif %}
- name: LINKERD2_PROXY_DESTINATION_CONTEXT
  value: |
    {"ns":"$(_pod_ns)", "nodeName":"$(_pod_nodeName)", "pod":"$(_pod_name)"}
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
{#- Control-plane pods are never injected, so they read the trust roots from the ConfigMap. #}
- name: LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS
{%- if proxy.loadTrustBundleFromConfigMap %}
  valueFrom:
    configMapKeyRef:
      key: ca-bundle.crt
      name: linkerd-identity-trust-roots
{%- else %}
  value: |
    {{- required("Please provide the identity trust anchors", Values.identityTrustAnchorsPEM) | trim | nindent(4) }}
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
{%- if proxy.additionalEnv %}
{{ proxy.additionalEnv | toYaml | trim }}
{%- endif %}
{%- if proxy.experimentalEnv %}
{{ proxy.experimentalEnv | toYaml | trim }}
{%- endif %}
image: {{ proxy.image.name }}:{{ proxy.image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ proxy.image.pullPolicy | default(Values.imagePullPolicy) }}
{%- if not proxy.nativeSidecar and (proxy.await or proxy.waitBeforeExitSeconds) %}
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
livenessProbe:
  httpGet:
    path: /live
    port: {{ ports.admin }}
  initialDelaySeconds: {{ proxy.livenessProbe.initialDelaySeconds }}
  timeoutSeconds: {{ proxy.livenessProbe.timeoutSeconds }}
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
  initialDelaySeconds: {{ proxy.readinessProbe.initialDelaySeconds }}
  timeoutSeconds: {{ proxy.readinessProbe.timeoutSeconds }}
{%- if proxy.resources %}
{{ include("_resources.tpl", {"resources": proxy.resources}) }}
{%- endif %}
{%- if proxy.nativeSidecar %}
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
{%- if (proxy.gid | int) >= 0 %}
  runAsGroup: {{ proxy.gid }}
{%- endif %}
  runAsNonRoot: true
  runAsUser: {{ proxy.uid }}
  seccompProfile:
    type: RuntimeDefault
{%- if proxy.nativeSidecar and proxy.await %}
startupProbe:
  failureThreshold: {{ proxy.startupProbe.failureThreshold }}
  httpGet:
    path: /ready
    port: {{ ports.admin }}
  initialDelaySeconds: {{ proxy.startupProbe.initialDelaySeconds }}
  periodSeconds: {{ proxy.startupProbe.periodSeconds }}
{%- endif %}
terminationMessagePolicy: FallbackToLogsOnError
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
  readOnly: {{ proxy.saMountPath.readOnly if proxy.saMountPath.readOnly is defined else "" }}
{%- endif -%}
