{#- The kubernetes.io/tls Secret linkerd-<component>-k8s-tls a webhook serves with.

    Context (explicit): Values; `component`, e.g. proxy-injector; `key`, the values key holding
    crtPEM and keyPEM, e.g. proxyInjector. Not rendered when <key>.externalSecret: the Secret is
    then managed elsewhere. -#}
{%- set settings = Values[key] -%}
kind: Secret
apiVersion: v1
metadata:
  name: linkerd-{{ component }}-k8s-tls
  namespace: {{ Values.namespace }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ Values.namespace }}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
type: kubernetes.io/tls
data:
  tls.crt: {{ required("Please provide " ~ key ~ ".crtPEM, the webhook's serving certificate (PEM), or set " ~ key ~ ".externalSecret", settings.crtPEM) | trim | b64enc }}
  tls.key: {{ required("Please provide " ~ key ~ ".keyPEM, the private key (PEM) of " ~ key ~ ".crtPEM, or set " ~ key ~ ".externalSecret", settings.keyPEM) | trim | b64enc }}
{#- -#}
