{#- A PodDisruptionBudget for a control-plane component (used when enablePodDisruptionBudget).

    Context (explicit): Values; `name`, the PDB's name; `component`, the value of the
    linkerd.io/control-plane-component label it selects. -#}
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
