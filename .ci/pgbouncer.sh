#!/usr/bin/env bash
# PgBouncer for test/pooler.test.ts (the messaging API and the worker through it in transaction
# mode): Debian's package, installed once if missing; the test starts its own, not the service.
set -euo pipefail
if [ ! -x /usr/sbin/pgbouncer ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends pgbouncer >/dev/null
fi
/usr/sbin/pgbouncer --version | head -1
