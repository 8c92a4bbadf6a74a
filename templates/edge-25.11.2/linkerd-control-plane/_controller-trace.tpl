{#- The controllers' -trace-collector argument, as a list item at column 0 (nothing when
    controller tracing is off). Its endpoint falls back to the proxies' collector. Context: Values, Chart. -#}
{#- By Chart.Version: before edge-25.10.1 controlPlaneTracing turns it on; before edge-25.10.6 a missing controller.tracing fails (as Helm's nil
    lookup does), before edge-25.10.7 the endpoint has no fallback. -#}
{%- if not semverCompare(">=2025.10.1", Chart.Version) -%}
{#- Before edge-25.10.1: controlPlaneTracing, to the tracing extension's collector Service. -#}
{%- if Values.controlPlaneTracing -%}
- -trace-collector=collector.{{ Values.controlPlaneTracingNamespace }}.svc.{{ Values.clusterDomain }}:4317
{%- endif -%}
{%- elif Values.controller.tracing is none and not semverCompare(">=2025.10.6", Chart.Version) -%}
{{ fail("controller.tracing: nil pointer evaluating interface {}.enabled") }}
{%- endif -%}
{%- set tracing = (Values.controller.tracing or {}) if semverCompare(">=2025.10.1", Chart.Version) else {} -%}
{%- if tracing.enabled -%}
{%- set own = (tracing.collector or {}).endpoint -%}
{%- set proxy_collector = ((Values.proxy.tracing or {}).collector or {}).endpoint if semverCompare(">=2025.10.7", Chart.Version) else "" -%}
{%- if own -%}
- -trace-collector={{ own }}
{%- elif proxy_collector -%}
- -trace-collector={{ proxy_collector }}
{%- else -%}
{%- if semverCompare(">=2025.10.7", Chart.Version) -%}
{{ fail("controller.tracing.collector.endpoint or proxy.tracing.collector.endpoint must be set if control plane tracing is enabled") }}
{%- else -%}
{{ fail("controller.tracing.collector.endpoint must be set if control plane tracing is enabled") }}
{%- endif -%}
{%- endif -%}
{%- endif -%}
