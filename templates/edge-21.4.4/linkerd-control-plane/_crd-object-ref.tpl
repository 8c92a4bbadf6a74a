{#- OpenAPI v3 schema of a reference to another Kubernetes object (group, kind, name and, where
    allowed, namespace), as a mapping at column 0, for the policy CRDs.

    Context (explicit): `description`; `namespaced`, whether the reference may name a namespace. -#}
type: object
description: {{ description | quote }}
required:
- kind
- name
properties:
  group:
    type: string
    description: API group of the referent; empty for the core API group.
    maxLength: 253
    pattern: ^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
  kind:
    type: string
    description: Kind of the referent.
    minLength: 1
    maxLength: 63
    pattern: ^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$
  name:
    type: string
    description: Name of the referent.
    minLength: 1
    maxLength: 253
{%- if namespaced %}
  namespace:
    type: string
    description: Namespace of the referent; defaults to the policy's own namespace.
    minLength: 1
    maxLength: 63
    pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
{%- endif -%}
