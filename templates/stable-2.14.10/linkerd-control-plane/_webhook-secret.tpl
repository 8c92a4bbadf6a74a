{#- A webhook's serving Secret, then `---` (nothing with externalSecret). Context (explicit):
    Values, Release, hook (the webhook's values), secret (its name), component (its label). -#}
{%- if not hook.externalSecret %}
kind: Secret
apiVersion: v1
metadata:
  name: {{ secret }}
  namespace: {{ Release.Namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Release.Namespace }}
    {{- include("_common-labels.tpl", {"Values": Values, "indent": 4}) }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
type: kubernetes.io/tls
data:
  tls.crt: {{ hook.crtPEM | trim | b64enc }}
  tls.key: {{ hook.keyPEM | trim | b64enc }}
---
{%- endif -%}
