{#- Values.commonLabels as extra lines of a labels mapping, indented by `indent` (empty when none).
    Context (explicit): Values, indent. -#}
{%- if Values.commonLabels %}{{ Values.commonLabels | toYaml | trim | nindent(indent) }}{% endif -%}
