{#- imagePullSecrets of a ServiceAccount, as lines at column 0 (nothing when none). Context: Values. -#}
{%- if Values.imagePullSecrets %}
imagePullSecrets:
{{ Values.imagePullSecrets | toYaml | indent(2) }}
{%- endif -%}
