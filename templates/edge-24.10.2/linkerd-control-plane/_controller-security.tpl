{#- A controller container's `securityContext:` at column 0. Context: Values. -#}
securityContext:
  capabilities:
    drop:
    - ALL
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  runAsUser: {{ Values.controllerUID }}
{%- if (Values.controllerGID | int) >= 0 %}
  runAsGroup: {{ Values.controllerGID }}
{%- endif %}
  allowPrivilegeEscalation: false
  seccompProfile:
    type: RuntimeDefault
