#!/usr/bin/env bash
# The database fixtures of a release, made by that release's own binary:
#
#   scripts/make-fixture.sh VERSION
#
# writes tests/fixtures/releases/VERSION/: senet.sqlite (a SQLite database) and postgres.sql (a
# PostgreSQL schema, dumped as INSERTs, its schema named `senet_fixture`), each with the
# manifest of what scripts/fixture.py put in it (manifest-sqlite.json, manifest-postgres.json).
# tests/upgrade.rs opens every fixture with the current code. Run it once per release, right
# after naming the release in CHANGELOG.md, and commit the result.
#
# The binary is the release's commit (CHANGELOG.md names it) built by scripts/release-bin.sh,
# unless SENET_BIN names one built from that commit. PostgreSQL: SENET_FIXTURE_POSTGRES_URL
# (default postgres://postgres@127.0.0.1:5432/test); the schema is made and dropped here.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/make-fixture.sh VERSION}
bin=${SENET_BIN:-$(scripts/release-bin.sh "$version")}
out=tests/fixtures/releases/$version
postgres=${SENET_FIXTURE_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
schema=senet_fixture
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install --quiet websockets
mkdir -p "$out"
work=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    psql -q "$postgres" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Serves $1 until `fixture.py $3` is done with it, then stops it as an operator would (SIGTERM).
serve() {
    local url=$1 manifest=$2 step=$3
    "$bin" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --database-url "$url" \
        --ai-delay-ms 0 --max-messages-per-second 1000 >"$work/out" 2>"$work/log" &
    server=$!
    local base=
    for _ in $(seq 100); do
        base=$(sed -n 's/^listening on //p' "$work/out")
        [ -n "$base" ] && break
        sleep 0.1
    done
    [ -n "$base" ] || { cat "$work/log" >&2; exit 1; }
    python3 scripts/fixture.py "$step" --url "$base" --bin "$bin" --database-url "$url" --out "$manifest"
    kill -TERM "$server"
    wait "$server" || true
    server=
}

# Filled by one server, described by the next: the manifest is what a restart finds.
fill() {
    serve "$1" "$2" fill
    serve "$1" "$2" describe
}

echo "SQLite: $out/senet.sqlite"
fill "sqlite://$work/senet.db" "$out/manifest-sqlite.json"
rm -f "$out/senet.sqlite"
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("VACUUM INTO ?", (sys.argv[2],))' \
    "$work/senet.db" "$out/senet.sqlite"

echo "PostgreSQL: $out/postgres.sql"
psql -q "$postgres" -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema"
fill "$postgres?options=-c%20search_path%3D$schema" "$out/manifest-postgres.json"
pg_dump "$postgres" --schema="$schema" --no-owner --no-privileges --inserts >"$out/postgres.sql"
echo "fixtures of $version made with $("$bin" --version)"
