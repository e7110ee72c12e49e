#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need
# (Python packages for boto3, the AWS CLI and Selenium, into .venv; Debian's chromium and
# chromedriver; Debian's docker.io; Amazon DynamoDB Local), runs the Rust tests, builds
# the static release binary once and from it the container image, the Python wheel and
# the npm package, then runs the interop suite against that binary as a real `kura serve`
# on a durable data directory, as the image (also through the Rust testcontainers image),
# the wheel (with its pytest plugin) and the npm package (with Jest and Vitest), and the
# kura-cqrs suite against that server and against DynamoDB Local.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/dynamodb-local.sh
source scripts/dynamodb-local.sh
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh

# Each step's line carries the seconds since the start and the disk left, so a CI log shows
# where time and space went.
log() {
  local free
  free=$(df -Pm . | awk 'NR == 2 {printf "%.1f GB", $4 / 1024}')
  printf '\n== [%ds, %s free] %s\n' "$SECONDS" "$free" "$*"
}

# The whole kura-cqrs suite (every test file, unit tests included) against the DynamoDB
# endpoint $2, named $1 in the summary line.
cqrs_suite() {
  local out passed
  out=$(mktemp)
  KURA_ENDPOINT="$2" workspace_tests kura-cqrs 2>&1 | tee "$out"
  passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' "$out")
  rm -f "$out"
  printf '\nkura-cqrs suite against %s: %s passed\n' "$1" "$passed"
}

# A CI machine builds once: incremental compilation data would only fill its disk.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

log "Python test dependencies (.venv)"
if [ ! -x .venv/bin/python ] && ! python3 -m venv .venv; then
  # Debian's system Python needs its venv package first.
  if command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv
  fi
  rm -rf .venv && python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/interop/requirements.txt
export PATH="$PWD/.venv/bin:$PATH"

log "cargo fmt --check and clippy"
cargo fmt --all -- --check
# `clients`, not `full`: jemalloc's two-minute C build would add nothing to check (its
# allocator line is compiled by the static build below).
cargo clippy --workspace --all-targets --locked --features "$WORKSPACE_FEATURES" -- -D warnings
# The README's serve command builds kura without its SDK-client commands (ADR 0020).
cargo clippy -p kura --all-targets --locked -- -D warnings

log "Rust tests (unit, property, conformance, SDK in-process and over HTTP, kill -9, crash torture; the kura-cqrs suite against Kura in process)"
# Every later cargo step reuses this build (scripts/workspace-build.sh): the container
# test is ignored here and run once the image exists.
cargo test --workspace --locked --features "$WORKSPACE_FEATURES"
# The README's quick build (default features) on the commands it leaves out.
cargo test --locked -p kura --test without_clients

log "Chromium and chromedriver for the console's browser tests"
./scripts/browser.sh

log "The static release binary: the one the interop tests run and the image ships"
KURA_BIN="$PWD/$(./scripts/build-static.sh release | tail -n 1)"
export KURA_BIN
"$KURA_BIN" --version
# Its build tree (gigabytes, with line tables) is not used again by this run; a CI machine
# may need the space.
if [ -n "${CI:-}" ]; then rm -rf "target/$(rustc -vV | sed -n 's/^host: //p')/release"; fi

log "The container image (Debian's docker.io; dockerd started when none runs)"
KURA_IMAGE=$(./scripts/image.sh "$KURA_BIN" | tail -n 1)
export KURA_IMAGE

log "The Python wheel carrying the same binary (packaging/python)"
KURA_WHEEL="$PWD/$(./scripts/python-package.sh "$KURA_BIN" | tail -n 1)"
export KURA_WHEEL

log "The npm package carrying the same binary (packaging/npm)"
if ! command -v npm >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
KURA_NPM=$(./scripts/npm-package.sh "$KURA_BIN" | tail -n 1)
export KURA_NPM

log "The SARIF 2.1.0 schema the advisor's SARIF output is validated against"
KURA_SARIF_SCHEMA=$(./scripts/sarif-schema.sh | tail -n 1)
export KURA_SARIF_SCHEMA

log "The Rust testcontainers image (kura_testkit::container) against that image"
cargo test --workspace --locked --features "$WORKSPACE_FEATURES" --test container -- --ignored

log "Interop tests: boto3, the AWS CLI, the container and the console in headless Chromium against kura serve"
data_dir=$(mktemp -d)
server_log=$(mktemp)
"$KURA_BIN" serve --port 0 --data-dir "$data_dir" 2>"$server_log" &
server_pid=$!
cleanup() {
  kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; rm -rf "$data_dir"
  dynamodb_local_stop
}
trap cleanup EXIT
endpoint=""
for _ in $(seq 1 300); do
  endpoint=$(sed -n 's/.*kura ready on \(http:[^ ]*\).*/\1/p' "$server_log" | head -n 1)
  [ -n "$endpoint" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$server_log"; echo "kura exited early" >&2; exit 1; fi
  sleep 0.1
done
[ -n "$endpoint" ] || { cat "$server_log"; echo "kura did not become ready" >&2; exit 1; }
KURA_ENDPOINT="$endpoint" python -m pytest tests/interop -q

log "Console page server times on a small table (short form of benches/console_pages.py)"
python benches/console_pages.py --items 20000 --repeat 5 --binary "$KURA_BIN"

log "Vector search: recall, latency and throughput over HTTP, hnswlib beside it (short form of benches/vectors.py)"
KURA_BIN="$KURA_BIN" python benches/vectors.py --sizes 5000x64 --queries 50 --seconds 2 --no-engine

log "Size and start-to-ready of each channel: binary, image, wheel, npm (short form of benches/channels.py)"
python benches/channels.py --rounds 3 --binary "$KURA_BIN" --image "$KURA_IMAGE" \
  --wheel "$KURA_WHEEL" --npm "$KURA_NPM"

log "kura-cqrs suite against kura serve ($endpoint)"
cqrs_suite "kura serve" "$endpoint"

log "Fuzz smoke run: every fuzz target for ${FUZZ_SMOKE_SECONDS:-10}s from its committed seeds"
FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-10}" FUZZ_BUILD=dev ./scripts/fuzz.sh
if [ -n "${CI:-}" ]; then rm -rf fuzz/target; fi

log "kura-cqrs examples against the same server"
KURA_ENDPOINT="$endpoint" workspace_example order_items
KURA_ENDPOINT="$endpoint" workspace_example single_table
KURA_ENDPOINT="$endpoint" workspace_example orders_by_status
KURA_ENDPOINT="$endpoint" workspace_example key_patterns

log "The README's kura dev example: server, projector and trigger in one process"
./scripts/dev-example.sh

log "kura-cqrs suite and examples against Amazon DynamoDB Local"
dynamodb_local_start
cqrs_suite "DynamoDB Local" "$DYNAMODB_LOCAL_ENDPOINT"
KURA_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" workspace_example order_items
KURA_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" workspace_example single_table
KURA_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" workspace_example orders_by_status
KURA_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" workspace_example key_patterns
dynamodb_local_stop
log "all tests passed"
