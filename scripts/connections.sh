#!/usr/bin/env bash
# Many idle, seated players held open on a cluster, as docs/PERFORMANCE.md reports it: N release
# servers on a fresh PostgreSQL schema, and N `senet loadgen --idle` processes, the i-th opening
# its rooms on instance i. With SPLIT=1 each room's white player sits on instance i+1 instead
# (every room then spans two instances and is held in memory by both). A process here may hold
# at most 20,000 open files, hence several of each. Once every connection is open (the servers'
# own gauge says so), each server's resident memory is read and the total printed; the load
# generators' reports follow.
#
#   [SPLIT=1] [SLACK=60] scripts/connections.sh INSTANCES ROOMS_PER_LOADGEN [HOLD_SECONDS]
#       (memory is read HOLD_SECONDS, default 20, after every connection is open; the load
#       generators hold theirs SLACK seconds longer than that after their own are open)
#   e.g. scripts/connections.sh 6 8334 60     (100,008 connections)
#        scripts/connections.sh 1 9500 60     (one instance, 19,000 connections)
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:?instances}; rooms=${2:?rooms per load generator}; hold=${3:-20}
split=${SPLIT:-0}
bin=${SENET_BIN:-target/release/senet}
base=${SENET_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
schema="conns_$(date +%s)_$RANDOM"
work=$(mktemp -d)
first_port=$((20000 + RANDOM % 10000))
psql -q "$base" -c "CREATE SCHEMA $schema"
url="$base?options=-c%20search_path%3D$schema"
pids=() ports=() loadgens=()
cleanup() {
    kill "${loadgens[@]}" "${pids[@]}" 2>/dev/null || true
    # A server closing tens of thousands of sockets (and giving their presence back) may take
    # long; one once outlived its SIGTERM by an hour, holding its advisory locks.
    for _ in $(seq 20); do
        kill -0 "${loadgens[@]}" "${pids[@]}" 2>/dev/null || break
        sleep 0.5
    done
    kill -9 "${loadgens[@]}" "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    PGOPTIONS='-c client_min_messages=warning' psql -q "$base" -c "DROP SCHEMA $schema CASCADE"
    rm -rf "$work"
}
trap cleanup EXIT
expected=$((2 * rooms * instances))
per_instance=$((2 * rooms + 100))
# Every room an instance holds has a player connected: none may be let go, so the registry's cap
# (the default 5,000) would only make each load scan for an idle room to drop.
rooms_per_instance=$((rooms * (1 + split) + 100))
for i in $(seq "$instances"); do
    port=$((first_port + i))
    "$bin" serve --listen "127.0.0.1:$port" --database-url "$url" --max-connections-per-address 0 \
        --max-tcp-connections-per-address 0 --create-burst 0 --join-burst 0 \
        --max-connections "$per_instance" --max-tcp-connections "$per_instance" \
        --max-rooms-in-memory "$rooms_per_instance" --metrics-listen "127.0.0.1:$((port + 10000))" \
        >"$work/server$i.log" 2>&1 &
    pids+=($!) ports+=("$port")
    until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.2; done
done
# /metrics is on each server's own listener, its port 10,000 above the public one.
gauge() { curl -s "http://127.0.0.1:$(($1 + 10000))/metrics" | awk '/^senet_connections_open / { print $2 }'; }
open_total() { local n=0; for p in "${ports[@]}"; do n=$((n + $(gauge "$p"))); done; echo $n; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $instances instances, $expected connections expected"
started=$SECONDS
for i in $(seq 0 $((instances - 1))); do
    home=http://127.0.0.1:${ports[$i]} away=http://127.0.0.1:${ports[$(((i + 1) % instances))]}
    targets=$home split_players=
    if [ "$split" = 1 ] && [ "$instances" -gt 1 ]; then
        targets="$home,$away" split_players=--split-players
    fi
    # --duration counts from when this load generator's rooms are all open: it must outlast
    # the others' setup and the hold (SLACK seconds more than the hold, default 60).
    "$bin" loadgen --url "$targets" $split_players --rooms "$rooms" --idle \
        --duration $((hold + ${SLACK:-60})) \
        --connect-concurrency 32 >"$work/loadgen$i.json" 2>&1 &
    loadgens+=($!)
done
# Every room open, or (when some failed to open) the count steady for 10 s.
last=-1 steady=0
while true; do
    sleep 5
    now=$(open_total)
    echo "  $((SECONDS - started)) s: $now open"
    if [ "$now" -ge "$expected" ]; then break; fi
    if [ "$now" -gt 0 ] && [ "$now" = "$last" ]; then steady=$((steady + 1)); else steady=0; fi
    if [ "$steady" -ge 2 ]; then echo "  steady short of $expected: some rooms failed to open"; break; fi
    last=$now
done
echo "open after $((SECONDS - started)) s; holding $hold s (pings go round every 15 s)"
sleep "$hold"
total_kib=0
for i in $(seq 0 $((instances - 1))); do
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/${pids[$i]}/status")
    total_kib=$((total_kib + rss))
    echo "server $((i + 1)): $(gauge "${ports[$i]}") connections, RSS $((rss / 1024)) MiB"
done
open=$(open_total)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "total: $open connections, RSS $((total_kib / 1024)) MiB, $((total_kib * 1024 / (open > 0 ? open : 1))) bytes per connection"
wait "${loadgens[@]}" || true
for i in $(seq 0 $((instances - 1))); do
    echo "load generator $((i + 1)):"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print({k: r[k] for k in (\"rooms\", \"connections\", \"errors\", \"error_kinds\")})" "$work/loadgen$i.json" || tail -5 "$work/loadgen$i.json"
done
