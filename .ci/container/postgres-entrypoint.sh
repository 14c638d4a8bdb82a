#!/bin/bash
# First start: a cluster whose superuser is $POSTGRES_USER with $POSTGRES_PASSWORD, and the
# database $POSTGRES_DB, as the official postgres image does. Then PostgreSQL in the foreground
# as PID 1, listening on every address.
set -euo pipefail
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
        --auth-host=scram-sha-256 --auth-local=trust "$PGDATA" >/dev/null
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    # The setup server listens on no address and on a socket of its own, so the healthcheck
    # (pg_isready on the usual socket) cannot mistake it for the real one, which starts below.
    pg_ctl --wait --options="-c listen_addresses='' -c unix_socket_directories=/tmp" start >/dev/null
    createdb --host=/tmp --username="$POSTGRES_USER" "$POSTGRES_DB"
    pg_ctl --wait stop >/dev/null
fi
exec postgres -c listen_addresses='*'
