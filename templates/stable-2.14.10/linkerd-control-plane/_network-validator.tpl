{#- The linkerd-network-validator init container (used instead of linkerd-init when cniEnabled:
    it checks that the CNI plugin redirects the pod's traffic), a YAML mapping at column 0.
    Context: the caller's Values. -#}
{%- set nv = Values.networkValidator -%}
name: linkerd-network-validator
image: {{ Values.proxy.image.name }}:{{ Values.proxy.image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ Values.proxy.image.pullPolicy | default(Values.imagePullPolicy) }}
{{ include("_resources.tpl", {"resources": Values.proxyInit.resources}) | trim }}
{%- if nv.enableSecurityContext %}
securityContext:
  allowPrivilegeEscalation: false
  capabilities:
    drop:
    - ALL
  readOnlyRootFilesystem: true
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
- {{ nv.connectAddr }}
- --listen-addr
- {{ nv.listenAddr }}
- --timeout
- {{ nv.timeout }}
