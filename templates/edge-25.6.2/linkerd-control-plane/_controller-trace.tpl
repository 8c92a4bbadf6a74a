{#- The controllers' -trace-collector argument, as a list item at column 0 (nothing unless
    controlPlaneTracing): the collector Service of the tracing extension's namespace, OTLP port.
    Context: Values. -#}
{%- if Values.controlPlaneTracing -%}
- -trace-collector=collector.{{ Values.controlPlaneTracingNamespace }}.svc.{{ Values.clusterDomain }}:4317
{%- endif -%}
