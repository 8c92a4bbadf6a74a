{{- define "helpers.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}-{{ .Values.global.team }}
{{- end -}}
