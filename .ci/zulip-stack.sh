# Sourced by the scripts that run real Zulip clients: starts `muse-server dev` on loopback in a
# scratch folder ($WORK), waits for the messaging API, creates one organization and defines the
# helpers that write each account's zuliprc. Set CONTENT_PORT/CHAT_PORT to pin the ports (free ones
# otherwise) and STACK_CLEANUP to a command that must run before the stack stops.
#   start_zulip_stack "<organization name>"
#   zuliprc_for <email> "<full name>" <name> [--role owner]   writes $WORK/<name>.zuliprc

free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"; }
server() { node packages/server/src/main.ts "$@"; }

start_zulip_stack() {
  WORK="$(mktemp -d)"
  export MUSE_DATA_DIR="$WORK/muse" MUSE_HOST=127.0.0.1 LOG_LEVEL=warn
  export MUSE_CONTENT_PORT="${CONTENT_PORT:-$(free_port)}" MUSE_CHAT_PORT="${CHAT_PORT:-$(free_port)}"
  export MUSE_CONTENT_METRICS_PORT=0 MUSE_CHAT_METRICS_PORT=0 MUSE_WORKER_METRICS_PORT=0 MUSE_TEMPORAL_UI_PORT=0
  CHAT="http://127.0.0.1:$MUSE_CHAT_PORT"
  if curl -s -o /dev/null "$CHAT/"; then echo "port $MUSE_CHAT_PORT is already in use"; exit 1; fi
  node packages/server/src/main.ts dev >"$WORK/dev.log" 2>&1 &
  DEV=$!
  trap 'eval "${STACK_CLEANUP:-true}"; kill "$DEV" 2>/dev/null; wait "$DEV" 2>/dev/null; rm -rf "$WORK"' EXIT
  trap 'exit 143' TERM INT
  for _ in $(seq 1 300); do
    if curl -fs "$CHAT/readyz" >/dev/null; then break; fi
    kill -0 "$DEV" 2>/dev/null || { cat "$WORK/dev.log"; exit 1; }
    sleep 1
  done
  curl -fs "$CHAT/readyz" >/dev/null || { echo "the stack did not become ready"; cat "$WORK/dev.log"; exit 1; }
  DATABASE_URL="$(node -e "console.log(JSON.parse(require('fs').readFileSync('$MUSE_DATA_DIR/dev-stack.json','utf8')).DATABASE_URL)")"
  export DATABASE_URL
  server chat create-organization --name "$1" >/dev/null
}

# zulip-terminal refuses a zuliprc others may read.
zuliprc_for() {
  local email="$1" name="$2" file="$3"
  shift 3
  local key
  key="$(server chat create-user --email "$email" --full-name "$name" "$@" |
    node -e "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(JSON.parse(s).api_key));")"
  (umask 077 && printf '[api]\nemail=%s\nkey=%s\nsite=%s\n' "$email" "$key" "$CHAT" >"$WORK/$file.zuliprc")
}
