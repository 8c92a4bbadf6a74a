{#- OpenAPI v3 schema of a list of client networks (CIDRs with exceptions), as a mapping at
    column 0, for the policy CRDs. Context (explicit): `description`. -#}
type: array
description: {{ description | quote }}
items:
  type: object
  required:
  - cidr
  properties:
    cidr:
      type: string
      description: A network in CIDR notation, IPv4 or IPv6, e.g. 10.0.0.0/8.
    except:
      type: array
      description: Networks inside cidr that are not part of it.
      items:
        type: string
{#- -#}
