#!/usr/bin/env bash
# Debian's Postgres 15 (server, pg_dump, pg_restore) for test/backup-restore.test.ts, which backs up
# an install running on it with the same major version's tools: installed once if missing.
set -euo pipefail
if [ ! -x /usr/lib/postgresql/15/bin/pg_restore ] || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  export DEBIAN_FRONTEND=noninteractive
  # The binaries only: no cluster of the package's own listening on 5432.
  mkdir -p /etc/postgresql-common
  echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends postgresql-15 postgresql-client-15 >/dev/null
fi
/usr/lib/postgresql/15/bin/pg_dump --version
