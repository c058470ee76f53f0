#!/usr/bin/env bash
# /docs of both APIs in headless Chromium (test/browser/docs.test.ts): no console error, every
# operation listed, the example request carries the API's auth scheme, "Try it out" sends the
# operations' examples and nothing else. Installs Debian's chromium when missing; screenshots are
# left in .ci/artifacts/ (MUSE_ARTIFACTS_DIR) for CI to keep.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "installing Debian's chromium"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
export CHROMIUM_PATH="${CHROMIUM_PATH:-$(command -v chromium)}"
export MUSE_ARTIFACTS_DIR="${MUSE_ARTIFACTS_DIR:-$PWD/.ci/artifacts}"
npx vitest run --config test/browser/vitest.config.ts
echo "screenshots: $MUSE_ARTIFACTS_DIR/docs-*.png"
