{#- The cert-manager CA injection annotations of a webhook configuration, as lines starting with
    a newline at column 2, or nothing. Context (explicit): hook (the webhook's values). -#}
{%- if hook.injectCaFrom or hook.injectCaFromSecret %}
  annotations:
{%- if hook.injectCaFrom %}
    cert-manager.io/inject-ca-from: {{ hook.injectCaFrom }}
{%- endif %}
{%- if hook.injectCaFromSecret %}
    cert-manager.io/inject-ca-from-secret: {{ hook.injectCaFromSecret }}
{%- endif %}
{%- endif -%}
