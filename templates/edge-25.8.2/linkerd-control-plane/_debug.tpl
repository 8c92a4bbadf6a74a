{#- The linkerd-debug container (tcpdump and friends beside the proxy), as a YAML mapping at
    column 0. Not used by the control plane: `meshchart inject` adds it to the workloads that
    ask for it (config.linkerd.io/enable-debug-sidecar). Its probes always pass: they only tell
    Kubernetes the container runs. Context: Values. -#}
{%- set image = Values.debugContainer.image -%}
image: {{ image.name }}:{{ image.version | default(Values.linkerdVersion) }}
imagePullPolicy: {{ image.pullPolicy | default(Values.imagePullPolicy) }}
livenessProbe:
  exec:
    command:
    - "true"
name: linkerd-debug
readinessProbe:
  exec:
    command:
    - "true"
terminationMessagePolicy: FallbackToLogsOnError
