{{/* Names, following the usual `<release>-<chart>` convention, truncated to DNS label length. */}}
{{- define "muse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "muse.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* `<fullname>-<component>`; call with (dict "root" $ "component" "content-api"). */}}
{{- define "muse.componentName" -}}
{{- printf "%s-%s" (include "muse.fullname" .root | trunc 50 | trimSuffix "-") .component -}}
{{- end -}}

{{/*
Every component the chart runs, as a JSON list of {component, values, port, worker}: the two
APIs, the worker, one more worker per `worker.pools` entry (the worker's values overridden by the
entry's), and the operator (`operator: true` keeps the Deployment in operator.yaml). The
templates that render per component (Deployments, Services, HPAs, PDBs, NetworkPolicies) read
it with `include "muse.components" . | fromJsonArray`.
*/}}
{{- define "muse.components" -}}
{{- $components := list
  (dict "component" "content-api" "values" .Values.contentApi "port" .Values.contentApi.port)
  (dict "component" "chat-api" "values" .Values.chatApi "port" .Values.chatApi.port)
  (dict "component" "worker" "values" (omit .Values.worker "pools") "worker" true) }}
{{- range .Values.worker.pools }}
{{- $values := mergeOverwrite (deepCopy (omit $.Values.worker "pools")) (omit . "name") }}
{{- $components = append $components (dict "component" (printf "worker-%s" .name) "values" $values "worker" true) }}
{{- end }}
{{- $components = append $components (dict "component" "operator" "values" .Values.operator "operator" true) }}
{{- toJson $components }}
{{- end -}}

{{- define "muse.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Standard labels of every resource; call with the root context, or a dict with root and component. */}}
{{- define "muse.labels" -}}
{{- $root := .root | default . -}}
helm.sh/chart: {{ include "muse.chart" $root }}
app.kubernetes.io/name: {{ include "muse.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/part-of: muse
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels that select one component's pods; never change across upgrades. */}}
{{- define "muse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "muse.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "muse.annotations" -}}
{{- with .Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "muse.image" -}}
{{- $image := .Values.image -}}
{{- $ref := printf "%s/%s" $image.registry $image.repository | trimPrefix "/" -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $ref $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (default .Chart.AppVersion $image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "muse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "muse.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Service (and StatefulSet) name of an evaluation part: postgres or temporal. */}}
{{- define "muse.evaluationHost" -}}
{{- include "muse.componentName" (dict "root" .root "component" (printf "evaluation-%s" .part)) -}}
{{- end -}}

{{/* The chart's own Secret (values given inline, generated JWT secret). */}}
{{- define "muse.secretName" -}}
{{- include "muse.fullname" . -}}
{{- end -}}

{{/*
  Values the chart cannot run without, as one clear message instead of crash-looping pods. The
  evaluation install brings its own database, Temporal and generated secrets.
*/}}
{{- define "muse.validateValues" -}}
{{- $problems := list -}}
{{- $db := .Values.database -}}
{{- $evaluation := .Values.evaluation.enabled -}}
{{- if not (or $evaluation $db.url (and $db.existingSecret $db.existingSecretUrlKey) (and $db.host $db.existingSecret)) -}}
{{- $problems = append $problems "database: set database.url, or database.existingSecret with database.existingSecretUrlKey, or database.host with database.existingSecret (password key database.existingSecretPasswordKey)" -}}
{{- end -}}
{{- if not (or $evaluation .Values.temporal.address .Values.temporal.existingSecret) -}}
{{- $problems = append $problems "temporal: set temporal.address (host:port of the Temporal frontend) or temporal.existingSecret" -}}
{{- end -}}
{{- if not (or $evaluation .Values.auth.jwtSecret .Values.auth.existingSecret .Values.auth.generateJwtSecret) -}}
{{- $problems = append $problems "auth: set auth.existingSecret (key auth.existingSecretJwtKey), auth.jwtSecret, or auth.generateJwtSecret=true" -}}
{{- end -}}
{{- if not (or $evaluation .Values.auth.secretsKey .Values.auth.existingSecret .Values.auth.generateSecretsKey) -}}
{{- $problems = append $problems "secrets key (seals generator, code-provider and payment secrets): set auth.existingSecret (key auth.existingSecretSecretsKeyKey), auth.secretsKey, or auth.generateSecretsKey=true" -}}
{{- end -}}
{{- $tls := .Values.temporal.tls -}}
{{- if and $tls.existingSecret (not (or $tls.caKey $tls.certKey)) -}}
{{- $problems = append $problems "temporal: temporal.tls.existingSecret needs temporal.tls.caKey or temporal.tls.certKey and temporal.tls.keyKey" -}}
{{- end -}}
{{- if ne (empty $tls.certKey) (empty $tls.keyKey) -}}
{{- $problems = append $problems "temporal: set both temporal.tls.certKey and temporal.tls.keyKey (the client certificate and its key), or neither" -}}
{{- end -}}
{{- if .Values.s3.enabled -}}
{{- if not (and .Values.s3.endpoint .Values.s3.bucket) -}}
{{- $problems = append $problems "s3: s3.enabled needs s3.endpoint and s3.bucket" -}}
{{- end -}}
{{- if not (or .Values.s3.existingSecret (and .Values.s3.accessKeyId .Values.s3.secretAccessKey)) -}}
{{- $problems = append $problems "s3: s3.enabled needs s3.existingSecret, or s3.accessKeyId and s3.secretAccessKey" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.gateway.enabled (not .Values.gateway.parentRefs) -}}
{{- $problems = append $problems "gateway: gateway.enabled needs gateway.parentRefs (the Gateway the routes attach to)" -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nMuse chart values are incomplete:\n  - %s\n" (join "\n  - " $problems)) -}}
{{- end -}}
{{- end -}}

{{/* MUSE_TRUST_PROXY: explicit, else the ingress/gateway proxies, else nobody. */}}
{{- define "muse.trustProxy" -}}
{{- if .Values.config.trustProxy -}}
{{- .Values.config.trustProxy -}}
{{- else if and (or .Values.ingress.enabled .Values.gateway.enabled) .Values.ingress.trustedProxies -}}
{{- join "," .Values.ingress.trustedProxies -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{- define "muse.secretRef" -}}
valueFrom:
  secretKeyRef:
    name: {{ .name }}
    key: {{ .key }}
    {{- if .optional }}
    optional: true
    {{- end }}
{{- end -}}

{{/* Environment variables that come from Secrets (the rest is in the ConfigMap). */}}
{{- define "muse.secretEnv" -}}
{{- $secret := include "muse.secretName" . -}}
{{- $db := .Values.database -}}
{{- if .Values.evaluation.enabled }}
- name: MUSE_DATABASE_PASSWORD
  {{- include "muse.secretRef" (dict "name" $secret "key" "evaluation-postgres-password") | nindent 2 }}
- name: DATABASE_URL
  value: {{ printf "postgres://muse:$(MUSE_DATABASE_PASSWORD)@%s:5432/muse" (include "muse.evaluationHost" (dict "root" . "part" "postgres")) | quote }}
{{- else if and $db.existingSecret $db.existingSecretUrlKey }}
- name: DATABASE_URL
  {{- include "muse.secretRef" (dict "name" $db.existingSecret "key" $db.existingSecretUrlKey) | nindent 2 }}
{{- else if $db.url }}
- name: DATABASE_URL
  {{- include "muse.secretRef" (dict "name" $secret "key" "database-url") | nindent 2 }}
{{- else }}
- name: MUSE_DATABASE_PASSWORD
  {{- include "muse.secretRef" (dict "name" $db.existingSecret "key" $db.existingSecretPasswordKey) | nindent 2 }}
- name: DATABASE_URL
  value: {{ printf "postgres://%s:$(MUSE_DATABASE_PASSWORD)@%s:%v/%s" $db.user $db.host $db.port $db.name | quote }}
{{- end }}
{{- if .Values.temporal.existingSecret }}
- name: TEMPORAL_ADDRESS
  {{- include "muse.secretRef" (dict "name" .Values.temporal.existingSecret "key" .Values.temporal.existingSecretAddressKey) | nindent 2 }}
{{- end }}
{{- if and $db.existingSecret $db.existingSecretDirectUrlKey }}
- name: DATABASE_DIRECT_URL
  {{- include "muse.secretRef" (dict "name" $db.existingSecret "key" $db.existingSecretDirectUrlKey) | nindent 2 }}
{{- else if $db.directUrl }}
- name: DATABASE_DIRECT_URL
  {{- include "muse.secretRef" (dict "name" $secret "key" "database-direct-url") | nindent 2 }}
{{- end }}
{{- with .Values.temporal.apiKeySecret.name }}
- name: TEMPORAL_API_KEY
  {{- include "muse.secretRef" (dict "name" . "key" $.Values.temporal.apiKeySecret.key) | nindent 2 }}
{{- else }}
{{- if .Values.temporal.apiKey }}
- name: TEMPORAL_API_KEY
  {{- include "muse.secretRef" (dict "name" $secret "key" "temporal-api-key") | nindent 2 }}
{{- end }}
{{- end }}
{{- /* Both from auth.existingSecret when it is set: a missing key stops the pod, naming it. */}}
{{- $authSecret := default $secret .Values.auth.existingSecret }}
- name: MUSE_JWT_SECRET
  {{- include "muse.secretRef" (dict "name" $authSecret "key" (ternary .Values.auth.existingSecretJwtKey "jwt-secret" (not (empty .Values.auth.existingSecret)))) | nindent 2 }}
- name: MUSE_SECRETS_KEY
  {{- include "muse.secretRef" (dict "name" $authSecret "key" (ternary .Values.auth.existingSecretSecretsKeyKey "secrets-key" (not (empty .Values.auth.existingSecret)))) | nindent 2 }}
{{- if .Values.s3.enabled }}
{{- $s3secret := default $secret .Values.s3.existingSecret }}
- name: MUSE_S3_ACCESS_KEY_ID
  {{- include "muse.secretRef" (dict "name" $s3secret "key" (ternary .Values.s3.existingSecretAccessKeyIdKey "s3-access-key-id" (not (empty .Values.s3.existingSecret)))) | nindent 2 }}
- name: MUSE_S3_SECRET_ACCESS_KEY
  {{- include "muse.secretRef" (dict "name" $s3secret "key" (ternary .Values.s3.existingSecretSecretAccessKeyKey "s3-secret-access-key" (not (empty .Values.s3.existingSecret)))) | nindent 2 }}
{{- end }}
{{- with .Values.config.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Config and Secret checksums: a change rolls every pod that reads them. */}}
{{- define "muse.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end -}}

{{/*
  Volumes every pod has: the root filesystem is read-only, /tmp is not. Bounded, so a pod cannot
  fill the node's disk (the kubelet evicts it instead); also MUSE_DATA_DIR when S3 is off.
*/}}
{{- define "muse.volumes" -}}
{{- $root := .root | default . -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
{{- with $root.Values.database.ca.existingSecret }}
- name: database-ca
  secret:
    secretName: {{ . }}
    items: [{ key: {{ $root.Values.database.ca.key | quote }}, path: ca.crt }]
{{- end }}
{{- $tls := $root.Values.temporal.tls }}
{{- if and .temporal $tls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ $tls.existingSecret }}
    items:
      {{- with $tls.caKey }}
      - { key: {{ . | quote }}, path: ca.crt }
      {{- end }}
      {{- if $tls.certKey }}
      - { key: {{ $tls.certKey | quote }}, path: tls.crt }
      - { key: {{ $tls.keyKey | quote }}, path: tls.key }
      {{- end }}
{{- end }}
{{- with (.values | default dict).extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
  The container fields every Muse process shares: image, env, security, /tmp, the database CA.
  Call with the root context, or a dict with root, the component's values (its extraVolumeMounts)
  and temporal (true: the container connects to Temporal and mounts its TLS files).
*/}}
{{- define "muse.containerBase" -}}
{{- $root := .root | default . -}}
image: {{ include "muse.image" $root }}
imagePullPolicy: {{ $root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml $root.Values.containerSecurityContext | nindent 2 }}
envFrom:
  - configMapRef:
      name: {{ include "muse.fullname" $root }}
  {{- with $root.Values.config.extraEnvFrom }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- if $root.Values.database.ca.existingSecret }}
  - name: database-ca
    mountPath: /etc/muse/database-ca
    readOnly: true
  {{- end }}
  {{- if and .temporal $root.Values.temporal.tls.existingSecret }}
  - name: temporal-tls
    mountPath: /etc/muse/temporal-tls
    readOnly: true
  {{- end }}
  {{- with (.values | default dict).extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/* Init container that waits until the migrations Job has brought the schema to this image's version. */}}
{{- define "muse.waitForSchema" -}}
{{- if .Values.migrations.enabled }}
initContainers:
  - name: wait-for-schema
    {{- include "muse.containerBase" . | nindent 4 }}
    args: ["migrate", "--wait", "--timeout", {{ .Values.migrations.waitTimeoutSeconds | quote }}]
    env:
      {{- include "muse.secretEnv" . | nindent 6 }}
    resources:
      {{- toYaml .Values.migrations.resources | nindent 6 }}
{{- end }}
{{- end -}}

{{/* Scheduling fields of a component: values, plus a soft spread over nodes and zones by default. */}}
{{- define "muse.scheduling" -}}
{{- $values := .values -}}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
topologySpreadConstraints:
{{- if $values.topologySpreadConstraints }}
  {{- toYaml $values.topologySpreadConstraints | nindent 2 }}
{{- else }}
{{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
  - maxSkew: 1
    topologyKey: {{ . }}
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "muse.selectorLabels" $ | nindent 8 }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "muse.httpProbes" -}}
{{- $values := .values -}}
{{- $port := .port -}}
{{- with $values.startupProbe }}{{ if .enabled }}
startupProbe:
  httpGet: { path: /healthz, port: {{ $port }} }
  {{- toYaml (omit . "enabled") | nindent 2 }}
{{- end }}{{ end }}
{{- with $values.livenessProbe }}{{ if .enabled }}
livenessProbe:
  httpGet: { path: /healthz, port: {{ $port }} }
  {{- toYaml (omit . "enabled") | nindent 2 }}
{{- end }}{{ end }}
{{- with $values.readinessProbe }}{{ if .enabled }}
readinessProbe:
  httpGet: { path: /readyz, port: {{ $port }} }
  {{- toYaml (omit . "enabled") | nindent 2 }}
{{- end }}{{ end }}
{{- end -}}

{{/* Port of the Temporal frontend: from `temporal.address` when it names one, else the egress setting. */}}
{{- define "muse.temporalPort" -}}
{{- $parts := splitList ":" .Values.temporal.address -}}
{{- if and (gt (len $parts) 1) (regexMatch "^[0-9]+$" (last $parts)) -}}
{{- last $parts -}}
{{- else -}}
{{- .Values.networkPolicy.egress.temporalPort -}}
{{- end -}}
{{- end -}}
