{{/* Labels on every object. */}}
{{- define "precedent.labels" -}}
app.kubernetes.io/name: precedent
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The pods' selector (the same as config/manager's). */}}
{{- define "precedent.selector" -}}
app.kubernetes.io/name: precedent
{{- end }}

{{- define "precedent.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default (printf "v%s" .Chart.AppVersion) }}
{{- end }}

{{/* "true" when a PrecedentConfig is rendered. */}}
{{- define "precedent.hasConfig" -}}
{{- if or .Values.config .Values.extraKinds }}true{{ end }}
{{- end }}

{{/* One webhook rule: dict group version resource ops scope. */}}
{{- define "precedent.rule" -}}
- apiGroups: [{{ .group | quote }}]
  apiVersions: [{{ .version | quote }}]
  operations: [{{ join ", " .ops }}]
  resources: [{{ .resource }}]
  scope: {{ .scope }}
{{- end }}

{{/* The validating webhook's namespaced policy kinds, in webhook.Configurations' order, each with
whether its deletes are projected (and so sent to the deletes entry). */}}
{{- define "precedent.policyResources" -}}
{{- $out := include "precedent.shippedResources" . | fromJsonArray -}}
{{- range .Values.extraKinds }}
{{- $out = append $out (dict "group" .gvk.group "version" .gvk.version "resource" .resource "deletes" true) }}
{{- end }}
{{- range (include "precedent.profileResources" . | fromJsonArray) }}
{{- $out = append $out . }}
{{- end }}
{{- toJson $out }}
{{- end }}

{{/* How the API server reaches a path of the webhook Service. */}}
{{- define "precedent.clientConfig" -}}
clientConfig:
  service:
    name: precedent-webhook
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
{{- end }}

{{- define "precedent.webhookAnnotations" -}}
{{- if eq .Values.certificates.mode "certManager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/precedent-serving-cert
{{- end }}
{{- end }}
