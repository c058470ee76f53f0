#!/usr/bin/env bash
# Fails when the SDK's generated types (sdk/src/generated/) differ from what the APIs' current
# OpenAPI documents generate: a contract change must come with `npm run generate -w @muse/sdk`.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent check-generated -w @muse/sdk
