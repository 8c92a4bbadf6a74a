{#- The linkerd.io/created-by annotation's value. Context: Values. -#}
{{ Values.cliVersion | default(printf("linkerd/helm %s", (Values.image or {}).version | default(Values.linkerdVersion))) }}
{#- -#}
