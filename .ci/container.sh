#!/usr/bin/env bash
# The container as operators run it, built and played in with podman (docker takes the same
# arguments): the image from the Dockerfile, one container on a named volume, then the compose
# stack of deploy/ (PostgreSQL, two instances, nginx); `compose` and `rolling` also replace
# every instance in turn while games go on. Each check prints one line; any failure
# stops the script. No image registry is reachable here, so the base images the Dockerfiles
# name are made locally (from Debian's packages and this machine's Rust toolchain) and reused
# when they already exist.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
# Runtime and limits for this machine (see the file); builds in a chroot, in Docker's format,
# which keeps the Dockerfile's SHELL line (the OCI format drops it, and pipefail with it).
export CONTAINERS_CONF="$PWD/.ci/container/containers.conf" BUILDAH_ISOLATION=chroot BUILDAH_FORMAT=docker

here=.ci/container
image=localhost/senet:ci
port=18080
url=http://127.0.0.1:$port
work=$(mktemp -d /var/tmp/senet-container.XXXXXX)
# What the checks start, removed however the script ends.
cleanup() {
    podman rm --force --volumes --time 0 senet-ci senet-ci-2 >/dev/null 2>&1 || true
    local load
    for load in $(podman ps --all --format '{{.Names}}' 2>/dev/null | grep '^senet-ci-load' || true); do
        podman rm --force --time 0 "$load" >/dev/null 2>&1 || true
    done
    podman volume rm --force senet-ci-data >/dev/null 2>&1 || true
    remove_compose_stack
    rm -rf "$work"
}
trap cleanup EXIT

# The compose stack and everything it leaves, so that no run starts on another's: its
# containers (the instances a rolling update replaced too, once nginx, which required them, is
# gone), its database's volume (compose down kept it once, and the next run loaded 908 games
# left in it) and its network (whose address allocations would carry over).
remove_compose_stack() {
    local replaced
    compose down --volumes --timeout 0 >/dev/null 2>&1 || true
    for replaced in $(podman ps --all --format '{{.Names}}' 2>/dev/null | grep '^senet-ci-replaced' || true); do
        podman rm --force --volumes --time 0 "$replaced" >/dev/null 2>&1 || true
    done
    podman volume rm --force senetci_postgres >/dev/null 2>&1 || true
    podman network rm --force senetci_senet >/dev/null 2>&1 || true
}

ok() { printf 'ok: %s\n' "$*"; }
fail() {
    printf 'FAILED: %s\n' "$*" >&2
    show_logs >&2
    exit 1
}
# The last lines of every container this script started that still exists: what a failure
# needs to be understood, since the cleanup removes them.
show_logs() {
    local name
    for name in $(podman ps --all --format '{{.Names}}' | grep -E '^(senet-ci|senetci_)' || true); do
        printf -- '--- podman logs %s (last 40 lines)\n' "$name"
        podman logs --tail 40 "$name" 2>&1 | grep -v 'systemd connection' || true
    done
}
# Runs a command with its output in $work/<name>.log, shown only if it fails.
logged() {
    local log="$work/$1.log"
    shift
    "$@" >"$log" 2>&1 || { tail -n 40 "$log"; fail "$*"; }
}
# The value of `ARG name=value` in a Dockerfile.
dockerfile_arg() { sed -n "s/^ARG $2=//p" "$1"; }

install_packages() {
    local missing=()
    command -v podman-compose >/dev/null || python3 -m pip install --quiet podman-compose
    for tool in podman:podman runc:runc mmdebstrap:mmdebstrap newuidmap:uidmap python3:python3; do
        command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    podman --version
}

# debian:<release>-slim: Debian's minimal base, slimmed as Docker's is: merged /usr without the
# usrmerge package (which pulls in perl), and no manuals, docs or translations, in later
# installs too (the dpkg options stay in the image).
make_debian_base() {
    local name=docker.io/library/debian:$1-slim
    if podman image exists "$name"; then ok "base $name present"; return; fi
    logged debian-base mmdebstrap --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
        "$1" "$work/rootfs.tar"
    podman import --quiet --change 'CMD ["bash"]' "$work/rootfs.tar" "$name" >/dev/null
    rm "$work/rootfs.tar"
    ok "base $name made with mmdebstrap"
}

# rust:<version>-slim-<release>: this machine's toolchain, which must be the version the
# Dockerfile asks for, on the Debian base.
make_rust_base() {
    local name=docker.io/library/rust:$1-slim-$2 sysroot
    if podman image exists "$name"; then ok "base $name present"; return; fi
    sysroot=$(rustc --print sysroot)
    rustc --version | grep -F " $1." >/dev/null \
        || fail "the Dockerfile wants Rust $1, this machine has $(rustc --version)"
    mkdir "$work/rust"
    tar -C "$sysroot" --exclude=./share/doc -cf - . | tar -C "$work/rust" -xf -
    cp /etc/ssl/certs/ca-certificates.crt "$work/"
    logged rust-base podman build --tag "$name" --file "$PWD/$here/rust.Containerfile" "$work"
    rm -rf "$work/rust"
    ok "base $name made from $sysroot"
}

# Waits up to $2 seconds (default 60: a first start on a loaded machine is slow) for a URL to
# answer 200.
wait_for() {
    local patience=${2:-60}
    for _ in $(seq $((patience * 2))); do
        curl -fsS -o /dev/null "$1" 2>/dev/null && return
        sleep 0.5
    done
    fail "$1 did not answer within $patience s"
}

# The stack of deploy/docker-compose.yml, under a project name of its own.
compose() { podman-compose --project-name senetci --file deploy/docker-compose.yml "$@"; }
game() { python3 "$here/game.py" "$@"; }
# histogram, histogram_shares: the instances' own latency histograms.
# shellcheck source=scripts/histograms.sh
. scripts/histograms.sh
# One field of a JSON object.
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# The PostgreSQL image the compose file names, from Debian's package.
# Made again when its recipe changed (a label carries the recipe's hash).
make_postgres_base() {
    local name recipe
    name=docker.io/library/$(sed -n 's/^ *image: *\(postgres:.*\)/\1/p' deploy/docker-compose.yml)
    recipe=$(cat "$here/postgres.Containerfile" "$here/postgres-entrypoint.sh" | sha256sum | cut -c1-16)
    if [ "$(podman image inspect --format '{{index .Labels "senet.ci.recipe"}}' "$name" 2>/dev/null)" = "$recipe" ]; then
        ok "base $name present"
        return
    fi
    logged postgres-base podman build --label "senet.ci.recipe=$recipe" --tag "$name" \
        --file "$here/postgres.Containerfile" "$here"
    ok "base $name made from Debian's postgresql package"
}

# The WebSockets open on compose container $1, from its metrics (the image has no HTTP client
# to run inside it).
open_sockets() {
    sed -n 's/^senet_connections_open \([0-9]*\).*/\1/p' <<<"$(curl -fsS "$(instance_url "$1" 8808)/metrics")"
}
# Compose container $1's own URL, at its address on the compose network, on port $2 (8080: the
# public listener; 8808: /metrics).
instance_url() {
    echo "http://$(podman inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"):${2:-8080}"
}

# Whether a reconnection ($2) found the game where the player left it ($1): the same position,
# and no event lost (presence events for the disconnection may follow it).
same_game() {
    [ "$(field "$2" welcome_position)" = "$(field "$1" position)" ] \
        && [ "$(field "$2" welcome_v)" -ge "$(field "$1" v)" ]
}

build_image() {
    local started=$SECONDS
    logged build podman build --tag "$image" .
    ok "image $image built in $((SECONDS - started)) s"
}


check_sizes() {
    local image_bytes binary_bytes
    image_bytes=$(podman image inspect --format '{{.Size}}' "$image")
    binary_bytes=$(podman run --rm --entrypoint stat "$image" -c %s /usr/local/bin/senet)
    echo "image size: $((image_bytes / 1000000)) MB, binary size: $((binary_bytes / 1000000)) MB"
    [ "$image_bytes" -lt 100000000 ] || fail "the image is not under 100 MB"
    ok "image under 100 MB"
}

# Starts container $1 on the named volume, publishing the port, with extra `podman run` arguments.
start() {
    local name=$1
    shift
    # Its stderr complains that there is no systemd to time the healthchecks: shown on failure.
    logged "run-$name" podman run --detach --name "$name" --publish "127.0.0.1:$port:8080" \
        --env "SENET_PUBLIC_ORIGIN=$url" --volume senet-ci-data:/data "$@" "$image"
    wait_for "$url/healthz"
}

check_running() {
    local uid mounts
    uid=$(podman exec senet-ci id -u)
    [ "$uid" = 10001 ] || fail "the server runs as uid $uid"
    ok "runs as uid 10001"
    mounts=$(podman inspect --format '{{range .Mounts}}{{.Type}} {{.Name}} {{.Destination}}{{end}}' senet-ci)
    [ "$mounts" = "volume senet-ci-data /data" ] || fail "mounts: $mounts"
    ok "named volume senet-ci-data on /data"
    [ "$(curl -fsS "$url/healthz")" = ok ] || fail "/healthz"
    ok "/healthz answers ok"
    grep -F '"ready"' <<<"$(curl -fsS "$url/readyz")" >/dev/null || fail "/readyz"
    ok "/readyz answers ready"
    grep -i '<html' <<<"$(curl -fsS "$url/")" >/dev/null || fail "the lobby page"
    ok "the lobby page is served"
    podman healthcheck run senet-ci >/dev/null || fail "podman healthcheck run"
    ok "HEALTHCHECK passes (podman healthcheck run)"
}

# A game begun in the first container, SIGTERM while a client plays, the rest of the game in a
# second container on the same volume.
check_stop_and_volume() {
    local room token report stop_started took exit_code
    report=$(game create "$url")
    room=$(field "$report" room)
    token=$(field "$report" token)
    report=$(game play "$url" "$room" "$token" --actions 20)
    [ "$(field "$report" v)" -gt 20 ] || fail "game in the container: $report"
    ok "game played over WebSocket through the published port: 20 actions, now at version $(field "$report" v)"

    game play "$url" "$room" "$token" >"$work/playing.json" &
    local player=$!
    sleep 2
    stop_started=$EPOCHREALTIME
    podman stop --time 10 senet-ci >/dev/null
    took=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $stop_started }")
    exit_code=$(podman inspect --format '{{.State.ExitCode}}' senet-ci)
    [ "$exit_code" = 0 ] || fail "after podman stop the server exited with $exit_code (137: killed)"
    ok "podman stop: exit code 0 after ${took} s (stop timeout 10 s)"
    wait "$player" || fail "the playing client failed"
    report=$(cat "$work/playing.json")
    [ "$(field "$report" close)" = 1012 ] || fail "the playing client was not closed with 1012: $report"
    [ "$(field "$report" phase)" != over ] || fail "the game ended before the stop: $report"
    ok "the playing client was closed with 1012 at version $(field "$report" v)"
    local log
    log=$(podman logs senet-ci 2>&1)
    ! grep -P '\x1b\[' <<<"$log" >/dev/null || fail "the text log has ANSI escape codes"
    ok "text log without ANSI escape codes ($(wc -l <<<"$log") lines)"

    start senet-ci-2 --env SENET_LOG_FORMAT=json
    local resumed
    resumed=$(game play "$url" "$room" "$token")
    same_game "$report" "$resumed" || fail "the second container has another game: $resumed, after $report"
    ok "a second container on the volume has the game where it was: $(field "$resumed" welcome_position) (version $(field "$resumed" welcome_v))"
    [ "$(field "$resumed" phase)" = over ] || fail "the game did not finish: $resumed"
    ok "game finished in the second container at version $(field "$resumed" v): $(field "$resumed" result)"
    podman stop --time 10 senet-ci-2 >/dev/null
    # The log is stderr; stdout has the `listening on` line, which is command output.
    podman logs senet-ci-2 2>&1 >/dev/null | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
for line in lines:
    json.loads(line)
print(f"ok: SENET_LOG_FORMAT=json: {len(lines)} log lines, each one JSON object")' \
        || fail "SENET_LOG_FORMAT=json gave a line that is not JSON"
}

# The compose stack: a game through nginx's published port; the instance holding it is stopped
# mid-game and the game finishes through the other.
check_compose() {
    local front=http://127.0.0.1:8080 started=$SECONDS room token report holder
    remove_compose_stack
    # One service at a time: the two instances share one Dockerfile, and podman-compose 1.6
    # builds services side by side, two identical builds racing (one failed here once); the
    # second one after the first is all cached.
    local service
    for service in senet1 senet2 nginx; do logged "compose-build-$service" compose build "$service"; done
    # podman before 4.6 cannot wait for a healthy container, and podman-compose then ignores
    # `condition: service_healthy`: wait for PostgreSQL here, with the compose file's check.
    logged compose-up-postgres compose up --detach postgres
    # Its first start runs initdb, which took over 30 s at load 9.
    local healthy=
    for _ in $(seq 240); do
        podman healthcheck run senetci_postgres_1 >/dev/null 2>&1 && { healthy=1; break; }
        sleep 0.5
    done
    [ -n "$healthy" ] || fail "PostgreSQL is not healthy after 2 minutes"
    logged compose-up compose up --detach
    # Both instances, not just the one nginx asks first: the game may be routed to either.
    wait_for_instances
    wait_for "$front/readyz"
    ok "compose stack up in $((SECONDS - started)) s: $(podman ps --filter label=io.podman.compose.project=senetci --format '{{.Names}}' | sort | xargs)"

    report=$(game create "$front")
    room=$(field "$report" room)
    token=$(field "$report" token)
    report=$(game play "$front" "$room" "$token" --actions 20)
    ok "game through nginx: 20 actions, at version $(field "$report" v)"
    game play "$front" "$room" "$token" >"$work/playing.json" &
    local player=$!
    # The player's socket is on one instance once it has connected (a loaded machine may take
    # a while to start the client): that is the one to stop.
    for _ in $(seq 60); do
        for instance in senetci_senet1_1 senetci_senet2_1; do
            [ "$(open_sockets "$instance")" -gt 0 ] && holder=$instance
        done
        [ -n "${holder:-}" ] && break
        sleep 0.5
    done
    [ -n "${holder:-}" ] || fail "neither instance holds the player's socket after 30 s"
    podman stop --time 10 "$holder" >/dev/null
    wait "$player" || fail "the playing client failed"
    report=$(cat "$work/playing.json")
    [ "$(field "$report" phase)" != over ] || fail "the game ended before the stop: $report"
    ok "stopped $holder mid-game: the client saw close code $(field "$report" close) at version $(field "$report" v)"
    local resumed
    resumed=$(game play "$front" "$room" "$token")
    same_game "$report" "$resumed" || fail "the other instance has another game: $resumed, after $report"
    [ "$(field "$resumed" phase)" = over ] || fail "the game did not finish: $resumed"
    ok "game finished through nginx on the other instance at version $(field "$resumed" v): $(field "$resumed" result)"
}

# The instances' readiness, both at once: each must answer /readyz.
wait_for_instances() {
    wait_for "$(instance_url senetci_senet1_1)/readyz"
    wait_for "$(instance_url senetci_senet2_1)/readyz"
}

# A rolling update of the compose stack while games go on: $1 load generators (containers of the
# instances' own image on the compose network, each a client address of its own from the
# network's ip_range, never nginx's: nginx allows one address 64 sockets) play $2 timed games
# each through nginx, reconnecting when their socket closes; once every game is under way, each
# instance in turn is taken out of nginx's upstream (deploy/nginx/senet-upstream), gets SIGTERM
# (`podman stop`: it drains and exits), its container is set aside and compose makes a new one,
# which is put back in nginx once it is ready, and $3 s later the next one's turn comes. The
# generators' reports are summed by rolling.py, which fails if a game or an
# acknowledged action was lost; the instances' own histograms (replaced ones included) follow.
check_rolling() {
    local generators=$1 games=$2 gap=$3 started=$SECONDS network load_image front loads=() i instance took stopped
    local want=$((2 * generators * games)) have=0
    # The instance check_compose stopped comes back at its fixed address: nginx needs nothing.
    podman start senetci_senet1_1 senetci_senet2_1 >/dev/null
    wait_for_instances
    network=$(podman inspect --format '{{range $name, $_ := .NetworkSettings.Networks}}{{$name}}{{end}}' senetci_nginx_1)
    load_image=$(podman inspect --format '{{.Image}}' senetci_senet1_1)
    front=$(instance_url senetci_nginx_1 80)
    instance_metrics >"$work/metrics-before"
    : >"$work/metrics-retired"
    for i in $(seq "$generators"); do
        # Long enough for both replacements: each takes a drain and a start (~10-25 s here);
        # checked below.
        podman run --rm --name "senet-ci-load$i" --network "$network" "$load_image" loadgen \
            --url "$front" --rooms "$games" --rate "$games" --duration $((70 + 2 * gap)) \
            --reconnect --clock 600+5 >"$work/load$i.json" 2>"$work/load$i.log" &
        loads+=($!)
    done
    for _ in $(seq 240); do
        have=$(($(open_sockets senetci_senet1_1) + $(open_sockets senetci_senet2_1)))
        [ "$have" -ge "$want" ] && break
        sleep 0.5
    done
    # Fewer means a generator could not open some of its rooms (it goes on with the others and
    # reports why when it ends): a replacement then would measure a smaller load than asked.
    [ "$have" -ge "$want" ] || fail "$have of $want players connected within 120 s: a load generator could not open all its rooms"
    ok "$((generators * games)) timed games under way through nginx, $(open_sockets senetci_senet1_1) + $(open_sockets senetci_senet2_1) sockets"
    sleep 5
    for instance in senet1 senet2; do
        curl -fsS "$(instance_url "senetci_${instance}_1" 8808)/metrics" >>"$work/metrics-retired"
        upstream down "$instance"
        took=$EPOCHREALTIME
        podman stop --time 30 "senetci_${instance}_1" >/dev/null
        [ "$(podman inspect --format '{{.State.ExitCode}}' "senetci_${instance}_1")" = 0 ] \
            || fail "$instance did not drain and exit 0 after SIGTERM"
        stopped=$(since "$took")
        # Not removed: nginx's container requires it (compose's depends_on), and podman removes
        # no container another one requires. Renamed, it stays stopped until the cleanup.
        podman rename "senetci_${instance}_1" "senet-ci-replaced-$instance"
        logged "compose-up-$instance" compose up --detach --no-deps "$instance"
        wait_for "$(instance_url "senetci_${instance}_1")/readyz"
        upstream up "$instance"
        ok "$instance: out of nginx, then SIGTERM at $(date -u +%T -d "@$took"), drained, exit 0 in $stopped s; a new container ready and back in nginx $(since "$took") s after the SIGTERM"
        sleep "$gap"
    done
    for i in $(seq "$generators"); do
        podman container exists "senet-ci-load$i" \
            || fail "load generator $i ended before the rolling update did: give it a longer --duration"
    done
    for i in "${!loads[@]}"; do
        wait "${loads[$i]}" || { cat "$work/load$((i + 1)).log"; fail "load generator $((i + 1))"; }
    done
    local summary
    summary=$(python3 "$here/rolling.py" "$work"/load*.json) \
        || fail "games or acknowledged actions lost in the rolling update: $summary"
    ok "rolling update in $((SECONDS - started)) s: $summary"
    histogram <"$work/metrics-before" >"$work/histograms-before"
    { instance_metrics; cat "$work/metrics-retired"; } | histogram >"$work/histograms-after"
    echo "the instances' histograms during the rolling update (replaced ones until their SIGTERM): bucket le, share of samples at or under it"
    histogram_shares "$work/histograms-before" "$work/histograms-after"
}

# Takes instance $2 out of nginx's upstream ($1 = down) or puts it back (up), and waits a
# moment for nginx's new workers (a reload starts them and returns).
upstream() {
    logged "nginx-upstream-$1-$2" podman exec senetci_nginx_1 senet-upstream "$1" "$2"
    sleep 1
}

# Seconds since $1 (an $EPOCHREALTIME), to the hundredth.
since() { awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $1 }"; }

# Both compose instances' /metrics text.
instance_metrics() {
    local instance
    for instance in senetci_senet1_1 senetci_senet2_1; do
        curl -fsS "$(instance_url "$instance" 8808)/metrics"
    done
}

# The short rolling update of `compose`: 10 timed games on 2 load generators, 5 s between
# the replacements (the 200 games of docs/PERFORMANCE.md: `rolling 8 25 12`).
short_rolling=(2 5 5)

# `.ci/container.sh compose`: only the compose stack and its short rolling update, on an image
# already built. `.ci/container.sh rolling GENERATORS GAMES GAP`: the same with a rolling
# update of that size (see check_rolling).
main() {
    local started=$SECONDS release
    case ${1:-} in
        compose | rolling)
            [ "$1" = compose ] || short_rolling=("${@:2:3}")
            [ "${#short_rolling[@]}" = 3 ] || { echo "usage: $0 rolling GENERATORS GAMES GAP" >&2; exit 2; }
            check_compose
            check_rolling "${short_rolling[@]}"
            ok "compose checks done in $((SECONDS - started)) s"
            return
            ;;
    esac
    install_packages
    release=$(dockerfile_arg Dockerfile DEBIAN_RELEASE)
    make_debian_base "$release"
    make_rust_base "$(dockerfile_arg Dockerfile RUST_VERSION)" "$release"
    make_postgres_base
    build_image
    check_sizes
    start senet-ci
    check_running
    check_stop_and_volume
    check_compose
    check_rolling "${short_rolling[@]}"
    ok "container checks done in $((SECONDS - started)) s"
}

main "$@"; exit
