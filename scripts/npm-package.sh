#!/usr/bin/env bash
# Packs the kura-dynamodb npm package (packaging/npm) carrying the static binary at
# ${1:-target/static/kura} into target/npm/. Prints the tarball's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/static/kura}"
[ -x "$binary" ] || { echo "$binary is missing: run scripts/build-static.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r packaging/npm/. "$work/"
mkdir -p "$work/vendor" target/npm
cp "$binary" "$work/vendor/kura"
rm -f target/npm/*.tgz
(cd "$work" && npm pack --silent --pack-destination "$OLDPWD/target/npm" >/dev/null)
tarball=$(ls "$PWD"/target/npm/*.tgz)
echo "npm package $(basename "$tarball"): $(du -m "$tarball" | cut -f1) MB" >&2
echo "$tarball"
