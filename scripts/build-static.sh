#!/usr/bin/env bash
# Builds the `kura` binary statically linked (glibc with crt-static: nothing downloaded,
# no Rust and no shared library needed where it runs) and copies it to target/static/kura.
# It has every feature (`full`: the SDK-client commands, S3 buckets, jemalloc; ADR 0020).
#   scripts/build-static.sh            # the quick profile (release without LTO): what the tests and image use
#   scripts/build-static.sh dist       # fat LTO, stripped: what a release ships (README)
# Prints the binary's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-quick}"
target="$(rustc -vV | sed -n 's/^host: //p')"
# crt-static only for the target: build scripts and proc macros stay dynamic.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --locked -p kura --no-default-features --features full --profile "$profile" --target "$target" >&2
built="target/$target/$profile/kura"
mkdir -p target/static
# The copy ships without symbols (the build keeps them, for debugging a core dump);
# target/static/kura-<profile> keeps each profile's, for side-by-side benchmarks.
strip -o target/static/kura "$built"
cp target/static/kura "target/static/kura-$profile"
linked=$(ldd target/static/kura 2>&1 || true)
case "$linked" in
  *"not a dynamic executable"* | *"statically linked"*) ;;
  *) echo "target/static/kura is not statically linked:" >&2; echo "$linked" >&2; exit 1 ;;
esac
echo "built $(du -m target/static/kura | cut -f1) MB, $(target/static/kura --version)" >&2
echo target/static/kura
