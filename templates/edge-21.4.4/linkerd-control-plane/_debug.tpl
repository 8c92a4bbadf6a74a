{#- The linkerd-debug sidecar container, as a YAML mapping at column 0 (splice it as a list item).

    Context: Values only. Not used by the control plane; `meshchart inject` adds it to workloads
    that ask for it. -#}
{%- set image = Values.debugContainer.image -%}
image: {{ image.name }}:{{ image.version or Values.linkerdVersion }}
imagePullPolicy: {{ image.pullPolicy or Values.imagePullPolicy }}
name: linkerd-debug
terminationMessagePolicy: FallbackToLogsOnError
