{#- A controller's additionalEnv and experimentalEnv (from Values[key]) as `env:` list items at
    column 0 (no `env:` line), or nothing. Context (explicit): Values, key. -#}
{%- set own = Values[key] if Values[key] is mapping else {} -%}
{%- if own.additionalEnv %}
{{ own.additionalEnv | toYaml | trim }}
{%- endif %}
{%- if own.experimentalEnv %}
{{ own.experimentalEnv | toYaml | trim }}
{%- endif -%}
