#!/usr/bin/env bash
# One cargo feature set for every build the test command makes, and helpers that run what
# that build made instead of asking cargo again with other flags.
#
# Why: cargo unifies features over the packages a command selects, so `-p kura-cqrs
# --features sqlite` or `-p kura-testkit --features testcontainers` after `--workspace`
# resolves its dependencies differently and rebuilds kura-engine and everything under it
# into the same target directory. On a fresh CI machine that was minutes and gigabytes,
# and one run ran out of disk there (ADR 0022).
#
# Sourced by scripts/test.sh and scripts/dev-example.sh:
#   source scripts/workspace-build.sh
#   cargo test --workspace --locked --features "$WORKSPACE_FEATURES"
#   workspace_example order_items              # runs crates/*/examples/order_items.rs
#   workspace_tests kura-cqrs [ARGS...]        # runs that package's test binaries

WORKSPACE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# kura's SDK-client commands (and with them kura-cqrs's SQLite read model) and the
# testcontainers module.
WORKSPACE_FEATURES="kura/clients,kura-testkit/testcontainers"

# Runs one example of the workspace, built with the workspace's features (a no-op build
# after `cargo test --workspace`, which compiles the examples too).
workspace_example() {
  local name="$1"
  shift
  (cd "$WORKSPACE_ROOT" && cargo build --locked -q --workspace --features "$WORKSPACE_FEATURES" --examples)
  "${CARGO_TARGET_DIR:-$WORKSPACE_ROOT/target}/debug/examples/$name" "$@"
}

# Runs every test binary of one package (its unit tests and each file under tests/) as
# `cargo test -p PACKAGE` would, in the package's directory, but from the workspace build.
# Extra arguments go to each binary (the test harness's own, e.g. --test-threads).
workspace_tests() {
  local package="$1" binaries binary status=0
  shift
  binaries=$(cd "$WORKSPACE_ROOT" &&
    cargo test --locked --workspace --features "$WORKSPACE_FEATURES" --no-run --message-format=json |
    python3 -c '
import json, sys
manifest = "/" + sys.argv[1] + "/Cargo.toml"
for line in sys.stdin:
    message = json.loads(line)
    if (message.get("reason") == "compiler-artifact" and message.get("executable")
            and message["profile"]["test"] and message["manifest_path"].endswith(manifest)):
        print(message["executable"])
' "$package")
  [ -n "$binaries" ] || { echo "no test binaries for $package in the workspace build" >&2; return 1; }
  while read -r binary; do
    (cd "$WORKSPACE_ROOT/crates/$package" && "$binary" "$@") || status=$?
  done <<<"$binaries"
  return "$status"
}
