{#- Pod anti-affinity of a control-plane component (used when enablePodAntiAffinity), as an
    `affinity:` mapping at column 0: replicas must not share a node and should not share a zone.

    Context (explicit): `component`, the value of the linkerd.io/control-plane-component label. -#}
affinity:
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
{#- -#}
