{#- With the CNI plugin doing linkerd-init's job, this init container checks that the pod's
    traffic really is redirected before the pod starts. A YAML mapping at column 0. Context: Values. -#}
{%- set nv = Values.networkValidator -%}
{%- set proxy = Values.proxy -%}
args:
- --log-format
- {{ nv.logFormat }}
- --log-level
- {{ nv.logLevel }}
- --connect-addr
- {{ (nv.connectAddr if nv.connectAddr else ("1.1.1.1:20001" if Values.disableIPv6 else "[fd00::1]:20001")) | quote }}
- --listen-addr
- {{ (nv.listenAddr if nv.listenAddr else ("0.0.0.0:4140" if Values.disableIPv6 else "[::]:4140")) | quote }}
- --timeout
- {{ nv.timeout }}
command:
- /usr/lib/linkerd/linkerd2-network-validator
image: {{ proxy.image.name }}:{{ proxy.image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ proxy.image.pullPolicy | default(Values.imagePullPolicy) }}
name: linkerd-network-validator
{{ include("_resources.tpl", {"resources": proxy.resources}) }}
{%- if nv.enableSecurityContext is not defined or nv.enableSecurityContext is none or nv.enableSecurityContext != false %}
securityContext:
{%- if nv.securityContext %}
  {{- nv.securityContext | toYaml | trim | nindent(2) }}
{%- else %}
  allowPrivilegeEscalation: false
  capabilities:
    drop:
    - ALL
  readOnlyRootFilesystem: true
  runAsGroup: 65534
  runAsNonRoot: true
  runAsUser: 65534
  seccompProfile:
    type: RuntimeDefault
{%- endif %}
{%- endif -%}
