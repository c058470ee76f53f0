#!/usr/bin/env bash
# Builds the trace test's OTLP receiver: a minimal OpenTelemetry Collector (the OTLP receiver and
# the file exporter; main.go, go.mod here) from the Go module proxy, into a cache directory keyed
# by the Collector release. A no-op when it is there. Prints the binary's path on stdout; progress
# goes to stderr.
#
#   tools/otelcol/build.sh          # build when missing
#   tools/otelcol/build.sh --path   # only print where the binary is (or would be)
set -euo pipefail

main() {
  COLLECTOR_VERSION=v0.161.0
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  bin="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}/otelcol-${COLLECTOR_VERSION}/muse-otelcol"

  if [[ "${1:-}" == "--path" || -x "$bin" ]]; then
    echo "$bin"
    exit 0
  fi
  command -v go >/dev/null || { echo "otelcol/build.sh: Go is needed to build the OTLP receiver (go.dev/dl)" >&2; exit 1; }

  mkdir -p "$(dirname "$bin")"
  staging="$(mktemp "${bin}.partial.XXXXXX")"
  trap 'rm -f "$staging"' EXIT
  started=$SECONDS
  echo "otelcol/build.sh: building the OpenTelemetry Collector $COLLECTOR_VERSION (OTLP receiver, file exporter)" >&2
  cd "$here"
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$staging" .
  mv "$staging" "$bin"
  trap - EXIT
  echo "otelcol/build.sh: built in $((SECONDS - started)) s" >&2
  echo "$bin"
}

main "$@"
