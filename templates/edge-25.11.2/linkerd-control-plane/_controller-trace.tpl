{#- The controllers' -trace-collector argument, as a list item at column 0 (nothing when
    controller tracing is off). Its endpoint falls back to the proxies' collector. Context: Values. -#}
{%- set tracing = Values.controller.tracing or {} -%}
{%- if tracing.enabled -%}
{%- set own = (tracing.collector or {}).endpoint -%}
{%- set proxy_collector = ((Values.proxy.tracing or {}).collector or {}).endpoint -%}
{%- if own -%}
- -trace-collector={{ own }}
{%- elif proxy_collector -%}
- -trace-collector={{ proxy_collector }}
{%- else -%}
{{ fail("controller.tracing.collector.endpoint or proxy.tracing.collector.endpoint must be set if control plane tracing is enabled") }}
{%- endif -%}
{%- endif -%}
