{#- A control-plane object's labels, as YAML lines at column 0: its component (when given), the
    control-plane namespace, then commonLabels. Context: Values, Release, optional component. -#}
{%- if component is defined and component %}
linkerd.io/control-plane-component: {{ component }}
{%- endif %}
linkerd.io/control-plane-ns: {{ Release.Namespace }}
{%- if Values.commonLabels %}
{{ Values.commonLabels | toYaml | trim }}
{%- endif -%}
