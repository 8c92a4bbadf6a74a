{#- The linkerd-network-validator init container (used instead of linkerd-init when cniEnabled:
    it checks that the CNI plugin redirects the pod's traffic), a YAML mapping at column 0.
    Context: the caller's Values. -#}
{%- set nv = Values.networkValidator -%}
name: linkerd-network-validator
image: {{ Values.proxy.image.name }}:{{ Values.proxy.image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ Values.proxy.image.pullPolicy | default(Values.imagePullPolicy) }}
{{ include("_resources.tpl", {"resources": Values.proxy.resources}) | trim }}
{%- if nv.enableSecurityContext %}
securityContext:
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
command:
- /usr/lib/linkerd/linkerd2-network-validator
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
