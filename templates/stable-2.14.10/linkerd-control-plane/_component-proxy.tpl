{#- A control-plane component's proxy settings, as a JSON map to pass to fromJson: Values.proxy
    with <valuesKey>ProxyResources applied (its resources over proxy.resources; 2.14 takes no
    cores from it)
    and the settings every control-plane proxy shares (trust anchors from the ConfigMap,
    capabilities dropped, discovery timeouts, no preStop delay). The caller adds its own
    (await, podInboundPorts, ...). Context (explicit): Values, valuesKey. -#}
{%- set p = Values.proxy -%}
{%- set own = Values[valuesKey ~ "ProxyResources"] -%}
{%- if not (own is empty) -%}
{%- set p = set(p, "resources", merge(own, p.resources)) -%}
{%- endif -%}
{%- set p = set(p, "waitBeforeExitSeconds", 0) -%}
{%- set p = set(p, "loadTrustBundleFromConfigMap", true) -%}
{%- set p = set(p, "defaultInboundPolicy", "all-unauthenticated") -%}
{#- Replaces whatever proxy.capabilities the user set, as upstream does. -#}
{%- set p = set(p, "capabilities", {"drop": ["ALL"]}) -%}
{%- set p = set(p, "outboundDiscoveryCacheUnusedTimeout", "5s") -%}
{%- set p = set(p, "inboundDiscoveryCacheUnusedTimeout", "90s") -%}
{{ p | toJson }}
