{#- The volumes a proxied control-plane pod adds after its own, as list items at column 0:
    the API token, the iptables lock (without CNI), the identity token (with projection), the
    proxy's end-entity certificate, and pod info for tracing. Context: Values. -#}
- {{ include("_kube-api-access.tpl") | indent(2) | trim }}
{%- if not Values.cniEnabled %}
- emptyDir: {}
  name: {{ Values.proxyInit.xtMountPath.name }}
{%- endif %}
{%- if Values.identity.serviceAccountTokenProjection %}
- name: linkerd-identity-token
  projected:
    sources:
    - serviceAccountToken:
        audience: identity.l5d.io
        expirationSeconds: 86400
        path: linkerd-identity-token
{%- endif %}
- emptyDir:
    medium: Memory
  name: linkerd-identity-end-entity
{#- Until edge-25.11.1 this volume tested the key edge-25.10.1 renamed (enable); the
    annotations came with edge-25.10.2. #}
{%- set podinfo_key = "enabled" if semverCompare(">=2025.11.1", Chart.Version) else "enable" %}
{%- if (Values.proxy.tracing or {})[podinfo_key] %}
- downwardAPI:
    items:
    - fieldRef:
        fieldPath: metadata.labels
      path: labels
    {%- if semverCompare(">=2025.10.2", Chart.Version) %}
    - fieldRef:
        fieldPath: metadata.annotations
      path: annotations
    {%- endif %}
  name: linkerd-podinfo
{%- endif -%}
