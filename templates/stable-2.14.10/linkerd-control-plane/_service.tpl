{#- A control-plane Service. Context (explicit): Values, Release, name, component, ports (YAML
    list items at column 0), headless (clusterIP: None), annotations (optional, more lines at
    column 4). -#}
kind: Service
apiVersion: v1
metadata:
  name: {{ name }}
  namespace: {{ Release.Namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Release.Namespace }}
    {{- include("_common-labels.tpl", {"Values": Values, "indent": 4}) }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
    {%- if annotations is defined and annotations %}
    {{- annotations | trim | nindent(4) }}
    {%- endif %}
spec:
  {%- if headless %}
  clusterIP: None
  {%- else %}
  type: ClusterIP
  {%- endif %}
  selector:
    linkerd.io/control-plane-component: {{ component }}
  ports:
  {{- ports | trim | nindent(2) }}
