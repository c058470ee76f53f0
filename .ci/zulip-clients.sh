#!/usr/bin/env bash
# Real Zulip clients, unmodified, against the real stack (`muse-server dev`): zulip-terminal 0.7.0
# driven under tmux (Debian's package) and the stock zulip-bots helloworld, followup and converter.
# The checks are in .ci/zulip-clients.py; the screens it captures are kept in
# $ZULIP_CLIENTS_ARTIFACTS (default .ci/artifacts/zulip-clients). The clients' Python environment
# comes from .ci/zulip-venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

ARTIFACTS="${ZULIP_CLIENTS_ARTIFACTS:-$PWD/.ci/artifacts/zulip-clients}"

command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
VENV="$(bash .ci/zulip-venv.sh)"

WORK="$(mktemp -d)"
export MUSE_DATA_DIR="$WORK/muse" MUSE_HOST=127.0.0.1 LOG_LEVEL=warn
# Free ports unless given: other stacks may run on this machine.
free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"; }
export MUSE_CONTENT_PORT="${CLIENTS_CONTENT_PORT:-$(free_port)}" MUSE_CHAT_PORT="${CLIENTS_CHAT_PORT:-$(free_port)}"
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
