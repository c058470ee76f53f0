#!/usr/bin/env bash
# Redis for the tests of the Redis Streams event bus: Debian's package, installed once if missing.
set -euo pipefail
if ! command -v redis-server >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends redis-server >/dev/null
fi
redis-server --version | cut -d' ' -f1-3
