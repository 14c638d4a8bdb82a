#!/usr/bin/env bash
# The hostile-client measurement of docs/PERFORMANCE.md ("Hostile clients"), on 127.0.0.1:
#
#  1. A quiet server with the creation quota lifted (a test setting) takes 10,000 rooms as
#     fast as they come; the SQLite WAL's size is printed right after and once the checkpoints
#     had two seconds. The server is stopped.
#  2. The same database served with the default settings. For 40 s, scripts/hostile.py holds
#     5,000 TCP connections that never send a byte (from 50 loopback addresses, reopened as
#     the server closes them), floods room creation from 127.0.0.2 and asks 2,000 summaries of
#     different rooms from 127.0.0.3, while `senet loadgen` plays 20 rooms at 200 actions/s
#     for 30 s. Printed: loadgen's report (latency p99, the server's RSS at its end), what the
#     hostile clients got, the server's own action-latency histogram and its peak RSS (VmHWM).
#
# With `all`, step 2 runs every attack at once (scripts/hostile.py all): besides the above,
# reconnect churn and seed spam on four local rooms (the log-growth attacks), a rematch chain
# and 256 connections each sending 400 KB of one unfinished header. Printed besides: the
# database's size (file and WAL), the longest room log and the bound it must stay under.
#
#   cargo build --release && scripts/hostile.sh [all]     (SENET_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SENET_BIN:-target/release/senet}
mode=${1:-attack}
ulimit -n 20000
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

# Starts `senet serve` on $dir/senet.db with the given flags; sets $pid, $addr and $metrics
# (where /metrics is: never the public listener).
serve() {
    "$bin" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
        --database-url "sqlite://$dir/senet.db" "$@" > "$dir/serve.out" 2>> "$dir/serve.log" &
    pid=$!
    until metrics=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$dir/serve.out" 2>/dev/null) \
        && [ -n "$metrics" ]; do
        sleep 0.1
    done
    addr=$(grep -o '127.0.0.1:[0-9]*' "$dir/serve.out" | head -1)
    metrics=${metrics#metrics on http://}
}

wal_size() { stat -c %s "$dir/senet.db-wal" 2>/dev/null || echo 0; }

echo "== 10,000 rooms on a quiet server (quota lifted)"
serve --create-burst 0 --identify-burst 0
started=$(date +%s.%N)
python3 scripts/hostile.py seed --url "$addr" --rooms 10000 > "$dir/rooms.txt"
echo "created $(wc -l < "$dir/rooms.txt") rooms in $(echo "$(date +%s.%N) - $started" | bc) s"
echo "WAL right after: $(wal_size) bytes"
sleep 2
echo "WAL 2 s later:   $(wal_size) bytes"
kill -TERM "$pid"; wait "$pid" || true
: > "$dir/serve.out"

echo "== hostile clients ($mode) against the defaults, loadgen at 200 actions/s"
serve
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 scripts/hostile.py "$mode" --url "$addr" --rooms "$dir/rooms.txt" --seconds 40 \
    > "$dir/attack.json" &
attack=$!
sleep 5
"$bin" loadgen --url "http://$addr" --rooms 20 --rate 200 --duration 30 --pid "$pid"
wait "$attack"
cat "$dir/attack.json"
# The server's own action-latency histogram: every action this server judged was loadgen's.
echo "server's histogram (senet_action_latency_seconds): share of actions at or under each bucket"
curl -s "http://$metrics/metrics" | awk -F'[{}]' '$1 == "senet_action_latency_seconds_bucket" {
    match($2, /le="[^"]*"/); le = substr($2, RSTART + 4, RLENGTH - 5); split($3, v, " ")
    n[le] += v[1]; if (!(le in seen)) { seen[le] = 1; order[++k] = le } }
    END { for (i = 1; i <= k; i++) printf "  le %s s: %.2f%%\n", order[i], 100 * n[order[i]] / n[order[k]] }'
echo "server peak RSS: $(grep VmHWM /proc/"$pid"/status)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -TERM "$pid"; wait "$pid" || true
echo "database: $(stat -c %s "$dir/senet.db") bytes, WAL $(wal_size) bytes"
python3 - "$dir/senet.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rooms, longest = db.execute("SELECT COUNT(*), MAX(n) FROM (SELECT COUNT(*) AS n FROM events GROUP BY room)").fetchone()
print(f"rooms with events: {rooms}; longest room log: {longest} events (LOG_BOUND, src/room/bounds.rs: 10005)")
PY
