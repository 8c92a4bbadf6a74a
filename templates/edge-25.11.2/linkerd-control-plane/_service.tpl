{#- A control-plane Service, as a YAML document without the separator. Context: Values,
    Release, name, component, port (the port's name, number and target), optional headless,
    optional annotations (a map added to created-by). -#}
kind: Service
apiVersion: v1
metadata:
  name: {{ name }}
  namespace: {{ Release.Namespace }}
  labels:
    {{- include("_labels.tpl", {"Values": Values, "Release": Release, "component": component}) | trim | nindent(4) }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
{%- if annotations is defined and annotations %}
    {{- annotations | toYaml | trim | nindent(4) }}
{%- endif %}
spec:
{%- if headless is defined and headless %}
  clusterIP: None
{%- else %}
  type: ClusterIP
{%- endif %}
  selector:
    linkerd.io/control-plane-component: {{ component }}
  ports:
  - name: {{ port.name }}
    port: {{ port.port }}
    targetPort: {{ port.target }}
{#- -#}
