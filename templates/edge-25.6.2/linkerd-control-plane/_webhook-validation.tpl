{#- Fails on contradictory webhook certificate settings. Context: hook (the webhook's values),
    name (its values key, for the messages). -#}
{%- if hook.injectCaFrom and hook.injectCaFromSecret -%}
{{ fail(name ~ ": injectCaFrom and injectCaFromSecret cannot both be set") }}
{%- endif -%}
{%- if (hook.injectCaFrom or hook.injectCaFromSecret) and hook.caBundle -%}
{{ fail(name ~ ": injectCaFrom or injectCaFromSecret cannot be set if providing a caBundle") }}
{%- endif -%}
{%- if hook.externalSecret and not hook.caBundle and not hook.injectCaFrom and not hook.injectCaFromSecret -%}
{{ fail(name ~ ": if externalSecret is set, then caBundle, injectCaFrom, or injectCaFromSecret must be set") }}
{%- endif -%}
{%- if (hook.injectCaFrom or hook.injectCaFromSecret) and not hook.externalSecret -%}
{{ fail(name ~ ": if injectCaFrom or injectCaFromSecret is set, then externalSecret must be set") }}
{%- endif -%}
