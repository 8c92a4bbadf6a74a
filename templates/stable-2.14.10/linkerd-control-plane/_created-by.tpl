{#- The value of the linkerd.io/created-by annotation. Context: Values. -#}
{%- set image_version = Values.image.version if Values.image is mapping and Values.image.version is defined else none -%}
{{ Values.cliVersion | default(printf("linkerd/helm %s", image_version | default(Values.linkerdVersion))) }}
