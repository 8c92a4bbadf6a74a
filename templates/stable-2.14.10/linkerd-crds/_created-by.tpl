{#- The value of the linkerd.io/created-by annotation. Context: Values.
    This chart's defaults name no version, so unless the user sets cliVersion, image.version or
    linkerdVersion the text ends in Go's rendering of a missing printf argument, as upstream's does. -#}
{%- set image_version = Values.image.version if Values.image is mapping and Values.image.version is defined else none -%}
{{ Values.cliVersion | default(printf("linkerd/helm %s", image_version | default(Values.linkerdVersion))) }}
