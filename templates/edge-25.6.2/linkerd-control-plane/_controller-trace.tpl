{#- The controllers' -trace-collector argument, as a list item at column 0 (nothing unless
    controlPlaneTracing): the collector Service of the tracing extension's namespace, OTLP port.
    Context: Values, Chart (the port was 55678, OpenCensus, before edge-25.4.3). -#}
{%- if Values.controlPlaneTracing -%}
- -trace-collector=collector.{{ Values.controlPlaneTracingNamespace }}.svc.{{ Values.clusterDomain }}:{{ 4317 if semverCompare(">=2025.4.3", Chart.Version) else 55678 }}
{%- endif -%}
