{#- What `meshchart inject` adds to a workload's pod besides the linkerd-proxy and linkerd-init
    containers (those come from _proxy.tpl and _proxy-init.tpl), as YAML at column 0:
      annotations  written onto the pod template
      labels       likewise (inject adds the workload's own linkerd.io/proxy-<kind> and
                   linkerd.io/workload-ns labels itself)
      volumes      appended to the pod's own, in this order
    Context: the pod's Values (inject puts proxy.workloadKind, proxy.podInboundPorts and the
    first container's capabilities and token mount into them first) and Release.Namespace, the
    control plane's namespace. Unlike the control plane's own pods (_proxy-volumes.tpl), an
    injected pod keeps its automounted API token: no kube-api-access volume here. -#}
annotations:
  linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
  linkerd.io/proxy-version: {{ Values.proxy.image.version | default(Values.linkerdVersion) }}
  {#- Lets the proxy's pods be told apart when the trust anchors rotate. #}
  linkerd.io/trust-root-sha256: {{ Values.identityTrustAnchorsPEM | sha256sum }}
labels:
  linkerd.io/control-plane-ns: {{ Release.Namespace }}
volumes:
{%- if not Values.cniEnabled %}
- emptyDir: {}
  name: {{ Values.proxyInit.xtMountPath.name }}
{%- endif %}
- emptyDir:
    medium: Memory
  name: linkerd-identity-end-entity
{#- Until edge-25.11.1 upstream's patch tested the key edge-25.10.1 renamed (enable). #}
{%- if (Values.proxy.tracing or {})["enabled" if semverCompare(">=2025.11.1", Chart.Version) else "enable"] %}
{#- The pod's labels, which a tracing proxy attaches to its spans. #}
- downwardAPI:
    items:
    - fieldRef:
        fieldPath: metadata.labels
      path: labels
  name: linkerd-podinfo
{%- endif %}
{%- if Values.identity.serviceAccountTokenProjection %}
{#- The token the proxy presents to identity, for its audience only; valid a day, re-read. #}
- name: linkerd-identity-token
  projected:
    sources:
    - serviceAccountToken:
        audience: identity.l5d.io
        expirationSeconds: 86400
        path: linkerd-identity-token
{%- endif %}
