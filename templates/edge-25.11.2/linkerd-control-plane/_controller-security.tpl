{#- The hardened securityContext of a controller container, as lines at column 0. Context: Values. -#}
securityContext:
  allowPrivilegeEscalation: false
  capabilities:
    drop:
    - ALL
  readOnlyRootFilesystem: true
{%- if (Values.controllerGID | int) >= 0 %}
  runAsGroup: {{ Values.controllerGID }}
{%- endif %}
  runAsNonRoot: true
  runAsUser: {{ Values.controllerUID }}
  seccompProfile:
    type: RuntimeDefault
{#- -#}
