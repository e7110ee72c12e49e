#!/usr/bin/env bash
# The SARIF 2.1.0 JSON schema the advisor's SARIF output is validated against, as
# Microsoft's SARIF Multitool ships it (npm package @microsoft/sarif-multitool-linux; the
# file is OASIS's schema). Kept in .cache/sarif; prints the file's path.
set -euo pipefail
cd "$(dirname "$0")/.."
version=5.7.0
dest=".cache/sarif/sarif-2.1.0.json"
if [ ! -s "$dest" ]; then
  command -v npm >/dev/null || { echo "npm is needed (scripts/test.sh installs it)" >&2; exit 1; }
  mkdir -p "$(dirname "$dest")"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "@microsoft/sarif-multitool-linux@$version" >/dev/null &&
    tar xzf "microsoft-sarif-multitool-linux-$version.tgz" package/sarif-2.1.0.json)
  mv "$work/package/sarif-2.1.0.json" "$dest"
fi
echo "$PWD/$dest"
