#!/usr/bin/env bash
# Checks the museum kiosk's systemd units (deploy/kiosk/) with systemd-analyze: every directive
# known (a warning fails too), every dependency resolvable. The machine has no systemd running and neither the installed
# binary nor cage, so a copy names /bin/true in their place (systemd-analyze checks that each
# command is executable). tests/kiosk.rs checks that the server unit's variables are the binary's.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v systemd-analyze >/dev/null 2>&1; then
    apt-get install -y -qq systemd >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in deploy/kiosk/*.service; do
    sed -e 's#/usr/local/bin/senet#/bin/true#g' -e 's#/usr/bin/cage#/bin/true#g' \
        "$unit" >"$work/$(basename "$unit")"
done
# An unknown key is only a warning (exit 0): any word from systemd-analyze fails the check.
if ! (cd "$work" && systemd-analyze verify --man=no ./*.service) >"$work/said" 2>&1 ||
    [ -s "$work/said" ]; then
    cat "$work/said" >&2
    exit 1
fi
echo "deploy/kiosk: systemd-analyze verify clean"
