{#- A pod's `affinity:` (nothing when neither anti-affinity nor nodeAffinity is asked for), as
    lines at column 0. HA spreads a component's replicas: never two on one node, preferably
    across zones. Context: Values, component. -#}
{%- if Values.enablePodAntiAffinity or Values.nodeAffinity %}
affinity:
{%- if Values.nodeAffinity %}
  nodeAffinity:
    {{- Values.nodeAffinity | toYaml | trim | nindent(4) }}
{%- endif %}
{%- if Values.enablePodAntiAffinity %}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - podAffinityTerm:
        labelSelector:
          matchExpressions:
          - key: linkerd.io/control-plane-component
            operator: In
            values:
            - {{ component }}
        topologyKey: topology.kubernetes.io/zone
      weight: 100
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector:
        matchExpressions:
        - key: linkerd.io/control-plane-component
          operator: In
          values:
          - {{ component }}
      topologyKey: kubernetes.io/hostname
{%- endif %}
{%- endif -%}
