#!/bin/bash
# First start: a cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD (scram), and POSTGRES_DB;
# clients from other containers authenticate with that password. Later starts reuse the data directory. As in the
# upstream image, a command `postgres -c NAME=VALUE …` (or only its settings) adds server settings, and any other
# command runs instead of the server.
set -euo pipefail
if [[ $# -gt 0 && "$1" != postgres && "$1" != -* ]]; then exec "$@"; fi
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [[ "$db" != postgres ]]; then
    postgres --single -D "$PGDATA" -c listen_addresses='' postgres <<<"CREATE DATABASE \"$db\" OWNER \"$user\";" >/dev/null
  fi
fi
[[ "${1:-}" != postgres ]] || shift
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
