#!/usr/bin/env bash
# One load run as docs/PERFORMANCE.md reports it: a fresh database, one release server, `senet
# loadgen` against it, `vmstat 5` beside it, and the server's own action-latency histogram (the
# difference of /metrics before and after the run) printed next to the client's figures.
#
#   scripts/loadrun.sh sqlite|postgres [loadgen flags...]   (default: --rooms 1000 --rate 2000 --duration 30)
#
# SENET_HISTOGRAM names another histogram to show (e.g. senet_seek_post_seconds for the lobby,
# `--lobby-sockets 2000 --rate 50`), SENET_SERVE_FLAGS adds `senet serve` flags
# (e.g. --max-seeks-per-address 0).
#
# postgres uses a fresh schema of $SENET_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?sqlite or postgres}; shift
[ $# -gt 0 ] || set -- --rooms 1000 --rate 2000 --duration 30
bin=${SENET_BIN:-target/release/senet}
work=$(mktemp -d)
port=$((20000 + RANDOM % 10000))
case $backend in
    sqlite) url="sqlite://$work/load.db" ;;
    postgres)
        base=${SENET_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
        schema="load_$(date +%s)_$RANDOM"
        psql -q "$base" -c "CREATE SCHEMA $schema"
        url="$base?options=-c%20search_path%3D$schema" ;;
    *) echo "backend: sqlite or postgres" >&2; exit 2 ;;
esac
"$bin" serve --listen "127.0.0.1:$port" --database-url "$url" --max-connections-per-address 0 \
    --max-tcp-connections-per-address 0 --create-burst 0 --join-burst 0 ${SENET_SERVE_FLAGS:-} >"$work/server.log" 2>&1 &
server=$!
vmstat=
trap 'kill $server $vmstat 2>/dev/null; wait $server 2>/dev/null; [ "$backend" = postgres ] && psql -q "$base" -c "DROP SCHEMA $schema CASCADE"; rm -rf "$work"' EXIT
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.2; done
metric=${SENET_HISTOGRAM:-senet_action_latency_seconds}
# Buckets summed over the labels (action types, modes): `le count` lines. None before any action.
histogram() {
    curl -s "http://127.0.0.1:$port/metrics" |
        awk -F'[{}]' -v metric="${metric}_bucket" '$1 == metric { match($2, /le="[^"]*"/); le = substr($2, RSTART + 4, RLENGTH - 5); split($3, v, " "); n[le] += v[1]; if (!(le in seen)) { seen[le] = 1; order[++k] = le } } END { for (i = 1; i <= k; i++) print order[i], n[order[i]] }'
}
histogram >"$work/before"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
vmstat 5 >"$work/vmstat" & vmstat=$!
"$bin" loadgen --url "http://127.0.0.1:$port" --pid "$server" "$@"
kill $vmstat
histogram >"$work/after"
echo "server's histogram ($metric, this run): bucket le, share of samples at or under it"
awk 'FILENAME == ARGV[1] { before[$1] = $2; next } { le[++k] = $1; d[k] = $2 - before[$1] } END { for (i = 1; i <= k; i++) printf "  le %s s: %.2f%%\n", le[i], 100 * d[i] / d[k] }' "$work/before" "$work/after"
echo "vmstat 5 during the run:"; cat "$work/vmstat"
