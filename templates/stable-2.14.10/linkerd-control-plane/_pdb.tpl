{#- A component's PodDisruptionBudget (enablePodDisruptionBudget). Context (explicit): Values,
    Release, name, component. -#}
kind: PodDisruptionBudget
apiVersion: policy/v1
metadata:
  name: {{ name }}
  namespace: {{ Release.Namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Release.Namespace }}
    {{- include("_common-labels.tpl", {"Values": Values, "indent": 4}) }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
