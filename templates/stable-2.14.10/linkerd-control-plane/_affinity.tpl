{#- The pod's `affinity:` mapping at column 0, or nothing. Context (explicit): Values, component.
    enablePodAntiAffinity spreads a component's replicas over nodes (required) and zones
    (preferred); nodeAffinity is passed through. -#}
{%- if Values.enablePodAntiAffinity or Values.nodeAffinity -%}
affinity:
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
{%- if Values.nodeAffinity %}
  nodeAffinity:
    {{- Values.nodeAffinity | toYaml | trim | nindent(4) }}
{%- endif %}
{%- endif -%}
