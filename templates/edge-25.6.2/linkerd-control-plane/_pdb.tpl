{#- A component's PodDisruptionBudget (HA), as a YAML document without the separator; nothing
    unless enablePodDisruptionBudget. Context: Values, Release, name, component. -#}
{%- if Values.enablePodDisruptionBudget -%}
kind: PodDisruptionBudget
apiVersion: policy/v1
metadata:
  name: {{ name }}
  namespace: {{ Release.Namespace }}
  labels:
    {{- include("_labels.tpl", {"Values": Values, "Release": Release, "component": component}) | trim | nindent(4) }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
spec:
  maxUnavailable: {{ Values.controller.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
{%- endif -%}
