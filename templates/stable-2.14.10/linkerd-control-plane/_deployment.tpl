{#- The Deployment linkerd-<component> of a proxied control-plane component.

    Context (explicit):
      Values, Release  Values after the component's own proxy settings (see _proxy.tpl)
      component        e.g. destination: names, labels, affinity
      containers       the component's own containers, YAML list items at column 0
      volumes          the component's own volumes, YAML list items at column 0
      proxyFirst       the proxy goes before the component's containers (otherwise after them)
      Chart            the chart (its Version tells the era's states apart)
      checksum         optional: the checksum/config pod annotation
      helmReleaseVersion  optional: the linkerd.io/helm-release-version pod annotation
                       (Release.Revision, unless cliVersion is set), which stable-2.14.0 has
      podAnnotations   optional: more pod annotations, YAML at column 0, before the default
                       inbound policy
      narrowSelector   optional: select on the component label only (proxy-injector)
    The init container is linkerd-init, or with cniEnabled the network validator. -#}
{%- set ns = Release.Namespace -%}
{%- set Values = mergeOverwrite(Values, {"proxy": {"component": "linkerd-" ~ component, "workloadKind": "deployment"}}) -%}
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
  labels:
    app.kubernetes.io/name: {{ component }}
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: {{ Values.linkerdVersion }}
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ ns }}
    {{- include("_common-labels.tpl", {"Values": Values, "indent": 4}) }}
  name: linkerd-{{ component }}
  namespace: {{ ns }}
spec:
  replicas: {{ Values.controllerReplicas }}
  selector:
    matchLabels:
      linkerd.io/control-plane-component: {{ component }}
      {%- if not (narrowSelector is defined and narrowSelector) %}
      linkerd.io/control-plane-ns: {{ ns }}
      linkerd.io/proxy-deployment: linkerd-{{ component }}
      {%- endif %}
  {%- if Values.deploymentStrategy %}
  strategy:
    {{- Values.deploymentStrategy | toYaml | trim | nindent(4) }}
  {%- endif %}
  template:
    metadata:
      annotations:
        {%- if helmReleaseVersion is defined and helmReleaseVersion and not Values.cliVersion %}
        linkerd.io/helm-release-version: {{ Release.Revision | quote }}
        {%- endif %}
        {%- if checksum is defined and checksum %}
        checksum/config: {{ checksum }}
        {%- endif %}
        linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
        linkerd.io/proxy-version: {{ Values.proxy.image.version | default(Values.linkerdVersion) }}
        cluster-autoscaler.kubernetes.io/safe-to-evict: "true"
        linkerd.io/trust-root-sha256: {{ Values.identityTrustAnchorsPEM | sha256sum }}
        {%- if Values.podAnnotations %}
        {{- Values.podAnnotations | toYaml | trim | nindent(8) }}
        {%- endif %}
        {%- if podAnnotations is defined and podAnnotations | trim %}
        {{- podAnnotations | trim | nindent(8) }}
        {%- endif %}
        config.linkerd.io/default-inbound-policy: "all-unauthenticated"
      labels:
        linkerd.io/control-plane-component: {{ component }}
        linkerd.io/control-plane-ns: {{ ns }}
        linkerd.io/workload-ns: {{ ns }}
        linkerd.io/proxy-deployment: linkerd-{{ component }}
        {%- if Values.podLabels %}
        {{- Values.podLabels | toYaml | trim | nindent(8) }}
        {%- endif %}
    spec:
      {%- if Values.runtimeClassName %}
      runtimeClassName: {{ Values.runtimeClassName | quote }}
      {%- endif %}
      {%- if Values.tolerations %}
      tolerations:
      {{- Values.tolerations | toYaml | trim | nindent(6) }}
      {%- endif %}
      nodeSelector:
        {{- Values.nodeSelector | toYaml | trim | nindent(8) }}
      {%- set affinity = include("_affinity.tpl", {"Values": Values, "component": component}) | trim %}
      {%- if affinity %}
      {{- affinity | nindent(6) }}
      {%- endif %}
      containers:
      {%- if proxyFirst %}
      - {{ include("_proxy.tpl") | indent(8) | trim }}
      {%- endif %}
      {{- containers | trim | nindent(6) }}
      {%- if not proxyFirst %}
      - {{ include("_proxy.tpl") | indent(8) | trim }}
      {%- endif %}
      initContainers:
      {%- if Values.cniEnabled %}
      - {{ include("_network-validator.tpl") | indent(8) | trim }}
      {%- else %}
      {#- The component talks to the API server before its proxy is ready: bypass the proxy. #}
      {%- set init_values = mergeOverwrite(Values, {"proxyInit": {"ignoreOutboundPorts": Values.proxyInit.kubeAPIServerPorts}}) %}
      - {{ include("_proxy-init.tpl", {"Values": init_values, "Release": Release, "Chart": Chart}) | indent(8) | trim }}
      {%- endif %}
      {%- if Values.priorityClassName %}
      priorityClassName: {{ Values.priorityClassName }}
      {%- endif %}
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      serviceAccountName: linkerd-{{ component }}
      volumes:
      {%- if volumes | trim %}
      {{- volumes | trim | nindent(6) }}
      {%- endif %}
      {%- if not Values.cniEnabled %}
      - emptyDir: {}
        name: {{ Values.proxyInit.xtMountPath.name }}
      {%- endif %}
      {%- if Values.identity.serviceAccountTokenProjection %}
      - name: linkerd-identity-token
        projected:
          sources:
          - serviceAccountToken:
              {#- A day; the proxy re-reads it. #}
              path: linkerd-identity-token
              expirationSeconds: 86400
              audience: identity.l5d.io
      {%- endif %}
      - emptyDir:
          medium: Memory
        name: linkerd-identity-end-entity
