{#- An admission webhook's serving Secret (unless externalSecret) and its webhook configuration,
    as YAML documents separated by `---` (no leading or trailing separator).

    Its text is laid out line for line like upstream's render, because the component's pods
    carry a checksum of the whole RBAC template's text.

    Context: Values, Release, key (the webhook's values key, e.g. profileValidator), component,
    service (its Service name, e.g. linkerd-sp-validator), kind (Validating or Mutating),
    rules (the webhook's `rules:` entries as text at column 2), mutating extras: objectSelector,
    timeout. Templates make no certificates (no randomness): meshchart's identity-material step
    fills crtPEM/keyPEM/caBundle of every webhook whose values are empty before rendering (the
    Chart.yaml annotation asks for it), so only a render without that step finds them empty. -#}
{%- set hook = Values[key] -%}
{%- set ns = Release.Namespace -%}
{%- set missing = key ~ ".crtPEM, .keyPEM and .caBundle are empty and templates cannot make a certificate: pass them (e.g. with --set-file), use " ~ key ~ ".externalSecret, or keep the annotation meshchart.io/identity-material in Chart.yaml so meshchart fills them in" -%}
{{- include("_webhook-validation.tpl", {"hook": hook, "name": key}) -}}
{%- if not hook.externalSecret %}
kind: Secret
apiVersion: v1
metadata:
  name: {{ service }}-k8s-tls
  namespace: {{ ns }}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ ns }}
{%- if Values.commonLabels %}
    {{- Values.commonLabels | toYaml | trim | nindent(4) }}
{%- endif %}
  annotations:
    linkerd.io/created-by: {{ include("_created-by.tpl") | trim }}
type: kubernetes.io/tls
data:
  tls.crt: {{ required(missing, hook.crtPEM) | trim | b64enc }}
  tls.key: {{ required(missing, hook.keyPEM) | trim | b64enc }}
---
{%- endif %}
apiVersion: admissionregistration.k8s.io/v1
kind: {{ kind }}WebhookConfiguration
metadata:
  name: {{ service }}-webhook-config
{%- if hook.injectCaFrom or hook.injectCaFromSecret %}
  annotations:
{%- if hook.injectCaFrom %}
    cert-manager.io/inject-ca-from: {{ hook.injectCaFrom }}
{%- endif %}
{%- if hook.injectCaFromSecret %}
    cert-manager.io/inject-ca-from-secret: {{ hook.injectCaFromSecret }}
{%- endif %}
{%- endif %}
  labels:
    linkerd.io/control-plane-component: {{ component }}
    linkerd.io/control-plane-ns: {{ ns }}
{%- if Values.commonLabels %}
    {{- Values.commonLabels | toYaml | trim | nindent(4) }}
{%- endif %}
webhooks:
- name: {{ service }}.linkerd.io
  namespaceSelector:
    {{- hook.namespaceSelector | toYaml | trim | nindent(4) }}
{%- if objectSelector is defined and objectSelector %}
  objectSelector:
    {{- hook.objectSelector | toYaml | trim | nindent(4) }}
{%- endif %}
  clientConfig:
    service:
      name: {{ service }}
      namespace: {{ ns }}
      path: "/"
{%- if not hook.injectCaFrom and not hook.injectCaFromSecret %}
    caBundle: {{ required(missing, hook.caBundle) | trim | b64enc }}
{%- endif %}
  failurePolicy: {{ Values.webhookFailurePolicy }}
  admissionReviewVersions: ["v1", "v1beta1"]
  rules:
{{ rules | trimAll("\n") }}
  sideEffects: None
{%- if timeout is defined and timeout %}
  timeoutSeconds: {{ timeout }}
{%- endif %}
{#- -#}
