{#- The ServiceAccount linkerd-<component> of a control-plane component.

    Context (explicit): Values; `component`, e.g. destination. -#}
kind: ServiceAccount
apiVersion: v1
metadata:
  name: linkerd-{{ component }}
  namespace: {{ Values.namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Values.namespace }}
{%- if Values.imagePullSecrets %}
imagePullSecrets:
{{- Values.imagePullSecrets | toYaml | trim | nindent(0) }}
{%- endif -%}
