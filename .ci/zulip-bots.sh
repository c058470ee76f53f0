#!/usr/bin/env bash
# Zulip's bot ecosystem, unmodified, against the real stack (`muse-server dev`): bots created over
# POST /bots; the stock zulip-bots incrementor, virtual_fs and tictactoe keeping their state in
# /bot_storage; zulip-botserver serving helloworld and followup behind outgoing-webhook bots; the
# `zulip` package's upload-file example. The checks are in .ci/zulip-bots.py; the bots' logs are
# kept in $ZULIP_BOTS_ARTIFACTS (default .ci/artifacts/zulip-bots). The Python environment comes
# from .ci/zulip-venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

ARTIFACTS="${ZULIP_BOTS_ARTIFACTS:-$PWD/.ci/artifacts/zulip-bots}"
VENV="$(bash .ci/zulip-venv.sh)"

WORK="$(mktemp -d)"
export MUSE_DATA_DIR="$WORK/muse" MUSE_HOST=127.0.0.1 LOG_LEVEL=warn
export MUSE_CONTENT_PORT="${BOTS_CONTENT_PORT:-18280}" MUSE_CHAT_PORT="${BOTS_CHAT_PORT:-18281}"
export MUSE_CONTENT_METRICS_PORT=0 MUSE_CHAT_METRICS_PORT=0 MUSE_WORKER_METRICS_PORT=0 MUSE_TEMPORAL_UI_PORT=0
# The bot server listens on loopback: the outbound guard lets the worker call it there only.
BOTSERVER_PORT="${BOTS_BOTSERVER_PORT:-18282}"
export MUSE_OUTBOUND_ALLOW="127.0.0.1"
CHAT="http://127.0.0.1:$MUSE_CHAT_PORT"
server() { node packages/server/src/main.ts "$@"; }

if curl -s -o /dev/null "$CHAT/"; then echo "port $MUSE_CHAT_PORT is already in use"; exit 1; fi
node packages/server/src/main.ts dev >"$WORK/dev.log" 2>&1 &
DEV=$!
trap 'kill "$DEV" 2>/dev/null; wait "$DEV" 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT
for _ in $(seq 1 300); do
  if curl -fs "$CHAT/readyz" >/dev/null; then break; fi
  kill -0 "$DEV" 2>/dev/null || { cat "$WORK/dev.log"; exit 1; }
  sleep 1
done
curl -fs "$CHAT/readyz" >/dev/null || { echo "the stack did not become ready"; cat "$WORK/dev.log"; exit 1; }
export DATABASE_URL="$(node -e "console.log(JSON.parse(require('fs').readFileSync('$MUSE_DATA_DIR/dev-stack.json','utf8')).DATABASE_URL)")"

server chat create-organization --name Bots >/dev/null
key() { node -e "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(JSON.parse(s).api_key));"; }
zuliprc() { (umask 077 && printf '[api]\nemail=%s\nkey=%s\nsite=%s\n' "$1" "$2" "$CHAT" >"$WORK/$3.zuliprc"); }
zuliprc owner@example.com "$(server chat create-user --email owner@example.com --full-name 'Olive Owner' --role owner | key)" owner
zuliprc peer@example.com "$(server chat create-user --email peer@example.com --full-name 'Pat Peer' | key)" peer
zuliprc outsider@example.com "$(server chat create-user --email outsider@example.com --full-name 'Oscar Outsider' | key)" outsider

mkdir -p "$ARTIFACTS"
start=$(date +%s)
"$VENV/bin/python" .ci/zulip-bots.py --venv "$VENV" --work "$WORK" --artifacts "$ARTIFACTS" \
  --site "$CHAT" --botserver-port "$BOTSERVER_PORT"
echo "zulip bots: passed in $(($(date +%s) - start)) s (logs in $ARTIFACTS)"
