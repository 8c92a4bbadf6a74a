{#- The projected service-account token volume every pod mounts by hand (the pods set
    automountServiceAccountToken: false), as a mapping at column 0. Context: none. -#}
name: kube-api-access
projected:
  defaultMode: 420
  sources:
  - serviceAccountToken:
      expirationSeconds: 3607
      path: token
  - configMap:
      items:
      - key: ca.crt
        path: ca.crt
      name: kube-root-ca.crt
  - downwardAPI:
      items:
      - fieldRef:
          apiVersion: v1
          fieldPath: metadata.namespace
        path: namespace
{#- -#}
