{#- The linkerd-init init container, as a YAML mapping at column 0 (splice it as a list item).

    Context: the caller's Values. It sets up iptables so the pod's traffic goes through the proxy;
    proxyInit.ignoreInboundPorts / ignoreOutboundPorts bypass it (the control plane's components
    put proxyInit.kubeAPIServerPorts in ignoreOutboundPorts first: they reach the API server
    before their proxy is up). Not used when cniEnabled: the CNI plugin does this job. -#}
{%- set init = Values.proxyInit -%}
{%- set ports = Values.proxy.ports -%}
{%- set mode = init.iptablesMode | default("legacy") -%}
{%- if mode != "nft" and init.iptablesMode != "legacy" -%}
{{ fail("Unsupported value " ~ (init.iptablesMode | toString | quote) ~ " for proxyInit.iptablesMode\nValid values: [\"nft\", \"legacy\"]") }}
{%- endif -%}
{%- if init.closeWaitTimeoutSecs and not init.runAsRoot and semverCompare(">=2025.1.1", Chart.Version) -%}
{{ fail("proxyInit.runAsRoot must be set to use proxyInit.closeWaitTimeoutSecs") }}
{%- endif -%}
{%- set escalates = true if (init.closeWaitTimeoutSecs or init.privileged) else false -%}
{%- set inbound_ignored = ports.control ~ "," ~ ports.admin ~ ("," ~ (init.ignoreInboundPorts | toString) if not (init.ignoreInboundPorts is empty) else "") -%}
{%- set capabilities = init.capabilities if init.capabilities is mapping else {} -%}
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
- {{ Values.proxy.uid | quote }}
{%- if (Values.proxy.gid | int) >= 0 %}
- --proxy-gid
- {{ Values.proxy.gid | quote }}
{%- endif %}
- --inbound-ports-to-ignore
- {{ inbound_ignored | quote }}
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
{#- Sized like the proxy it prepares for. #}
{{ include("_resources.tpl", {"resources": Values.proxy.resources}) | trim }}
securityContext:
  allowPrivilegeEscalation: {{ escalates }}
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
  privileged: {{ escalates }}
{%- if init.runAsRoot %}
  runAsGroup: 0
  runAsNonRoot: false
  runAsUser: 0
{%- else %}
  runAsNonRoot: true
  {#- 0 would be root: the unprivileged default (nobody) stands in for it. #}
  runAsUser: {{ 65534 if (init.runAsUser | int) == 0 else init.runAsUser }}
  runAsGroup: {{ 65534 if (init.runAsGroup | int) == 0 else init.runAsGroup }}
{%- endif %}
  readOnlyRootFilesystem: true
  seccompProfile:
    type: RuntimeDefault
terminationMessagePolicy: FallbackToLogsOnError
{%- if not Values.cniEnabled or init.saMountPath %}
volumeMounts:
{%- endif %}
{%- if not Values.cniEnabled %}
- mountPath: {{ init.xtMountPath.mountPath }}
  name: {{ init.xtMountPath.name }}
{%- endif %}
{%- if init.saMountPath %}
- mountPath: {{ init.saMountPath.mountPath }}
  name: {{ init.saMountPath.name }}
  readOnly: {{ init.saMountPath.readOnly }}
{%- endif -%}
