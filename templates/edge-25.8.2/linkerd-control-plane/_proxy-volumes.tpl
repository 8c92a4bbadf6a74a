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
{#- Proxy tracing (and this volume) came with edge-25.6.4. #}
{%- if (Values.proxy.tracing or {}).enable and semverCompare(">=2025.6.4", Chart.Version) %}
- downwardAPI:
    items:
    - fieldRef:
        fieldPath: metadata.labels
      path: labels
  name: linkerd-podinfo
{%- endif -%}
