#!/usr/bin/env bash
# The binary of a named release, built from the commit CHANGELOG.md gives it:
#
#   scripts/release-bin.sh [VERSION]     prints the binary's path (VERSION: the newest release)
#
# Only main is kept (no tags), so the release is found by its CHANGELOG.md heading,
# `## VERSION — YYYY-MM-DD — commit <hash>`. The commit is checked out in a worktree under
# target/releases/ and built there into a target directory the releases share, with the cargo
# profile SENET_RELEASE_PROFILE (default `release`; the tests ask for `dev`, which builds in a
# third of the time); a binary already built is reused, so each is paid for once per checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(sed -n 's/^## \([0-9][^ ]*\) — .*— commit [0-9a-f]*$/\1/p' CHANGELOG.md | head -1)}
commit=$(sed -n "s/^## $version — .* — commit \([0-9a-f]\{7,40\}\)\$/\1/p" CHANGELOG.md)
[ -n "$commit" ] || { echo "release-bin: no release $version in CHANGELOG.md" >&2; exit 2; }
profile=${SENET_RELEASE_PROFILE:-release}
root=$PWD/target/releases
bin=$root/bin/senet-$version-$profile
if [ ! -x "$bin" ]; then
    source=$root/src-$version
    [ -d "$source" ] || git worktree add --detach --force "$source" "$commit" >&2
    CARGO_TARGET_DIR=$root/build cargo build --profile "$profile" --manifest-path "$source/Cargo.toml" >&2
    mkdir -p "$root/bin"
    dir=$profile
    [ "$profile" = dev ] && dir=debug
    cp "$root/build/$dir/senet" "$bin"
fi
echo "$bin"
