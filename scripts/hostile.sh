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
#   cargo build --release && scripts/hostile.sh     (SENET_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SENET_BIN:-target/release/senet}
ulimit -n 20000
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

# Starts `senet serve` on $dir/senet.db with the given flags; sets $pid and $addr.
serve() {
    "$bin" serve --listen 127.0.0.1:0 --database-url "sqlite://$dir/senet.db" "$@" \
        > "$dir/serve.out" 2>> "$dir/serve.log" &
    pid=$!
    until addr=$(grep -o '127.0.0.1:[0-9]*' "$dir/serve.out" 2>/dev/null | head -1) && [ -n "$addr" ]; do
        sleep 0.1
    done
}

wal_size() { stat -c %s "$dir/senet.db-wal" 2>/dev/null || echo 0; }

echo "== 10,000 rooms on a quiet server (quota lifted)"
serve --create-burst 0
started=$(date +%s.%N)
python3 scripts/hostile.py seed --url "$addr" --rooms 10000 > "$dir/rooms.txt"
echo "created $(wc -l < "$dir/rooms.txt") rooms in $(echo "$(date +%s.%N) - $started" | bc) s"
echo "WAL right after: $(wal_size) bytes"
sleep 2
echo "WAL 2 s later:   $(wal_size) bytes"
kill -TERM "$pid"; wait "$pid" || true
: > "$dir/serve.out"

echo "== hostile clients against the defaults, loadgen at 200 actions/s"
serve
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 scripts/hostile.py attack --url "$addr" --rooms "$dir/rooms.txt" --seconds 40 \
    > "$dir/attack.json" &
attack=$!
sleep 5
"$bin" loadgen --url "http://$addr" --rooms 20 --rate 200 --duration 30 --pid "$pid"
wait "$attack"
cat "$dir/attack.json"
# The server's own action-latency histogram: every action this server judged was loadgen's.
echo "server's histogram (senet_action_latency_seconds): share of actions at or under each bucket"
curl -s "http://$addr/metrics" | awk -F'[{}]' '$1 == "senet_action_latency_seconds_bucket" {
    match($2, /le="[^"]*"/); le = substr($2, RSTART + 4, RLENGTH - 5); split($3, v, " ")
    n[le] += v[1]; if (!(le in seen)) { seen[le] = 1; order[++k] = le } }
    END { for (i = 1; i <= k; i++) printf "  le %s s: %.2f%%\n", order[i], 100 * n[order[i]] / n[order[k]] }'
echo "server peak RSS: $(grep VmHWM /proc/"$pid"/status)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -TERM "$pid"; wait "$pid" || true
