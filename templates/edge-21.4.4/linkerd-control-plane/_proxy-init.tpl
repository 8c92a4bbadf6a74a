{#- The linkerd-init init container, as a YAML mapping at column 0 (splice it as a list item).

    Context: Values only (shared with `meshchart inject`). It redirects the pod's traffic through
    the proxy; proxyInit.ignoreInboundPorts / ignoreOutboundPorts bypass it. The control-plane
    components add 443 to ignoreOutboundPorts before including this (they must reach the
    Kubernetes API without a proxy). Not used when cniEnabled: the CNI plugin does this job. -#}
{%- set init = Values.proxyInit -%}
{%- set ports = Values.proxy.ports -%}
{%- set close_wait = true if init.closeWaitTimeoutSecs else false -%}
{%- set inbound_ignored = [ports.control, ports.admin] + ([init.ignoreInboundPorts] if init.ignoreInboundPorts else []) -%}
{%- set capabilities = init.capabilities or {} -%}
args:
- --incoming-proxy-port
- {{ ports.inbound | quote }}
- --outgoing-proxy-port
- {{ ports.outbound | quote }}
- --proxy-uid
- {{ Values.proxy.uid | quote }}
- --inbound-ports-to-ignore
- {{ inbound_ignored | join(",") | quote }}
{%- if init.ignoreOutboundPorts %}
- --outbound-ports-to-ignore
- {{ init.ignoreOutboundPorts | quote }}
{%- endif %}
{%- if init.closeWaitTimeoutSecs %}
- --timeout-close-wait-secs
- {{ init.closeWaitTimeoutSecs | quote }}
{%- endif %}
image: {{ init.image.name }}:{{ init.image.version }}
imagePullPolicy: {{ init.image.pullPolicy or Values.imagePullPolicy }}
name: linkerd-init
{{ include("_resources.tpl", {"resources": init.resources}) | trim }}
securityContext:
  allowPrivilegeEscalation: {{ close_wait }}
  capabilities:
    add:
    - NET_ADMIN
    - NET_RAW
    {%- if capabilities.add %}
    {{- capabilities.add | toYaml | trim | nindent(4) }}
    {%- endif %}
    {%- if capabilities.drop %}
    drop:
    {{- capabilities.drop | toYaml | trim | nindent(4) }}
    {%- endif %}
  privileged: {{ close_wait }}
  readOnlyRootFilesystem: true
  runAsNonRoot: false
  runAsUser: 0
terminationMessagePolicy: FallbackToLogsOnError
volumeMounts:
- mountPath: {{ init.xtMountPath.mountPath }}
  name: {{ init.xtMountPath.name }}
{%- if init.saMountPath %}
- mountPath: {{ init.saMountPath.mountPath }}
  name: {{ init.saMountPath.name }}
  readOnly: {{ init.saMountPath.readOnly if init.saMountPath.readOnly is defined else true }}
{%- endif -%}
