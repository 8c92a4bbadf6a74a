{#- Checks the proxy settings of a control-plane component; renders nothing or fails.

    Context: the caller's Values, after its component overrides (so the message can name the
    component). The control plane cannot run without mTLS identity. -#}
{%- if Values.proxy.disableIdentity -%}
{{ fail("Can't disable identity mTLS for " ~ (Values.proxy.component or "the control plane") ~ ". Set 'proxy.disableIdentity' to 'false'") }}
{%- endif -%}
