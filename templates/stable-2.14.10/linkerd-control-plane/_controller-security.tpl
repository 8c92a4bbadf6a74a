{#- A controller container's `securityContext:` at column 0. Context: Values. -#}
securityContext:
  capabilities:
    drop:
    - ALL
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  runAsUser: {{ Values.controllerUID }}
  allowPrivilegeEscalation: false
  seccompProfile:
    type: RuntimeDefault
