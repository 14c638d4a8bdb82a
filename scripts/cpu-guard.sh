#!/usr/bin/env bash
# The CI guard on the server's CPU per action (issue 51, item 4; docs/PERFORMANCE.md "The CI
# guard"): short flat-out runs of `senet loadgen --echo-baseline` (the server, then a bare
# WebSocket echo on the same clients, back to back), each on a fresh SQLite file, and the median
# of their ratios of server actions/s to echo round trips/s. Absolute rates move 2x between hosts
# and the echo alone swings by a third from run to run, so only the ratio within one run counts,
# and only its median over several.
#
#   scripts/cpu-guard.sh            runs the guard: exits 1 if the median falls below the floor
#   SENET_GUARD_RUNS=N              runs per guard (default 5)
#   SENET_GUARD_SECONDS=S           each side of a run (default 3)
#   SENET_BIN=PATH                  the server binary (default target/release/senet)
#
# FIGURE is the median ratio main measured when it was last set, and FLOOR the fraction of it
# below which the guard fails: below the lowest of 20 guards run on main (their spread is in
# docs/PERFORMANCE.md), so noise does not fail it. A change that costs CPU per action on purpose
# says so and sets FIGURE anew from 20 runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Set from 20 guards on main (bb8374e, 7 Dec 2026; docs/PERFORMANCE.md, "The CI guard"): their
# medians ran from 0.1343 to 0.1758 around 0.1529. The guard fails below 0.70 of the figure
# (0.107), 20% under the lowest of the 20: about 40% more CPU per action than main's.
FIGURE=0.1529
FLOOR=0.70

bin=${SENET_BIN:-target/release/senet}
runs=${SENET_GUARD_RUNS:-5}
seconds=${SENET_GUARD_SECONDS:-3}
work=$(mktemp -d)
server=
cleanup() {
    [ -z "$server" ] || kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One run: a fresh server on a fresh database, the load generator flat out against it and then
# against its echo; prints the ratio.
one_run() {
    local port db=$work/guard-$1.db
    port=$(free_port)
    # Flat out: the per-connection and per-address limits lifted, as in every flat-out run.
    "$bin" serve --listen "127.0.0.1:$port" --database-url "sqlite://$db" \
        --max-connections-per-address 0 --max-tcp-connections-per-address 0 \
        --max-messages-per-second 100000 --create-burst 0 --join-burst 0 \
        >"$work/server-$1.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    "$bin" loadgen --url "http://127.0.0.1:$port" --rooms 200 --duration "$seconds" \
        --per-connection-rate 0 --echo-baseline --pid "$server" >"$work/run-$1.json"
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s, e = r["server"], r["echo"]
if s["errors"] or e["errors"]:
    sys.exit("errors in the run: server %d, echo %d" % (s["errors"], e["errors"]))
cpu = s["server_cpu_seconds"] * 1e6 / max(s["actions_answered"], 1)
print("%.4f %.0f %.0f %.1f" % (r["server_to_echo"], s["actions_per_sec"], e["actions_per_sec"], cpu))
' "$work/run-$1.json"
}

ratios=()
for i in $(seq "$runs"); do
    read -r ratio server_rate echo_rate cpu < <(one_run "$i") || true
    [ -n "${ratio:-}" ] || { echo "run $i failed; its logs:" >&2; cat "$work"/*-"$i".* >&2; exit 1; }
    printf 'run %d: server %s actions/s, echo %s round trips/s, ratio %s, %s µs CPU/action\n' \
        "$i" "$server_rate" "$echo_rate" "$ratio" "$cpu"
    ratios+=("$ratio")
done
python3 - "${FIGURE:-none}" "${FLOOR:-none}" "${ratios[@]}" <<'EOF'
import statistics, sys
ratios = [float(r) for r in sys.argv[3:]]
median = statistics.median(ratios)
if "none" in sys.argv[1:3]:
    print(f"median ratio {median:.4f}; no figure committed yet: nothing to compare with")
    sys.exit(2)
figure, floor = float(sys.argv[1]), float(sys.argv[2])
least = figure * floor
print(f"median ratio {median:.4f}; committed figure {figure:.4f}; the guard fails below {least:.4f}")
if median < least:
    print("FAIL: the server's actions/s fell against the echo's: more CPU per action than main had "
          "(docs/PERFORMANCE.md, \"The CI guard\")")
    sys.exit(1)
print("ok")
EOF
