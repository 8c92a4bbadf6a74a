{#- A ServiceAccount's imagePullSecrets (from Values.imagePullSecrets) as lines starting with a
    newline, or nothing. Context: Values. -#}
{%- if Values.imagePullSecrets %}
imagePullSecrets:
{{ Values.imagePullSecrets | toYaml | indent(2) }}
{%- endif -%}
