#!/usr/bin/env bash
# Real Zulip clients, unmodified, against the real stack (`muse-server dev`): zulip-terminal 0.7.0
# driven under tmux (Debian's package) and the stock zulip-bots helloworld, followup and converter.
# The checks are in .ci/zulip-clients.py; the screens it captures are kept in
# $ZULIP_CLIENTS_ARTIFACTS (default .ci/artifacts/zulip-clients). Python 3.10 (zulip-terminal 0.7.0
# does not install on newer ones) comes from pyenv; the virtualenv is cached by versions.
set -euo pipefail
cd "$(dirname "$0")/.."

ZULIP_TERM_VERSION=0.7.0
ZULIP_BOTS_VERSION=0.9.1
PYTHON_VERSION=3.10.13
TOOLS="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
VENV="$TOOLS/zulip-clients-py$PYTHON_VERSION-term$ZULIP_TERM_VERSION-bots$ZULIP_BOTS_VERSION"
ARTIFACTS="${ZULIP_CLIENTS_ARTIFACTS:-$PWD/.ci/artifacts/zulip-clients}"

command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
if [ ! -x "$VENV/bin/zulip-term" ]; then
  export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
  if [ ! -x "$PYENV_ROOT/bin/pyenv" ] && ! command -v pyenv >/dev/null; then
    git clone --quiet --depth 1 https://github.com/pyenv/pyenv.git "$PYENV_ROOT"
  fi
  PYENV="$(command -v pyenv || echo "$PYENV_ROOT/bin/pyenv")"
  "$PYENV" install --skip-existing "$PYTHON_VERSION"
  "$PYENV_ROOT/versions/$PYTHON_VERSION/bin/python" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "zulip-term==$ZULIP_TERM_VERSION" "zulip-bots==$ZULIP_BOTS_VERSION"
fi

WORK="$(mktemp -d)"
export MUSE_DATA_DIR="$WORK/muse" MUSE_HOST=127.0.0.1 LOG_LEVEL=warn
export MUSE_CONTENT_PORT="${CLIENTS_CONTENT_PORT:-18180}" MUSE_CHAT_PORT="${CLIENTS_CHAT_PORT:-18181}"
export MUSE_CONTENT_METRICS_PORT=0 MUSE_CHAT_METRICS_PORT=0 MUSE_WORKER_METRICS_PORT=0
CHAT="http://127.0.0.1:$MUSE_CHAT_PORT"
server() { node packages/server/src/main.ts "$@"; }

if curl -s -o /dev/null "$CHAT/"; then echo "port $MUSE_CHAT_PORT is already in use"; exit 1; fi
node packages/server/src/main.ts dev >"$WORK/dev.log" 2>&1 &
DEV=$!
trap 'tmux kill-session -t zulip-term 2>/dev/null || true; kill "$DEV" 2>/dev/null; wait "$DEV" 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT
for _ in $(seq 1 300); do
  if curl -fs "$CHAT/readyz" >/dev/null; then break; fi
  kill -0 "$DEV" 2>/dev/null || { cat "$WORK/dev.log"; exit 1; }
  sleep 1
done
curl -fs "$CHAT/readyz" >/dev/null || { echo "the stack did not become ready"; cat "$WORK/dev.log"; exit 1; }
export DATABASE_URL="$(node -e "console.log(JSON.parse(require('fs').readFileSync('$MUSE_DATA_DIR/dev-stack.json','utf8')).DATABASE_URL)")"

server chat create-organization --name Clients >/dev/null
key() { node -e "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(JSON.parse(s).api_key));"; }
# zulip-terminal refuses a zuliprc others may read.
zuliprc() { (umask 077 && printf '[api]\nemail=%s\nkey=%s\nsite=%s\n' "$1" "$2" "$CHAT" >"$WORK/$3.zuliprc"); }
zuliprc owner@example.com "$(server chat create-user --email owner@example.com --full-name 'Olive Owner' --role owner | key)" owner
zuliprc peer@example.com "$(server chat create-user --email peer@example.com --full-name 'Pat Peer' | key)" peer
for bot in helloworld followup converter; do
  zuliprc "$bot-bot@example.com" "$(server chat create-user --email "$bot-bot@example.com" --full-name "$bot bot" | key)" "$bot"
done

mkdir -p "$ARTIFACTS"
start=$(date +%s)
"$VENV/bin/python" .ci/zulip-clients.py --venv "$VENV" --work "$WORK" --artifacts "$ARTIFACTS"
echo "zulip clients: passed in $(($(date +%s) - start)) s (screens in $ARTIFACTS)"
