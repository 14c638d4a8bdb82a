#!/usr/bin/env bash
# The rooms-in-memory measurement of docs/PERFORMANCE.md ("Rooms in memory"), on 127.0.0.1: a
# server with the creation and join quotas lifted (test settings) and --max-rooms-in-memory
# $CAP gets $ROOMS rooms, then a summary request for each (read from the log: no room is
# loaded), then a join for each (a join loads its room into memory: past the cap, the least
# recently used idle room is let go). After each step: the server's RSS, its peak RSS (VmHWM)
# and the senet_rooms_in_memory gauge.
#
#   cargo build --release && scripts/rooms_in_memory.sh   (ROOMS=20000 CAP=1000 by default;
#                                                          SENET_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SENET_BIN:-target/release/senet}
rooms=${ROOMS:-20000}
cap=${CAP:-1000}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

"$bin" serve --listen 127.0.0.1:0 --database-url "sqlite://$dir/senet.db" \
    --create-burst 0 --join-burst 0 --max-rooms-in-memory "$cap" --metrics-listen 127.0.0.1:0 \
    > "$dir/serve.out" 2> "$dir/serve.log" &
pid=$!
until metrics=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$dir/serve.out" 2>/dev/null) && [ -n "$metrics" ]; do
    sleep 0.1
done
addr=$(grep -o '127.0.0.1:[0-9]*' "$dir/serve.out" | head -1)
metrics=${metrics#metrics on http://}

kib() { grep "^$1:" /proc/"$pid"/status | tr -s ' ' | cut -d' ' -f2; }
report() {
    local gauge
    gauge=$(curl -s "http://$metrics/metrics" | grep '^senet_rooms_in_memory ' | cut -d' ' -f2)
    printf '%-34s RSS %6d KiB, peak %6d KiB, rooms in memory %s\n' "$1" "$(kib VmRSS)" "$(kib VmHWM)" "$gauge"
}

echo "== $rooms rooms, --max-rooms-in-memory $cap, load average $(cut -d' ' -f1-3 /proc/loadavg)"
report "started"
python3 scripts/hostile.py seed --url "$addr" --rooms "$rooms" > "$dir/rooms.txt"
report "after creating $(wc -l < "$dir/rooms.txt") rooms"
started=$(date +%s.%N)
echo "summaries: $(python3 scripts/hostile.py summaries --url "$addr" --rooms "$dir/rooms.txt") in $(echo "$(date +%s.%N) - $started" | bc) s"
report "after a summary of each"
started=$(date +%s.%N)
echo "joins: $(python3 scripts/hostile.py joins --url "$addr" --rooms "$dir/rooms.txt") in $(echo "$(date +%s.%N) - $started" | bc) s"
report "after a join of each"
kill -TERM "$pid"; wait "$pid" || true
