{#- The value of the linkerd.io/created-by annotation. Context: Values. -#}
{{ Values.cliVersion or ("linkerd/helm " ~ (Values.cniPluginVersion or Values.linkerdVersion)) }}
{#- -#}
