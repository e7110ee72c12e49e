#!/usr/bin/env bash
# Builds the kura-dynamodb wheel (packaging/python) carrying the static binary at
# ${1:-target/static/kura} into target/python/. The binary is static, so the wheel is
# tagged for any x86_64 Linux (manylinux_2_17). Prints the wheel's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/static/kura}"
python="${PYTHON:-.venv/bin/python}"
[ -x "$binary" ] || { echo "$binary is missing: run scripts/build-static.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r packaging/python/. "$work/"
mkdir -p "$work/src/kura_dynamodb/bin"
cp "$binary" "$work/src/kura_dynamodb/bin/kura"
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$work" >&2
"$python" -m wheel tags --remove --python-tag py3 --abi-tag none \
  --platform-tag manylinux_2_17_x86_64 "$work"/dist/*.whl >&2
mkdir -p target/python
rm -f target/python/*.whl
cp "$work"/dist/*manylinux_2_17_x86_64.whl target/python/
wheel=$(ls target/python/*.whl)
echo "wheel $(basename "$wheel"): $(du -m "$wheel" | cut -f1) MB" >&2
echo "$wheel"
