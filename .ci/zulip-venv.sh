#!/usr/bin/env bash
# The Python environment of the real Zulip clients the CI steps drive, unmodified: zulip-terminal
# 0.7.0, zulip-bots and zulip-botserver (with the `zulip` API package they depend on). Python 3.10
# (zulip-terminal 0.7.0 does not install on newer ones) comes from pyenv; the virtualenv is cached
# by versions. Prints the virtualenv's path on stdout; progress goes to stderr.
set -euo pipefail

ZULIP_TERM_VERSION=0.7.0
ZULIP_BOTS_VERSION=0.9.1
PYTHON_VERSION=3.10.13
TOOLS="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
VENV="$TOOLS/zulip-clients-py$PYTHON_VERSION-term$ZULIP_TERM_VERSION-bots$ZULIP_BOTS_VERSION-botserver$ZULIP_BOTS_VERSION"

if [ ! -x "$VENV/bin/zulip-botserver" ]; then
  echo "zulip-venv.sh: installing zulip-term $ZULIP_TERM_VERSION, zulip-bots and zulip-botserver $ZULIP_BOTS_VERSION on Python $PYTHON_VERSION" >&2
  export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
  if [ ! -x "$PYENV_ROOT/bin/pyenv" ] && ! command -v pyenv >/dev/null; then
    git clone --quiet --depth 1 https://github.com/pyenv/pyenv.git "$PYENV_ROOT"
  fi
  PYENV="$(command -v pyenv || echo "$PYENV_ROOT/bin/pyenv")"
  "$PYENV" install --skip-existing "$PYTHON_VERSION" >&2
  rm -rf "$VENV"
  "$PYENV_ROOT/versions/$PYTHON_VERSION/bin/python" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "zulip-term==$ZULIP_TERM_VERSION" "zulip-bots==$ZULIP_BOTS_VERSION" "zulip-botserver==$ZULIP_BOTS_VERSION" >&2
fi
echo "$VENV"
