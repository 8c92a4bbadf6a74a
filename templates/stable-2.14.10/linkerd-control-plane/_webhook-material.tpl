{#- Checks a webhook's values and says where its certificate comes from. Context (explicit):
    name (the values key, e.g. policyValidator), hook (its values).
    Prints the base64 caBundle for the webhook configuration (empty when cert-manager injects
    it). Unlike upstream, a caBundle is accepted without externalSecret: meshchart itself sets
    caBundle to crtPEM. Upstream makes a throwaway self-signed certificate when crtPEM is empty;
    a template here cannot (no randomness): meshchart's identity-material step generates it
    before rendering, so crtPEM/keyPEM are only found empty by a render without that step. -#}
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
{{ fail(name ~ ".crtPEM and " ~ name ~ ".keyPEM are needed (or " ~ name ~ ".externalSecret with a caBundle): templates cannot make a certificate; meshchart fills them in for a chart whose Chart.yaml keeps the annotation meshchart.io/identity-material") }}
{%- endif -%}
{%- if (hook.injectCaFrom is empty) and (hook.injectCaFromSecret is empty) -%}
{{ (hook.caBundle if not (hook.caBundle is empty) else hook.crtPEM) | trim | b64enc }}
{%- endif -%}
