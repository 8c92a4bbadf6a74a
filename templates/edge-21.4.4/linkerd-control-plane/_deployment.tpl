{#- The Deployment linkerd-<component> of a proxied control-plane component: the component's own
    container plus the linkerd-proxy sidecar and the linkerd-init init container.

    Context (explicit):
      Values      after the component's own overrides (proxy.await, ...)
      Capabilities  the render's (the proxy partial checks proxy.nativeSidecar against
                  Capabilities.KubeVersion)
      component   e.g. destination: names, labels and the default container
      valuesKey   the component's prefix in values, e.g. proxyInjector for
                  proxyInjectorProxyResources
      container   the component's container, a YAML mapping at column 0 (named `component`)
      volumes     the component's own volumes, YAML list items at column 0 (may be empty)
      checksum    optional: the checksum/config pod annotation (none: no annotation)
      narrowSelector  optional: select on the component label only (proxy-injector and
                  sp-validator, as upstream)
    Where the proxy goes (this is the one place that decides it for the control plane):
      proxy.nativeSidecar  in initContainers, right after linkerd-init, with restartPolicy:
                           Always (Kubernetes starts it before the containers and, with
                           proxy.await, holds them until its startupProbe passes)
      proxy.await          first in containers (its postStart hook blocks the other containers
                           until it is ready)
      otherwise            last in containers, after the component's container (and debug)

    What every control-plane proxy gets, on this template's copy of Values: its workload's name
    and kind, <valuesKey>ProxyResources merged over proxy.resources, and port 443 in
    proxyInit.ignoreOutboundPorts (the controllers reach the Kubernetes API without the proxy). -#}
{%- set ignore_outbound = (Values.proxyInit.ignoreOutboundPorts | string) if Values.proxyInit.ignoreOutboundPorts else "" -%}
{%- set Values = mergeOverwrite(Values, {
  "proxy": {"component": "linkerd-" ~ component, "workloadKind": "deployment"},
  "proxyInit": {"ignoreOutboundPorts": ignore_outbound if "443" in ignore_outbound else (ignore_outbound ~ "," if ignore_outbound else "") ~ "443"}
}) -%}
{%- set proxy_resources = Values[valuesKey ~ "ProxyResources"] -%}
{%- if proxy_resources -%}
  {%- set Values = mergeOverwrite(Values, {"proxy": {"resources": merge(proxy_resources, Values.proxy.resources)}}) -%}
{%- endif -%}
{{- include("_validation.tpl") -}}
{%- set native = true if Values.proxy.nativeSidecar else false -%}
{%- set proxy_first = Values.proxy.await and not native -%}
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
  labels:
    app.kubernetes.io/name: {{ component }}
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: {{ Values.controllerImageVersion or Values.linkerdVersion }}
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Values.namespace }}
  name: linkerd-{{ component }}
  namespace: {{ Values.namespace }}
spec:
  replicas: {{ Values.controllerReplicas }}
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
      {%- if not (narrowSelector is defined and narrowSelector) %}
      linkerd.io/control-plane-ns: {{ Values.namespace }}
      linkerd.io/proxy-{{ Values.proxy.workloadKind }}: {{ Values.proxy.component }}
      {%- endif %}
  {%- if Values.enablePodAntiAffinity %}
  strategy:
    rollingUpdate:
      maxUnavailable: 1
  {%- endif %}
  template:
    metadata:
      {%- set metadata = {"Values": Values, "component": component, "container": component} %}
      {%- if checksum is defined and checksum is not none %}
      {%- set metadata = set(metadata, "checksum", checksum) %}
      {%- endif %}
      {{- include("_metadata.tpl", metadata) | trim | nindent(6) }}
    spec:
      {%- if Values.tolerations %}
      tolerations:
      {{- Values.tolerations | toYaml | trim | nindent(6) }}
      {%- endif %}
      nodeSelector:
        {{- Values.nodeSelector | toYaml | trim | nindent(8) }}
      {%- if Values.enablePodAntiAffinity %}
      {{- include("_affinity.tpl", {"component": component}) | trim | nindent(6) }}
      {%- endif %}
      containers:
      {%- if proxy_first %}
      - {{ include("_proxy.tpl") | indent(8) | trim }}
      {%- endif %}
      - {{ container | indent(8) | trim }}
      {%- if Values.debugContainer.enabled %}
      - {{ include("_debug.tpl") | indent(8) | trim }}
      {%- endif %}
      {%- if not proxy_first and not native %}
      - {{ include("_proxy.tpl") | indent(8) | trim }}
      {%- endif %}
      {%- if not Values.cniEnabled or native %}
      initContainers:
      {%- if not Values.cniEnabled %}
      - {{ include("_proxy-init.tpl") | indent(8) | trim }}
      {%- endif %}
      {%- if native %}
      - {{ include("_proxy.tpl") | indent(8) | trim }}
      {%- endif %}
      {%- endif %}
      serviceAccountName: linkerd-{{ component }}
      volumes:
      {%- if volumes | trim %}
      {{- volumes | trim | nindent(6) }}
      {%- endif %}
      {%- if not Values.cniEnabled %}
      - emptyDir: {}
        name: {{ Values.proxyInit.xtMountPath.name }}
      {%- endif %}
      - emptyDir:
          medium: Memory
        name: linkerd-identity-end-entity
{#- -#}
