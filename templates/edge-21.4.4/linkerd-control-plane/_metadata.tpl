{#- The pod template's `annotations:` and `labels:` of a proxied control-plane component, as a
    YAML mapping at column 0.

    Context (explicit): Values (after the component's overrides); `component`, e.g. destination;
    `container`, the component's own container; optionally `checksum` (checksum/config).
    When the proxy is the first container (proxy.await, not as a native sidecar), `kubectl
    logs`/`exec` would pick it by default, so kubectl.kubernetes.io/default-container names the
    component's container instead. A native-sidecar proxy is an init container: not needed. -#}
annotations:
{%- if checksum is defined %}
  checksum/config: {{ checksum }}
{%- endif %}
{%- if Values.proxy.await and not Values.proxy.nativeSidecar %}
  kubectl.kubernetes.io/default-container: {{ container }}
{%- endif %}
  linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
  linkerd.io/identity-mode: {{ "disabled" if Values.proxy.disableIdentity else "default" }}
  linkerd.io/proxy-version: {{ Values.proxy.image.version or Values.linkerdVersion }}
{%- if Values.podAnnotations %}
  {{- Values.podAnnotations | toYaml | trim | nindent(2) }}
{%- endif %}
labels:
  linkerd.io/control-plane-component: {{ component }}
  linkerd.io/control-plane-ns: {{ Values.namespace }}
  linkerd.io/workload-ns: {{ Values.namespace }}
  linkerd.io/proxy-{{ Values.proxy.workloadKind }}: {{ Values.proxy.component }}
{%- if Values.podLabels %}
  {{- Values.podLabels | toYaml | trim | nindent(2) }}
{%- endif -%}
