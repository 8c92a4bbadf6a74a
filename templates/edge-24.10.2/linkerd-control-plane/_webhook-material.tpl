{#- Checks a webhook's values and says where its certificate comes from. Context (explicit):
    name (the values key, e.g. policyValidator), hook (its values).
    Prints the base64 caBundle for the webhook configuration (empty when cert-manager injects
    it). Unlike upstream, a caBundle is accepted without externalSecret: meshchart itself sets
    caBundle to crtPEM. Upstream makes a throwaway self-signed certificate when crtPEM is empty;
    a render here cannot (no randomness), so crtPEM/keyPEM are required unless externalSecret. -#}
{%- if hook.injectCaFrom and hook.injectCaFromSecret -%}
{{ fail(name ~ ": injectCaFrom and injectCaFromSecret cannot both be set") }}
{%- endif -%}
{%- if (hook.injectCaFrom or hook.injectCaFromSecret) and hook.caBundle -%}
{{ fail(name ~ ": injectCaFrom or injectCaFromSecret cannot be set if providing a caBundle") }}
{%- endif -%}
{%- if hook.externalSecret and (hook.caBundle is empty) and (hook.injectCaFrom is empty) and (hook.injectCaFromSecret is empty) -%}
{{ fail(name ~ ": if externalSecret is set, then caBundle, injectCaFrom, or injectCaFromSecret must be set") }}
{%- endif -%}
{%- if not hook.externalSecret and ((hook.crtPEM is empty) or (hook.keyPEM is empty)) -%}
{{ fail(name ~ ".crtPEM and " ~ name ~ ".keyPEM are needed (or " ~ name ~ ".externalSecret with a caBundle): meshchart does not generate this webhook's certificate") }}
{%- endif -%}
{%- if (hook.injectCaFrom is empty) and (hook.injectCaFromSecret is empty) -%}
{{ (hook.caBundle if not (hook.caBundle is empty) else hook.crtPEM) | trim | b64enc }}
{%- endif -%}
