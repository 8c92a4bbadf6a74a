{#- Container `resources:` from a map {cpu: {limit, request}, memory: {limit, request}}.

    Context: `resources` (pass it explicitly: include("_resources.tpl", {"resources": x})).
    Empty leaves are left out, and so are `limits`/`requests` when both of theirs are empty; when
    every leaf is empty the output is a bare `resources:` (null), as upstream renders it. -#}
{%- set cpu = resources.cpu or {} -%}
{%- set memory = resources.memory or {} -%}
resources:
{%- if cpu.limit or memory.limit %}
  limits:
  {%- if cpu.limit %}
    cpu: {{ cpu.limit | quote }}
  {%- endif %}
  {%- if memory.limit %}
    memory: {{ memory.limit | quote }}
  {%- endif %}
{%- endif %}
{%- if cpu.request or memory.request %}
  requests:
  {%- if cpu.request %}
    cpu: {{ cpu.request | quote }}
  {%- endif %}
  {%- if memory.request %}
    memory: {{ memory.request | quote }}
  {%- endif %}
{%- endif -%}
