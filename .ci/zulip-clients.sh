#!/usr/bin/env bash
# Real Zulip clients, unmodified, against the real stack (`muse-server dev`, on free ports unless
# CLIENTS_CONTENT_PORT/CLIENTS_CHAT_PORT say): zulip-terminal 0.7.0 driven under tmux (Debian's
# package), the official `zulip` Python client and the stock zulip-bots helloworld, followup and
# converter. The checks are in .ci/zulip-clients.py; the screens it captures and the answers it got
# are kept in $ZULIP_CLIENTS_ARTIFACTS (default .ci/artifacts/zulip-clients), and the answers are
# validated against Zulip's OpenAPI document (.ci/zulip-schemas.ts). The clients' Python
# environment comes from .ci/zulip-venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/zulip-stack.sh

ARTIFACTS="${ZULIP_CLIENTS_ARTIFACTS:-$PWD/.ci/artifacts/zulip-clients}"
command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
VENV="$(bash .ci/zulip-venv.sh)"
# A tmux server of its own: another run on the machine (or a user's tmux) keeps its sessions.
export ZULIP_CLIENTS_TMUX="muse-zulip-clients-$$"
STACK_CLEANUP='tmux -L "$ZULIP_CLIENTS_TMUX" kill-server 2>/dev/null || true'
CONTENT_PORT="${CLIENTS_CONTENT_PORT:-}" CHAT_PORT="${CLIENTS_CHAT_PORT:-}" start_zulip_stack Clients

zuliprc_for owner@example.com 'Olive Owner' owner --role owner
zuliprc_for peer@example.com 'Pat Peer' peer
zuliprc_for quinn@example.com 'Quinn Quill' quinn
zuliprc_for leaver@example.com 'Lee Leaver' leaver
for bot in helloworld followup converter; do
  zuliprc_for "$bot-bot@example.com" "$bot bot" "$bot"
done

mkdir -p "$ARTIFACTS"
start=$(date +%s)
"$VENV/bin/python" .ci/zulip-clients.py --venv "$VENV" --work "$WORK" --artifacts "$ARTIFACTS"
node .ci/zulip-schemas.ts "$ARTIFACTS/answers.jsonl"
echo "zulip clients: passed in $(($(date +%s) - start)) s (screens in $ARTIFACTS)"
