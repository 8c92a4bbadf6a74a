{#- The linkerd.io/created-by annotation's value. This chart's values carry no linkerdVersion, so
    upstream's printf prints Go's nil marker; we keep that text so both charts label alike. -#}
{{ Values.cliVersion | default(printf("linkerd/helm %s", (Values.image or {}).version | default(Values.linkerdVersion))) }}
{#- -#}
