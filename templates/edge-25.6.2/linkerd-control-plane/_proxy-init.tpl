{#- The linkerd-init init container (iptables rules that send the pod's traffic through the
    proxy), as a YAML mapping at column 0. At this release it runs its own image
    (proxyInit.image, cr.l5d.io/linkerd/proxy-init), whose entrypoint is proxy-init: no command.
    Context: Values (the caller puts the Kubernetes API ports into
    proxyInit.ignoreOutboundPorts: controllers reach the API before their proxy is up). -#}
{%- set init = Values.proxyInit -%}
{%- set proxy = Values.proxy -%}
{%- set ports = proxy.ports -%}
{%- set mode = init.iptablesMode -%}
{%- if mode not in ["nft", "legacy"] -%}
{{ fail("Unsupported value \"" ~ (init.iptablesMode | default("")) ~ "\" for proxyInit.iptablesMode\nValid values: [\"nft\", \"legacy\"]") }}
{%- endif -%}
{%- if init.closeWaitTimeoutSecs and not init.runAsRoot -%}
{{ fail("proxyInit.runAsRoot must be set to use proxyInit.closeWaitTimeoutSecs") }}
{%- endif -%}
{%- set privileged = true if (init.closeWaitTimeoutSecs or init.privileged) else false -%}
{%- set caps = init.capabilities or {} -%}
args:
{%- if mode == "nft" %}
- --firewall-bin-path
- "iptables-nft"
- --firewall-save-bin-path
- "iptables-nft-save"
{%- endif %}
{%- if Values.disableIPv6 %}
- --ipv6=false
{%- endif %}
- --incoming-proxy-port
- {{ ports.inbound | quote }}
- --outgoing-proxy-port
- {{ ports.outbound | quote }}
- --proxy-uid
- {{ proxy.uid | quote }}
{%- if (proxy.gid | int) >= 0 %}
- --proxy-gid
- {{ proxy.gid | quote }}
{%- endif %}
- --inbound-ports-to-ignore
- "{{ ports.control }},{{ ports.admin }}{% if init.ignoreInboundPorts %},{{ init.ignoreInboundPorts | toString }}{% endif %}"
{%- if init.ignoreOutboundPorts %}
- --outbound-ports-to-ignore
- {{ init.ignoreOutboundPorts | quote }}
{%- endif %}
{%- if init.closeWaitTimeoutSecs %}
- --timeout-close-wait-secs
- {{ init.closeWaitTimeoutSecs | quote }}
{%- endif %}
{%- if init.logFormat %}
- --log-format
- {{ init.logFormat }}
{%- endif %}
{%- if init.logLevel %}
- --log-level
- {{ init.logLevel }}
{%- endif %}
{%- if init.skipSubnets %}
- --subnets-to-ignore
- {{ init.skipSubnets | quote }}
{%- endif %}
image: {{ init.image.name }}:{{ init.image.version }}
imagePullPolicy: {{ init.image.pullPolicy | default(Values.imagePullPolicy) }}
name: linkerd-init
{{ include("_resources.tpl", {"resources": proxy.resources}) }}
securityContext:
  allowPrivilegeEscalation: {{ privileged }}
  capabilities:
    add:
    - NET_ADMIN
    - NET_RAW
{%- if caps.add %}
    {{- caps.add | toYaml | trim | nindent(4) }}
{%- endif %}
{%- if caps.drop %}
    drop:
    {{- caps.drop | toYaml | trim | nindent(4) }}
{%- endif %}
  privileged: {{ privileged }}
  readOnlyRootFilesystem: true
{%- if init.runAsRoot %}
  runAsGroup: 0
  runAsNonRoot: false
  runAsUser: 0
{%- else %}
{#- uid/gid 0 would be root: the nobody ids stand in for them. #}
  runAsGroup: {{ 65534 if (init.runAsGroup | int) == 0 else init.runAsGroup }}
  runAsNonRoot: true
  runAsUser: {{ 65534 if (init.runAsUser | int) == 0 else init.runAsUser }}
{%- endif %}
  seccompProfile:
    type: RuntimeDefault
terminationMessagePolicy: FallbackToLogsOnError
{%- if not Values.cniEnabled or init.saMountPath %}
volumeMounts:
{%- if not Values.cniEnabled %}
- mountPath: {{ init.xtMountPath.mountPath }}
  name: {{ init.xtMountPath.name }}
{%- endif %}
{%- if init.saMountPath %}
- mountPath: {{ init.saMountPath.mountPath }}
  name: {{ init.saMountPath.name }}
  readOnly: {{ init.saMountPath.readOnly if init.saMountPath.readOnly is defined else "" }}
{%- endif %}
{%- endif -%}
