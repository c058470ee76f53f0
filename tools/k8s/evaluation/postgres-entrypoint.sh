#!/bin/sh
# Initialises PGDATA on first start from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB (as the
# official postgres images do), then runs Postgres in the foreground on every address.
set -eu
POSTGRES_USER="${POSTGRES_USER:-postgres}"
POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD is required to initialise $PGDATA" >&2
    exit 1
  fi
  mkdir -p "$PGDATA"
  chmod 0700 "$PGDATA"
  password_file="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$password_file" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  # Clients come from other pods: any address, with the password.
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: initialised $PGDATA (database $POSTGRES_DB, user $POSTGRES_USER)" >&2
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
