#!/usr/bin/env bash
# Third-party linters over charts/muse, for each values file in charts/muse/ci/ (as chart-testing
# does): `helm lint --strict`, yamllint (chart-testing's `ct lint` check of values.yaml and
# Chart.yaml), kubeconform -strict against schemas generated from the running API server's OpenAPI
# (the pinned Kubernetes version; nothing is downloaded), and kube-score. kubeconform and
# kube-score are built once from the Go module proxy and cached by version; yamllint from PyPI.
#
#   KUBECONFIG=... tools/k8s/chart-lint.sh     # needs a running API server (tools/k8s/node.sh up)
#   tools/k8s/chart-lint.sh --build            # only build the linters (when missing)
set -euo pipefail

KUBECONFORM_VERSION=v0.8.0
KUBE_SCORE_VERSION=v1.20.0
YAMLLINT_VERSION=1.38.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
chart="$here/../../charts/muse"
bin_dir="$HOME/.cache/muse-bin/chart-lint-kubeconform${KUBECONFORM_VERSION}-kube-score${KUBE_SCORE_VERSION}-yamllint${YAMLLINT_VERSION}"

if [[ ! -x "$bin_dir/kube-score" || ! -x "$bin_dir/kubeconform" || ! -d "$bin_dir/yamllint" ]]; then
  staging="$(mktemp -d "${bin_dir}.partial.XXXXXX" 2>/dev/null || { mkdir -p "$(dirname "$bin_dir")"; mktemp -d "${bin_dir}.partial.XXXXXX"; })"
  trap 'rm -rf "$staging"' EXIT
  (cd / && GOFLAGS= GOBIN="$staging" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
    "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" \
    "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION" 2>/dev/null) ||
    (cd / && for module in "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION"; do
      GOFLAGS= GOBIN="$staging" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "$module"; done)
  pip install --quiet --disable-pip-version-check --target "$staging/yamllint" "yamllint==$YAMLLINT_VERSION"
  rm -rf "$bin_dir" && mv "$staging" "$bin_dir"
  trap - EXIT
fi
[[ "${1:-}" == "--build" ]] && exit 0
yamllint() { PYTHONPATH="$bin_dir/yamllint" python3 -m yamllint "$@"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
check() { local what="$1"; shift; if "$@"; then echo "chart-lint: $what ok"; else echo "chart-lint: $what FAILED" >&2; failed=1; fi; }

check "yamllint values.yaml Chart.yaml" yamllint --strict -c "$here/yamllint.yaml" "$chart/values.yaml" "$chart/Chart.yaml"

kubectl get --raw /openapi/v2 > "$work/openapi.json"
node "$here/openapi-schemas.mjs" "$work/openapi.json" "$work/schemas"

for values in "$chart"/ci/*-values.yaml; do
  name="$(basename "$values")"
  check "helm lint --strict ($name)" helm lint --strict "$chart" -f "$values" >/dev/null
  helm template muse "$chart" -f "$values" --namespace muse > "$work/$name.rendered.yaml"
  # CRD-based kinds (ServiceMonitor, HTTPRoute) have no schema in the core OpenAPI: reported as skipped.
  check "kubeconform -strict ($name)" "$bin_dir/kubeconform" -strict -summary -ignore-missing-schemas \
    -schema-location "$work/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$work/$name.rendered.yaml"
  # Findings kept on purpose, each explained in charts/muse/README.md ("Linters").
  "$bin_dir/kube-score" score --output-format ci \
    --ignore-container-cpu-limit \
    --ignore-test container-image-pull-policy \
    --ignore-test container-security-context-user-group-id \
    --ignore-test pod-probes \
    "$work/$name.rendered.yaml" >"$work/$name.score" || true
  grep -E '^\[(CRITICAL|WARNING)\]' "$work/$name.score" | sed "s/^/chart-lint: $name: /" || true
  if grep -q '^\[CRITICAL\]' "$work/$name.score"; then
    echo "chart-lint: kube-score ($name) FAILED: critical findings" >&2; failed=1
  else echo "chart-lint: kube-score ($name) ok"; fi
done
exit "$failed"
