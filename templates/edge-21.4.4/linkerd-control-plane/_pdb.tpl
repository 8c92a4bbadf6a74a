{#- A PodDisruptionBudget for a control-plane component, or nothing when none is wanted.

    Wanted with `enablePodDisruptionBudget: true`, and with `enablePodAntiAffinity: true` unless
    `enablePodDisruptionBudget` is explicitly `false`: upstream's HA values (which know only
    enablePodAntiAffinity) bring the budgets, as upstream's chart renders them.

    Context (explicit): Values; `name`, the PDB's name; `component`, the value of the
    linkerd.io/control-plane-component label it selects. -#}
{%- if Values.enablePodDisruptionBudget
      or (Values.enablePodAntiAffinity and Values.enablePodDisruptionBudget is not false) -%}
kind: PodDisruptionBudget
apiVersion: policy/v1
metadata:
  name: {{ name }}
  namespace: {{ Values.namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Values.namespace }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
{#- -#}
{%- endif %}
