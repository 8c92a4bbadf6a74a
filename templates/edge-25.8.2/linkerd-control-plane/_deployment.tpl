{#- The Deployment linkerd-<component> of a proxied control-plane component.

    Context (explicit):
      Values       with the component's proxy settings already applied (proxy.component,
                   workloadKind, await, nativeSidecar, podInboundPorts, ...) and
                   proxyInit.ignoreOutboundPorts set to the Kubernetes API ports
      Release
      Chart        its Version tells the era's states apart (see releases/releases.toml)
      component    e.g. destination
      containers   the component's own containers, YAML list items at column 0
      volumes      the component's own volumes, list items at column 0
      annotations  the pod template's annotations besides the proxy's (a map)
      proxyLast    the proxy follows the component's containers (identity) instead of leading
      narrowSelector  select on the component label only (proxy-injector)
    Where the proxy goes: with proxy.nativeSidecar in initContainers after linkerd-init (or the
    network validator); otherwise in containers, first unless proxyLast. -#}
{%- set proxy = Values.proxy -%}
{%- set native = true if proxy.nativeSidecar else false -%}
{%- set labels_ctx = {"Values": Values, "Release": Release, "component": component} -%}
{%- set pod_annotations = mergeOverwrite({
  "linkerd.io/created-by": include("_created-by.tpl") | trim,
  "linkerd.io/proxy-version": proxy.image.version | default(Values.linkerdVersion),
  "cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
  "linkerd.io/trust-root-sha256": Values.identityTrustAnchorsPEM | sha256sum,
}, annotations) -%}
{%- set proxy_container = "- " ~ (include("_proxy.tpl") | indent(2) | trim) -%}
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
  labels:
    app.kubernetes.io/name: {{ component }}
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: {{ Values.linkerdVersion }}
    {{- include("_labels.tpl", labels_ctx) | trim | nindent(4) }}
  name: linkerd-{{ component }}
  namespace: {{ Release.Namespace }}
spec:
  replicas: {{ Values.controllerReplicas }}
  revisionHistoryLimit: {{ Values.revisionHistoryLimit }}
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
{%- if not narrowSelector %}
      linkerd.io/control-plane-ns: {{ Release.Namespace }}
      linkerd.io/proxy-{{ proxy.workloadKind }}: {{ proxy.component }}
{%- endif %}
{%- if Values.deploymentStrategy %}
  strategy:
    {{- Values.deploymentStrategy | toYaml | trim | nindent(4) }}
{%- endif %}
  template:
    metadata:
      annotations:
        {{- pod_annotations | toYaml | trim | nindent(8) }}
      labels:
        linkerd.io/control-plane-component: {{ component }}
        linkerd.io/control-plane-ns: {{ Release.Namespace }}
        linkerd.io/proxy-{{ proxy.workloadKind }}: {{ proxy.component }}
        linkerd.io/workload-ns: {{ Release.Namespace }}
{%- if Values.podLabels %}
        {{- Values.podLabels | toYaml | trim | nindent(8) }}
{%- endif %}
    spec:
{%- set affinity = include("_affinity.tpl", {"Values": Values, "component": component}) | trim %}
{%- if affinity %}
      {{- affinity | nindent(6) }}
{%- endif %}
      automountServiceAccountToken: false
      containers:
{%- if not native and not proxyLast %}
      {{- proxy_container | nindent(6) }}
{%- endif %}
      {{- containers | trim | nindent(6) }}
{%- if not native and proxyLast %}
      {{- proxy_container | nindent(6) }}
{%- endif %}
      initContainers:
{%- if Values.cniEnabled %}
      - {{ include("_network-validator.tpl") | indent(8) | trim }}
{%- else %}
      - {{ include("_proxy-init.tpl") | indent(8) | trim }}
{%- endif %}
{%- if native %}
      {{- proxy_container | nindent(6) }}
{%- endif %}
      nodeSelector:
        {{- Values.nodeSelector | toYaml | trim | nindent(8) }}
{%- if Values.priorityClassName %}
      priorityClassName: {{ Values.priorityClassName }}
{%- endif %}
{%- if Values.runtimeClassName %}
      runtimeClassName: {{ Values.runtimeClassName | quote }}
{%- endif %}
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      serviceAccountName: linkerd-{{ component }}
{%- if Values.tolerations %}
      tolerations:
      {{- Values.tolerations | toYaml | trim | nindent(6) }}
{%- endif %}
      volumes:
{%- if volumes | trim %}
      {{- volumes | trim | nindent(6) }}
{%- endif %}
      {{- include("_proxy-volumes.tpl") | trim | nindent(6) }}
{#- -#}
