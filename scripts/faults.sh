#!/usr/bin/env bash
# Faults survived, counted (issue 31; docs/RELIABILITY.md). Each run starts fresh servers, plays
# live games through them with scripts/faults.py, strikes one fault at a moment its seed
# decides, and checks the history (faults.py says what is checked). Faults:
#
#   cut    a player's socket cut in the middle of a frame (or right after one), six times a
#          run; the player reconnects and resends the action with the same id
#   kill   SIGKILL of an instance at a random moment (half the seeds: as a rematch is asked),
#          then the instance started again on the same database
#   nginx  (postgres only) nginx stopped (SIGTERM) at a random moment and started again
#   pg-restart  (postgres only) PostgreSQL stopped (fast shutdown) and started again
#   pg-kill     (postgres only) kill -9 of the postmaster, then PostgreSQL started again
#   pg-hang     (postgres only) the proxy between the instances and PostgreSQL stops
#               forwarding without closing for $FAULT_SECONDS (default 30) seconds
#   pg-slow     (postgres only) the proxy adds 200 ms to every round trip for $FAULT_SECONDS
#   disk-full   (sqlite only) the database's own small filesystem (a tmpfs of $DISK_MB, 32 MB
#               by default) filled up for $FAULT_SECONDS, then the filler removed
#   pause       (postgres only) the first instance stopped (SIGSTOP) for $PAUSE_SECONDS (20 by
#               default), then continued (SIGCONT)
#
# each on two setups: `sqlite` (one instance on its own file) and `postgres` (two instances on
# a private PostgreSQL cluster made for the runs: initdb in a temporary directory on a free
# port, never the machine's shared one; behind nginx running deploy/nginx/senet.conf as
# shipped but for its addresses, as tests/cluster.rs runs it; `kill` strikes the first one;
# the instances reach PostgreSQL through `faults.py proxy`, a TCP proxy of each run's own).
#
#   scripts/faults.sh [--seeds N] [--first K] [--publish] [--skip FAULT/BACKEND]... [--keep DIR]
#                     [FAULT...]
#       all faults by default; seeds K (default 1) to N (default 20): a seed replays its run;
#       --skip leaves out one fault on one setup (e.g. kill/postgres); --keep copies the logs
#       (instances, nginx, senet-health, PostgreSQL) of every run that found a violation into
#       DIR/<fault>-<backend>-<seed>/, since the runs' own directory goes at the end
#
# Prints one JSON line per run and the table; exits 1 if any run found a violation. With
# --publish the table replaces the one in docs/RELIABILITY.md. SENET_BIN picks the binary
# (default: target/release/senet if built, else target/debug/senet).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=20 first=1 publish=0 keep= faults=() skips=()
while [ $# -gt 0 ]; do
    case $1 in
        --seeds) seeds=$2; shift 2 ;;
        --first) first=$2; shift 2 ;;
        --publish) publish=1; shift ;;
        --skip) skips+=("$2"); shift 2 ;;
        --keep) keep=$(realpath -m "$2"); shift 2 ;;
        *) faults+=("$1"); shift ;;
    esac
done
[ ${#faults[@]} -gt 0 ] || faults=(cut kill nginx pg-restart pg-kill pg-hang pg-slow disk-full pause)
export FAULT_SECONDS=${FAULT_SECONDS:-30} PAUSE_SECONDS=${PAUSE_SECONDS:-20} DISK_MB=${DISK_MB:-32}
bin=${SENET_BIN:-target/release/senet}
[ -x "$bin" ] || bin=target/debug/senet
bin=$(realpath "$bin")
work=$(mktemp -d)
export bin work pgport
results=$work/results.jsonl
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

# PostgreSQL's tools refuse to run as root: as root, they run as the postgres user.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi
}

cleanup() {
    # A paused instance is continued first, so that it dies.
    for p in "$work"/*.pid; do [ -e "$p" ] && kill -CONT "$(cat "$p")" 2>/dev/null; done
    for p in "$work"/*.pid; do [ -e "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done
    if mountpoint -q "$work/db"; then umount "$work/db"; fi
    if [ -d "$work/pg/data" ]; then
        as_postgres "$pgbin/pg_ctl -D $work/pg/data -m immediate stop" > /dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# $1 loopback ports nobody listens on right now, all different (held together while picked;
# an instance keeps its own across restarts).
free_ports() {
    python3 -c 'import socket, sys
held = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in held: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))' "$1"
}

# A private PostgreSQL cluster for the runs (trust authentication, loopback only).
start_postgres() {
    chmod 755 "$work" && mkdir "$work/pg"
    if [ "$(id -u)" = 0 ]; then chown postgres "$work/pg"; fi
    as_postgres "$pgbin/initdb -D $work/pg/data -A trust -U postgres" > "$work/initdb.log"
    # Milliseconds in its log: start_again reads from it when it accepted connections again.
    echo "log_line_prefix = '%m '" >> "$work/pg/data/postgresql.conf"
    # A second try on another port, should another process have taken the free one meanwhile.
    for _ in 1 2; do
        pgport=$(free_ports 1)
        as_postgres "$pgbin/pg_ctl -D $work/pg/data -l $work/pg/log -w \
            -o '-p $pgport -k $work/pg -c listen_addresses=127.0.0.1' start" > /dev/null && return
        cat "$work/pg/log"
    done
    return 1
}

# Starts `senet serve` number $1 on port $port<n> and $database; waits until /readyz says 200.
serve() {
    local n=$1 port_var="port$1"
    "$bin" serve --listen "127.0.0.1:${!port_var}" --metrics-listen 127.0.0.1:0 \
        --database-url "$database" --create-burst 0 --identify-burst 0 --join-burst 0 \
        --max-tcp-connections-per-address 0 >> "$work/serve$n.log" 2>&1 &
    echo $! > "$work/serve$n.pid"
    disown
    until curl -sf -o /dev/null "http://127.0.0.1:${!port_var}/readyz"; do
        kill -0 "$(cat "$work/serve$n.pid")" || { tail "$work/serve$n.log"; return 1; }
        sleep 0.05
    done
}

# nginx with deploy/nginx/senet.conf in front of the two instances, on $port0; its handshakes
# say which instance took them (X-Senet-Upstream), so that faults.py knows which sockets a
# paused instance holds. A master process, for senet-upstream's reloads.
start_nginx() {
    local dir=$work/nginx
    mkdir -p "$dir"
    sed -e "s/listen 80;/listen 127.0.0.1:$port0;/" \
        -e "s/server senet1:8080 /server 127.0.0.1:$port1 /" \
        -e "s/server senet2:8080 /server 127.0.0.1:$port2 /" \
        -e "s/proxy_buffering off;/&\n        add_header X-Senet-Upstream \$upstream_addr always;/" \
        deploy/nginx/senet.conf > "$dir/senet.conf"
    printf '%s\n' "daemon off;" "pid $dir/nginx.pid;" \
        "error_log $dir/error.log;" "events { worker_connections 512; }" \
        "http { access_log off; client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;" \
        "fastcgi_temp_path $dir/fastcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;" \
        "include $dir/senet.conf; }" > "$dir/nginx.conf"
    /usr/sbin/nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" &
    echo $! > "$work/nginx.pid"
    disown
    until curl -sf -o /dev/null "http://127.0.0.1:$port0/healthz"; do
        kill -0 "$(cat "$work/nginx.pid")" || { tail -3 "$dir/error.log"; return 1; }
        sleep 0.05
    done
}

# The faults' two halves, run by faults.py (bash -c): strike, then end; each prints when.
kill_one() { kill -9 "$(cat "$work/serve1.pid")" && date +%s.%N; }
restart_one() { serve 1 > /dev/null && date +%s.%N; }
stop_nginx() {
    local pid
    pid=$(cat "$work/nginx.pid")
    kill -TERM "$pid" && while kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
    date +%s.%N
}
restart_nginx() { start_nginx > /dev/null && date +%s.%N; }
# deploy/nginx/senet-health beside that nginx, as the image runs it.
start_health() {
    local dir=$work/nginx
    SENET_NGINX_CONF=$dir/senet.conf SENET_UPSTREAM_STATE=$dir/upstream \
        SENET_NGINX="/usr/sbin/nginx -p $dir -e $dir/error.log -c $dir/nginx.conf" \
        PATH="$PWD/deploy/nginx:$PATH" deploy/nginx/senet-health 2>> "$work/health.log" &
    echo $! > "$work/health.pid"
    disown
}
stop_postgres() {
    as_postgres "$pgbin/pg_ctl -D $work/pg/data -m fast stop" > /dev/null && date +%s.%N
}
kill_postgres() { kill -9 "$(head -1 "$work/pg/data/postmaster.pid")" && date +%s.%N; }
# Started again on its port; after a kill -9 its orphaned backends may hold the shared memory
# for a moment, so it is tried until it starts. The fault ends when PostgreSQL logged that it
# accepts connections again, not when pg_ctl noticed (it polls every 0.1 s: an instance could
# be ready again before that, and was, once in CI).
start_again() {
    until as_postgres "$pgbin/pg_ctl -D $work/pg/data -l $work/pg/log -w \
        -o '-p $pgport -k $work/pg -c listen_addresses=127.0.0.1' start" > /dev/null; do
        sleep 0.1
    done
    date +%s.%N -d "$(grep 'ready to accept connections' "$work/pg/log" | tail -1 | cut -d' ' -f1-3)"
}
# The proxy's signals (faults.py Proxy): SIGUSR1 hangs, SIGUSR2 slows, SIGHUP heals.
proxy() { kill "-$1" "$(cat "$work/proxy.pid")" && date +%s.%N; }
proxy_heal() { sleep "$FAULT_SECONDS" && proxy HUP; }
# The database's filesystem filled to the last byte (dd stops at ENOSPC), then freed.
fill_disk() { dd if=/dev/zero of="$work/db/filler" bs=64k 2> /dev/null; date +%s.%N; }
# The fault ends as the filler goes: the moment is taken before, the disk full until then.
free_disk() { sleep "$FAULT_SECONDS" && date +%s.%N && rm "$work/db/filler"; }
pause_one() { kill -STOP "$(cat "$work/serve1.pid")" && date +%s.%N; }
continue_one() { sleep "$PAUSE_SECONDS" && kill -CONT "$(cat "$work/serve1.pid")" && date +%s.%N; }
export -f serve start_nginx kill_one restart_one stop_nginx restart_nginx as_postgres \
    stop_postgres kill_postgres start_again proxy proxy_heal fill_disk free_disk pause_one \
    continue_one
export pgbin

# The logs of the run that just ended, into $1 (the instances' logs grow across a setup's runs:
# each run's part starts at its own "listening" line).
keep_logs() {
    mkdir -p "$1"
    cp "$work"/*.log "$1"/ 2> /dev/null || true
    [ -d "$work/nginx" ] && cp "$work/nginx/error.log" "$1/nginx-error.log"
    [ -f "$work/pg/log" ] && cp "$work/pg/log" "$1/postgres.log"
    echo "logs of $(basename "$1"): $1" >&2
}

# One run: a fresh database and instances, the games, the check.
run_one() {
    local backend=$1 fault=$2 seed=$3 inject=true heal=true url
    local proxy_port
    export database port0 port1 port2
    read -r port0 port1 port2 proxy_port <<< "$(free_ports 4)"
    if [ "$backend" = sqlite ]; then
        if mountpoint -q "$work/db"; then umount "$work/db"; fi
        rm -rf "$work/db" && mkdir "$work/db"
        # A filesystem of its own, small enough to fill at once.
        [ "$fault" = disk-full ] && mount -t tmpfs -o "size=${DISK_MB}m" tmpfs "$work/db"
        database="sqlite://$work/db/senet.db"
        serve 1
        url=127.0.0.1:$port1
    else
        local name=run_${fault//-/_}_$seed
        "$pgbin/psql" -q -h 127.0.0.1 -p "$pgport" -U postgres -c "CREATE DATABASE $name"
        python3 scripts/faults.py proxy "$proxy_port" "127.0.0.1:$pgport" &
        echo $! > "$work/proxy.pid"
        disown
        until (: < "/dev/tcp/127.0.0.1/$proxy_port") 2> /dev/null; do sleep 0.05; done
        database="postgres://postgres@127.0.0.1:$proxy_port/$name"
        serve 1 && serve 2 && start_nginx && start_health
        url=127.0.0.1:$port0
    fi
    case $fault in
        cut) ;;
        kill) inject=kill_one heal=restart_one ;;
        nginx) inject=stop_nginx heal=restart_nginx ;;
        pg-restart) inject=stop_postgres heal=start_again ;;
        pg-kill) inject=kill_postgres heal=start_again ;;
        pg-hang) inject="proxy USR1" heal=proxy_heal ;;
        pg-slow) inject="proxy USR2" heal=proxy_heal ;;
        disk-full) inject=fill_disk heal=free_disk ;;
        pause) inject=pause_one heal=continue_one ;;
        *) echo "unknown fault: $fault" >&2; exit 2 ;;
    esac
    python3 scripts/faults.py run --url "$url" --fault "$fault" --backend "$backend" \
        --seed "$seed" --bin "$bin" --inject "$inject" --heal "$heal" --struck "127.0.0.1:$port1" \
        | tee -a "$results"
    if [ -n "$keep" ] && tail -1 "$results" | grep -q '"violations": \[[^]]'; then
        keep_logs "$keep/$fault-$backend-$seed"
    fi
    for p in "$work"/*.pid; do
        kill -TERM "$(cat "$p")" 2>/dev/null || true
        rm -f "$p"
    done
}

start_postgres
for backend in sqlite postgres; do
    for fault in "${faults[@]}"; do
        # nginx, the proxy and a second instance run with the PostgreSQL pair only; the small
        # filesystem with SQLite only.
        [[ $fault == nginx || $fault == pg-* || $fault == pause ]] && [ "$backend" = sqlite ] && continue
        [ "$fault" = disk-full ] && [ "$backend" = postgres ] && continue
        if [ "$fault" = disk-full ] && [ "$(id -u)" != 0 ]; then
            echo "disk-full skipped: mounting its filesystem needs root" >&2
            continue
        fi
        [[ " ${skips[*]} " == *" $fault/$backend "* ]] && continue
        for seed in $(seq "$first" "$seeds"); do
            run_one "$backend" "$fault" "$seed"
        done
    done
done

table=$(python3 scripts/faults.py table < "$results")
echo "$table"
if [ "$publish" = 1 ]; then
    python3 scripts/faults.py publish docs/RELIABILITY.md "$table"
fi
! grep -q '"violations": \[[^]]' "$results"
