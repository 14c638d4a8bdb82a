#!/usr/bin/env bash
# The binary of a named release, built from the commit CHANGELOG.md gives it:
#
#   scripts/release-bin.sh VERSION     prints the binary's path
#
# Only main is kept (no tags), so the release is found by its CHANGELOG.md heading,
# `## VERSION — YYYY-MM-DD — commit <hash>`. The commit is checked out in a worktree under
# target/releases/ and built there (release profile) into a target directory the releases
# share; a binary already built is reused, so CI pays for each release once per cache.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release-bin.sh VERSION}
commit=$(sed -n "s/^## $version — .* — commit \([0-9a-f]\{7,40\}\)\$/\1/p" CHANGELOG.md)
[ -n "$commit" ] || { echo "release-bin: no release $version in CHANGELOG.md" >&2; exit 2; }
root=$PWD/target/releases
bin=$root/bin/senet-$version
if [ ! -x "$bin" ]; then
    source=$root/src-$version
    [ -d "$source" ] || git worktree add --detach --force "$source" "$commit" >&2
    CARGO_TARGET_DIR=$root/build cargo build --release --manifest-path "$source/Cargo.toml" >&2
    mkdir -p "$root/bin"
    cp "$root/build/release/senet" "$bin"
fi
echo "$bin"
