{#- The helm.sh/chart label: name-version, with "+" (not allowed in a label) as "_". -#}
{{ Chart.Name }}-{{ Chart.Version | replace("+", "_") }}
{#- -#}
