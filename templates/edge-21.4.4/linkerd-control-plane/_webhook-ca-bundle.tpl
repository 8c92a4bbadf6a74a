{#- The caBundle of a webhook configuration: base64 of <key>.caBundle, the CA certificate (PEM)
    that signed the webhook's serving certificate.

    Context (explicit): `settings`, the webhook's values (e.g. Values.proxyInjector); `key`, their
    name (e.g. proxyInjector), for messages. -#}
{%- if settings.externalSecret -%}
{{ required("If " ~ key ~ ".externalSecret is true then you need to provide " ~ key ~ ".caBundle", settings.caBundle) | trim | b64enc }}
{%- else -%}
{{ required("Please provide " ~ key ~ ".caBundle, the CA certificate (PEM) that signed " ~ key ~ ".crtPEM", settings.caBundle) | trim | b64enc }}
{%- endif -%}
