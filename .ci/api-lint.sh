#!/usr/bin/env bash
# Lints both APIs' OpenAPI 3.1 documents as they are served with two strict linters: Redocly CLI
# (its `recommended` rules, which include the structural check that refuses unknown keywords) and
# Spectral (`spectral:oas`). Any error fails; warnings are printed. The linters come from the npm
# registry through npx at pinned versions (cached in npm's cache after the first run).
set -euo pipefail
cd "$(dirname "$0")/.."

REDOCLY=@redocly/cli@2.77.0
SPECTRAL=@stoplight/spectral-cli@6.16.3

export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
node scripts/api-documents.ts "$out"
status=0
for api in content chat; do
  echo "--- $api.openapi.json: Redocly $REDOCLY (recommended)"
  npx --yes "$REDOCLY" lint --extends=recommended --format=stylish "$out/$api.openapi.json" || status=1
  echo "--- $api.openapi.json: Spectral $SPECTRAL (spectral:oas)"
  npx --yes "$SPECTRAL" lint --ruleset .ci/spectral.yaml --fail-severity=error --display-only-failures \
    "$out/$api.openapi.json" || status=1
done
exit "$status"
