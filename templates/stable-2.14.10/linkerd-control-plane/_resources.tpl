{#- A container's `resources:` mapping at column 0, from {cpu, memory, ephemeral-storage} each
    with optional limit and request. Context (explicit): resources. Empty settings are left out,
    so `resources:` alone (null) is what a fully empty tree gives, as upstream. -#}
{%- set r = resources if resources is mapping else {} -%}
{%- set kinds = [["cpu", r.cpu], ["memory", r.memory], ["ephemeral-storage", r["ephemeral-storage"]]] -%}
{%- set ns = namespace(limits=[], requests=[]) -%}
{%- for name, v in kinds -%}
  {%- if v is mapping and v.limit -%}{%- set ns.limits = ns.limits + [[name, v.limit]] -%}{%- endif -%}
  {%- if v is mapping and v.request -%}{%- set ns.requests = ns.requests + [[name, v.request]] -%}{%- endif -%}
{%- endfor -%}
resources:
{%- if ns.limits %}
  limits:
  {%- for name, v in ns.limits %}
    {{ name }}: {{ v | quote }}
  {%- endfor %}
{%- endif %}
{%- if ns.requests %}
  requests:
  {%- for name, v in ns.requests %}
    {{ name }}: {{ v | quote }}
  {%- endfor %}
{%- endif %}
