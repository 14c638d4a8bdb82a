#!/usr/bin/env bash
# What running clocks cost (docs/PERFORMANCE.md, "Running clocks"): for each run, a fresh SQLite
# database and one release server, then `senet loadgen --idle` holding ROOMS rooms (two seated
# players each, nobody acting) for SECONDS, untimed and then timed 600+5, alternating. The
# report's server_cpu_seconds and server_context_switches are the server's own figures over the
# idle window (/proc/<pid>/stat and /proc/<pid>/task/*/status before and after).
#
#   scripts/clockcost.sh [runs] [rooms] [seconds]      (default: 3 5000 60)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3} rooms=${2:-5000} seconds=${3:-60}
bin=${SENET_BIN:-target/release/senet}
work=$(mktemp -d)
server=
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT

one() { # label [loadgen flags...]
    local label=$1; shift
    local port=$((20000 + RANDOM % 10000))
    rm -f "$work"/load.db*
    "$bin" serve --listen "127.0.0.1:$port" --database-url "sqlite://$work/load.db" \
        --max-connections-per-address 0 --max-tcp-connections-per-address 0 \
        --create-burst 0 --join-burst 0 --metrics-listen 127.0.0.1:0 >"$work/server.log" 2>&1 &
    server=$!
    until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.2; done
    local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
    "$bin" loadgen --url "http://127.0.0.1:$port" --pid "$server" --rooms "$rooms" --idle \
        --duration "$seconds" "$@" >"$work/report.json"
    kill "$server"; wait "$server" 2>/dev/null || true
    jq -c --arg name "$label" --arg load "$load" '{run: $name, load_before: $load, rooms, connections,
        errors, seconds: (.seconds * 10 | round / 10), rss_mib: (.server_rss_mib * 10 | round / 10), rss_max_mib: (.server_rss_max_mib * 10 | round / 10),
        cpu_s: .server_cpu_seconds, cpu_pct: (100 * .server_cpu_seconds / .seconds | . * 100 | round / 100),
        wakeups_per_s: (.server_context_switches / .seconds | round)}' "$work/report.json"
}

for _ in $(seq "$runs"); do
    one untimed
    one "timed 600+5" --clock 600+5
done
