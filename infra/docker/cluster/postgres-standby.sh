#!/bin/bash
# docker-compose.cluster.yml's hot standby: on its first start a copy of the primary (pg_basebackup, streaming
# through the replication slot cluster_standby, which it makes there), then Postgres in standby mode. Runs as the
# image's postgres user, in the upstream image and in the one built here.
set -euo pipefail
: "${PRIMARY_HOST:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}" "${PGDATA:?}"
slot=cluster_standby
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  export PGPASSWORD="$POSTGRES_PASSWORD"
  until pg_isready -q -h "$PRIMARY_HOST" -U "$POSTGRES_USER"; do sleep 1; done
  # A standby made anew (its volume removed) finds the slot of the one before: it takes that slot over.
  if ! pg_basebackup -h "$PRIMARY_HOST" -U "$POSTGRES_USER" -D "$PGDATA" -X stream -R -C -S "$slot" -c fast; then
    find "$PGDATA" -mindepth 1 -delete
    pg_basebackup -h "$PRIMARY_HOST" -U "$POSTGRES_USER" -D "$PGDATA" -X stream -R -S "$slot" -c fast
  fi
fi
chmod 700 "$PGDATA"
exec postgres -D "$PGDATA" -c listen_addresses='*' -c hba_file=/etc/postgresql/pg_hba.conf -c hot_standby_feedback=on
