{#- OpenAPI v3 schema of a Kubernetes label selector (matchLabels / matchExpressions), as a
    mapping at column 0, for the policy CRDs. Context: none. -#}
type: object
properties:
  matchLabels:
    type: object
    description: Labels a selected object must have, each with exactly this value.
    additionalProperties:
      type: string
  matchExpressions:
    type: array
    description: Conditions on labels; a selected object meets all of them.
    items:
      type: object
      required:
      - key
      - operator
      properties:
        key:
          type: string
        operator:
          type: string
          enum:
          - In
          - NotIn
          - Exists
          - DoesNotExist
        values:
          type: array
          items:
            type: string
{#- -#}
