#!/usr/bin/env bash
# One load run as docs/PERFORMANCE.md reports it: a fresh database, one or more release servers
# on it (optionally behind deploy/'s real nginx), `senet loadgen` against them, `vmstat 5`
# beside it, and the servers' own histograms of action latency and of the store's appends (the
# difference of /metrics before and after the run, summed over the instances, replaced ones
# included) printed next to the client's figures.
#
#   scripts/loadrun.sh sqlite|postgres [--instances N] [--nginx] [--kill-after S | --roll-after S]
#       [loadgen flags...]
#       (loadgen flags default to: --rooms 1000 --rate 2000 --duration 30)
#
# --instances N (postgres only) starts N servers on one database; loadgen opens rooms on each in
# turn, or, with --nginx, goes through nginx running deploy/nginx/senet.conf as shipped (only
# its upstream servers and its listen line are rewritten, as tests/cluster.rs does). Through
# nginx, add `--source-addresses 64` or so: nginx limits each client address as in production.
# --kill-after S (postgres, two instances or more): S seconds after every room's sockets are
# open, SIGKILL the first instance; pass loadgen `--reconnect` so its players take their seats
# again through another instance (the report's reconnect_time), and afterwards every finished
# game's record is checked with `senet verify`.
# --roll-after S (postgres, two instances or more): a rolling update, as an orchestrator makes
# one. S seconds after every room's sockets are open, each instance in turn gets SIGTERM, drains
# (its sockets closed with 1012, its rooms let go), exits, and a new process takes its place on
# the same ports; once that one is ready, and SENET_ROLL_GAP seconds (default 5) later, the next
# instance's turn comes. Pass loadgen `--reconnect` (and `--clock 600+5` to see what the clocks
# were charged): its report counts the games lost, the acknowledged actions lost, how long each
# player was away, and the time charged to a player away on its own turn; afterwards every
# finished game's record is checked with `senet verify`.
# SENET_ROLL_FROM=BIN with --roll-after: the instances start as BIN (an earlier release, e.g.
# `scripts/release-bin.sh 0.1.0`) and the rolling update replaces them with $SENET_BIN: an upgrade
# under load, old and new serving side by side on one schema while it runs (docs/UPGRADES.md).
#
# With loadgen's --tournament arena|swiss (a tournament played by --players bots; issue 45), the
# run ends with `senet tournament verify` on the database (its verdict and the pairings' CPU
# time printed; a difference makes the script exit 1) and `senet verify` on every game's record;
# add SENET_HISTOGRAM=senet_tournament_pairing_cpu_seconds to see the director's own pairing
# times.
# With loadgen's --rated (every game rated, two new players per room), the run ends with
# `senet ratings verify` on the database (its JSON verdict and exit status are printed; a
# difference makes the script exit 1) and the number of rated games.
# SENET_HISTOGRAM names other histograms to show, space-separated (scripts/histograms.sh; e.g.
# senet_seek_post_seconds for the lobby, `--lobby-sockets 2000 --rate 50`); SENET_SERVE_FLAGS
# adds `senet serve` flags (e.g. --max-seeks-per-address 0).
# postgres uses a fresh schema of $SENET_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?sqlite or postgres}; shift
instances=1 front=direct kill_after= roll_after=
while [ $# -gt 0 ]; do
    case $1 in
        --instances) instances=$2; shift 2 ;;
        --nginx) front=nginx; shift ;;
        --kill-after) kill_after=$2; shift 2 ;;
        --roll-after) roll_after=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- --rooms 1000 --rate 2000 --duration 30
if [ -n "$kill_after$roll_after" ] && { [ "$backend" != postgres ] || [ "$instances" -lt 2 ]; }; then
    echo "--kill-after and --roll-after need postgres and --instances 2 or more" >&2; exit 2
fi
bin=${SENET_BIN:-target/release/senet}
# What the instances start as: an earlier release's binary when a rolling update upgrades them.
start_bin=${SENET_ROLL_FROM:-$bin}
[ -z "${SENET_ROLL_FROM:-}" ] || [ -n "$roll_after" ] || { echo "SENET_ROLL_FROM needs --roll-after" >&2; exit 2; }
work=$(mktemp -d)
first_port=$((20000 + RANDOM % 10000))
case $backend in
    sqlite)
        [ "$instances" = 1 ] || { echo "several instances need postgres" >&2; exit 2; }
        url="sqlite://$work/load.db" ;;
    postgres)
        base=${SENET_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
        schema="load_$(date +%s)_$RANDOM"
        psql -q "$base" -c "CREATE SCHEMA $schema"
        url="$base?options=-c%20search_path%3D$schema" ;;
    *) echo "backend: sqlite or postgres" >&2; exit 2 ;;
esac
pids=() ports=() metrics_ports=() vmstat= nginx= killer=
cleanup() {
    kill "${pids[@]}" $(cat "$work"/pid* 2>/dev/null) $nginx $vmstat $killer 2>/dev/null || true
    wait 2>/dev/null || true
    # SENET_KEEP_LOGS=DIR keeps the servers' and nginx's logs there.
    if [ -n "${SENET_KEEP_LOGS:-}" ]; then mkdir -p "$SENET_KEEP_LOGS"; cp "$work"/server*.log "$work"/nginx/error.log "$SENET_KEEP_LOGS"/ 2>/dev/null || true; fi
    if [ "$backend" = postgres ]; then psql -q "$base" -c "DROP SCHEMA $schema CASCADE"; fi
    rm -rf "$work"
}
trap cleanup EXIT
# Starts instance $1 (from 1) on its ports and waits until it is ready.
start_instance() {
    local i=$1 port=$((first_port + $1))
    # /metrics is served only on its own listener (--metrics-listen).
    local metrics_port=$((port + 10000)) quotas=(--create-burst 0 --join-burst 0)
    # (--identify-burst came after 0.1.0.)
    if "$start_bin" serve --help | grep -q -- --identify-burst; then quotas+=(--identify-burst 0); fi
    "$start_bin" serve --listen "127.0.0.1:$port" --database-url "$url" --max-connections-per-address 0 \
        --max-tcp-connections-per-address 0 "${quotas[@]}" \
        --metrics-listen "127.0.0.1:$metrics_port" \
        --trusted-proxies 127.0.0.1/32 ${SENET_SERVE_FLAGS:-} >>"$work/server$i.log" 2>&1 &
    pids[i - 1]=$! ports[i - 1]=$port metrics_ports[i - 1]=$metrics_port
    # Kept in a file too: the rolling update starts instances from a subshell.
    echo $! >"$work/pid$i"
    # The next starts once this one has migrated the schema; one that is not ready in a minute
    # (a flag refused, the database unreachable) ends the run with its log.
    for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || ! kill -0 "${pids[i - 1]}" 2>/dev/null && break
        sleep 0.2
    done
    if ! curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; then
        echo "instance $i is not ready; its log:" >&2; cat "$work/server$i.log" >&2; exit 1
    fi
}
for i in $(seq "$instances"); do start_instance "$i"; done

# deploy/'s nginx config, pointed at these instances, in a prefix of its own.
start_nginx() {
    local port=$first_port servers= params
    # The shipped server parameters (max_fails...), kept.
    params=$(sed -n 's|^ *server senet1:8080\(.*\)$|\1|p' deploy/nginx/senet.conf)
    for p in "${ports[@]}"; do servers+="    server 127.0.0.1:$p$params\n"; done
    mkdir -p "$work/nginx"
    sed -e '/^ *server senet2:8080/d' -e "s|^ *server senet1:8080.*|$servers|" \
        -e "s|^ *listen 80;|    listen 127.0.0.1:$port;|" deploy/nginx/senet.conf >"$work/nginx/senet.conf"
    cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
worker_rlimit_nofile 20000;
events { worker_connections 9000; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    include $work/nginx/senet.conf;
}
EOF
    /usr/sbin/nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
    nginx=$!
    until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.2; done
    targets="http://127.0.0.1:$port"
}
if [ "$front" = nginx ]; then
    start_nginx
else
    targets=$(printf 'http://127.0.0.1:%s,' "${ports[@]}"); targets=${targets%,}
fi

# The instances' /metrics, one after the other.
scrape() {
    for port in "${metrics_ports[@]}"; do curl -s "http://127.0.0.1:$port/metrics"; done
}
# shellcheck source=scripts/histograms.sh
. scripts/histograms.sh
# The sum of the instances' open WebSockets (a killed one counts nothing).
open_sockets() {
    scrape | awk '$1 == "senet_connections_open" { n += $2 } END { print n + 0 }'
}
# SIGKILLs the first instance $kill_after s after all of loadgen's sockets are open.
kill_first_instance_later() {
    local rooms
    rooms=$(grep -oP '(?<=--rooms )[0-9]+' <<<"$*" || echo 10)
    until [ "$(open_sockets)" -ge $((2 * rooms)) ]; do sleep 0.2; done
    sleep "$kill_after"
    kill -KILL "${pids[0]}"
    echo "killed instance 1 (pid ${pids[0]}) at $(date +%T.%N | cut -c1-12)" >&2
}
# Replaces every instance in turn, $roll_after s after all of loadgen's sockets are open: SIGTERM,
# its exit awaited (the drain), a new process on its ports, ready, then the next.
roll_instances_later() {
    local rooms i started
    rooms=$(grep -oP '(?<=--rooms )[0-9]+' <<<"$*" || echo 10)
    until [ "$(open_sockets)" -ge $((2 * rooms)) ]; do sleep 0.2; done
    sleep "$roll_after"
    start_bin=$bin
    for i in $(seq "$instances"); do
        # Its histograms so far, which its replacement starts again from zero (what it
        # measures while it drains is not counted).
        curl -s "http://127.0.0.1:${metrics_ports[i - 1]}/metrics" >>"$work/retired.metrics"
        started=$EPOCHREALTIME
        kill -TERM "${pids[i - 1]}"
        while kill -0 "${pids[i - 1]}" 2>/dev/null; do sleep 0.05; done
        echo "instance $i: SIGTERM at $(date +%T), drained and exited in $(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $started }") s" >&2
        start_instance "$i"
        echo "instance $i: replaced and ready $(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $started }") s after its SIGTERM" >&2
        sleep "${SENET_ROLL_GAP:-5}"
    done
}
# Every finished game's record, checked by `senet verify` (through the first instance alive);
# the rooms are $1's lines if given, else every room with a game-over (PostgreSQL).
verify_finished_games() {
    local live=${ports[0]} room checked=0 failed=0 rooms
    if [ $# -gt 0 ]; then rooms=$(cat "$1"); else
        rooms=$(psql -qAt "$url" -c "SELECT room FROM events WHERE kind = 'game-over'"); fi
    for room in $rooms; do
        # A 503 (the database slow for a while after the load) is asked again, a second apart.
        curl -s --retry 10 --retry-delay 1 "http://127.0.0.1:$live/api/rooms/$room/record" >"$work/record.json"
        if "$bin" verify "$work/record.json" >/dev/null; then checked=$((checked + 1)); else
            failed=$((failed + 1)); echo "verify failed: $room" >&2; fi
    done
    echo "senet verify: $checked finished games consistent, $failed not"
    unverified=$failed
}

scrape | histogram >"$work/before"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); instances: $instances ($front)"
vmstat 5 >"$work/vmstat" & vmstat=$!
if [ -n "$kill_after" ]; then kill_first_instance_later "$@" & killer=$!; fi
if [ -n "$roll_after" ]; then roll_instances_later "$@" & killer=$!; fi
# The memory reported is the first instance's (the second's when the first is killed; none when
# every instance is replaced).
tournament=
if [[ " $* " == *" --tournament "* ]]; then tournament=1; set -- "$@" --games-out "$work/games"; fi
if [ -n "$roll_after" ]; then
    "$bin" loadgen --url "$targets" "$@"
else
    "$bin" loadgen --url "$targets" --pid "${pids[$([ -n "$kill_after" ] && echo 1 || echo 0)]}" "$@"
fi | tee "$work/report.json"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
kill $vmstat
if [ -n "$roll_after" ]; then
    wait $killer || echo "the rolling update did not finish" >&2
    killer=
    for i in $(seq "$instances"); do pids[i - 1]=$(cat "$work/pid$i"); done
    verify_finished_games
fi
if [ -n "$kill_after" ]; then
    wait $killer || true; killer=
    unset 'pids[0]' 'ports[0]' 'metrics_ports[0]'
    pids=("${pids[@]}") ports=("${ports[@]}") metrics_ports=("${metrics_ports[@]}")
    instances=$((instances - 1))
    verify_finished_games
fi
rated_status=0
if [ -n "$tournament" ]; then
    id=$(jq -r .tournament "$work/report.json")
    verdict=$("$bin" tournament verify --database-url "$url" --id "$id") || rated_status=$?
    echo "senet tournament verify (exit status $rated_status): $(jq -c '{consistent, tournament, difference, pairing_cpu_ms, players: (.standings | length)}' <<<"$verdict")"
    verify_finished_games "$work/games"
    [ "$unverified" = 0 ] || rated_status=1
fi
if [[ " $* " == *" --rated "* ]]; then
    verdict=$("$bin" ratings verify --database-url "$url") || rated_status=$?
    echo "senet ratings verify (exit status $rated_status): $verdict"
fi
{ scrape; cat "$work/retired.metrics" 2>/dev/null || true; } | histogram >"$work/after"
echo "servers' histograms (this run, summed over the instances, replaced ones included): bucket le, share of samples at or under it"
histogram_shares "$work/before" "$work/after"
echo "vmstat 5 during the run:"; cat "$work/vmstat"
for i in $(seq "$instances"); do
    echo "server $i RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/${pids[$((i - 1))]}/status")"
done
exit "$rated_status"
