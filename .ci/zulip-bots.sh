#!/usr/bin/env bash
# Zulip's bot ecosystem, unmodified, against the real stack (`muse-server dev`): bots created over
# POST /bots; the stock zulip-bots incrementor, virtual_fs and tictactoe keeping their state in
# /bot_storage; zulip-botserver serving helloworld and followup behind outgoing-webhook bots; the
# `zulip` package's upload-file example. The checks are in .ci/zulip-bots.py; the bots' logs are
# kept in $ZULIP_BOTS_ARTIFACTS (default .ci/artifacts/zulip-bots). The Python environment comes
# from .ci/zulip-venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/zulip-stack.sh

ARTIFACTS="${ZULIP_BOTS_ARTIFACTS:-$PWD/.ci/artifacts/zulip-bots}"
VENV="$(bash .ci/zulip-venv.sh)"
# The bot server listens on loopback: the outbound guard lets the worker call it there only.
BOTSERVER_PORT="${BOTS_BOTSERVER_PORT:-$(free_port)}"
export MUSE_OUTBOUND_ALLOW="127.0.0.1"
CONTENT_PORT="${BOTS_CONTENT_PORT:-}" CHAT_PORT="${BOTS_CHAT_PORT:-}" start_zulip_stack Bots

zuliprc_for owner@example.com 'Olive Owner' owner --role owner
zuliprc_for peer@example.com 'Pat Peer' peer
zuliprc_for outsider@example.com 'Oscar Outsider' outsider

mkdir -p "$ARTIFACTS"
start=$(date +%s)
"$VENV/bin/python" .ci/zulip-bots.py --venv "$VENV" --work "$WORK" --artifacts "$ARTIFACTS" \
  --site "$CHAT" --botserver-port "$BOTSERVER_PORT"
echo "zulip bots: passed in $(($(date +%s) - start)) s (logs in $ARTIFACTS)"
