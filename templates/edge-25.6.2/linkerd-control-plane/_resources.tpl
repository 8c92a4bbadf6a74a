{#- A container's `resources:` from a {cpu, memory, ephemeral-storage} x {limit, request} map.
    Context: resources. An empty map still prints the bare key (as upstream does: it reads null). -#}
{%- set res = resources or {} -%}
{%- set kinds = ["cpu", "memory", "ephemeral-storage"] -%}
{%- set ns = namespace(limits=[], requests=[]) -%}
{%- for kind in kinds -%}
{%- set spec = res[kind] if kind in res and res[kind] else {} -%}
{%- if spec.limit %}{% set ns.limits = ns.limits + [[kind, spec.limit]] %}{% endif -%}
{%- if spec.request %}{% set ns.requests = ns.requests + [[kind, spec.request]] %}{% endif -%}
{%- endfor -%}
resources:
{%- if ns.limits %}
  limits:
{%- for kv in ns.limits %}
    {{ kv[0] }}: {{ kv[1] | quote }}
{%- endfor %}
{%- endif %}
{%- if ns.requests %}
  requests:
{%- for kv in ns.requests %}
    {{ kv[0] }}: {{ kv[1] | quote }}
{%- endfor %}
{%- endif -%}
