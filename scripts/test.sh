#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need
# (Python packages for boto3, the AWS CLI and Selenium, into .venv; Debian's chromium and
# chromedriver; Debian's docker.io; Amazon DynamoDB Local), runs the Rust tests, builds
# the static release binary once and from it the container image, the Python wheel and
# the npm package, then runs the interop suite against that binary as a real `kura serve`
# on a durable data directory, as the image (also through the Rust testcontainers image),
# the wheel (with its pytest plugin) and the npm package (with Jest and Vitest), and the
# kura-cqrs suite against that server and against DynamoDB Local.
#
# The test build is also the lint: Clippy compiles the workspace's own crates, with every
# warning an error (scripts/clippy-rustc.sh, ADR 0032), so no separate `cargo clippy`
# builds the dependencies a second time in check mode.
#
# Lanes run side by side (ADR 0026): the tests themselves in the foreground; the installs
# (apt, npm, pip: mostly network) in the background; the fuzz smoke run (its own build in
# fuzz/target), lowered with `nice` so that the foreground keeps the CPU, started at once;
# and the static release build, also niced, once the test build is done. On two cores a cargo build leaves one idle for most of its
# serial tail and the tests spend much of their time waiting on sockets and disks: the
# lanes fill those gaps. A lane's output is printed when the foreground waits for it, and
# a lane that fails fails the run. The per-step times are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/dynamodb-local.sh
source scripts/dynamodb-local.sh
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
# shellcheck source=scripts/docker.sh
source scripts/docker.sh

RUN_DIR=$(mktemp -d)
STEPS="$RUN_DIR/steps.tsv"

# Each step's line carries the seconds since the start and the disk left, so a CI log shows
# where time and space went.
log() {
  local free
  free=$(df -Pm . | awk 'NR == 2 {printf "%.1f GB", $4 / 1024}')
  printf '\n== [%ds, %s free] %s\n' "$SECONDS" "$free" "$*"
}

# Sets CHILDREN_CPU to the CPU seconds (user and system) of this shell's finished children
# so far: a step's is the difference across it (cargo and the tests wait for their own
# children, so a compiler's time counts in the step that ran cargo). Not to be called in
# $(...): `times` there would report the subshell's children.
children_cpu() {
  local file="$RUN_DIR/times.$BASHPID"
  times >"$file"
  CHILDREN_CPU=$(awk 'NR == 2 {split($1, u, /[ms]/); split($2, k, /[ms]/); printf "%d", u[1] * 60 + u[2] + k[1] * 60 + k[2]}' "$file")
}

# step LANE NAME COMMAND...: runs COMMAND as one step of LANE, keeping its time. COMMAND
# runs in a subshell with `set -e` in force (a function called after `||` would run with
# it ignored), so it cannot set the caller's variables: steps hand results on in files.
step() {
  local lane="$1" name="$2" start status cpu
  shift 2
  start=$(date +%s)
  children_cpu
  cpu=$CHILDREN_CPU
  if [ "$lane" = tests ]; then log "$name"; fi
  set +e
  (
    set -e
    "$@"
  )
  status=$?
  set -e
  children_cpu
  printf '%s\t%s\t%d\t%s\t%d\n' "$lane" "$name" $(($(date +%s) - start)) "$status" \
    $((CHILDREN_CPU - cpu)) >>"$STEPS"
  return "$status"
}

# Stops a process and everything it started.
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

# lane NAME NICENESS FUNCTION: runs FUNCTION in the background at that niceness, its
# output kept for await_lane.
declare -A LANES=()
lane() {
  local name="$1" niceness="$2"
  shift 2
  (
    # The exit status also goes to a file: bash may have forgotten a long-finished
    # child's status by the time the foreground waits for it (wait then says 127).
    trap 'echo $? >"$RUN_DIR/$name.status"' EXIT
    renice -n "$niceness" -p "$BASHPID" >/dev/null
    "$@"
  ) >"$RUN_DIR/$name.log" 2>&1 &
  LANES[$name]=$!
}

# Sets the niceness of a process and everything it started (best effort: raising a
# priority needs root, which the CI machine is).
renice_tree() {
  local child
  for child in $(pgrep -P "$2" 2>/dev/null); do renice_tree "$1" "$child"; done
  renice -n "$1" -p "$2" >/dev/null 2>&1 || true
}

# await_lane NAME: waits for the lane (at the foreground's priority now that the
# foreground waits for it), prints its output, and stops the run if it failed.
await_lane() {
  local name="$1" status=0
  renice_tree 0 "${LANES[$name]}"
  wait "${LANES[$name]}" || status=$?
  if [ "$status" = 127 ] && [ -s "$RUN_DIR/$name.status" ]; then
    status=$(cat "$RUN_DIR/$name.status")
  fi
  log "lane '$name' done (exit $status); its output:"
  cat "$RUN_DIR/$name.log"
  unset "LANES[$name]"
  [ "$status" = 0 ] || { echo "lane '$name' failed" >&2; exit "$status"; }
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

# Every example of the framework against the endpoint $1.
cqrs_examples() {
  local example
  for example in order_items single_table orders_by_status key_patterns; do
    KURA_ENDPOINT="$1" workspace_example "$example"
  done
}

python_deps() {
  if [ ! -x .venv/bin/python ] && ! python3 -m venv .venv; then
    # Debian's system Python needs its venv package first.
    if command -v apt-get >/dev/null; then
      apt-get update -qq && apt-get install -y -qq python3-venv
    fi
    rm -rf .venv && python3 -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/interop/requirements.txt
}

# The console's CLI code is for the AWS CLI v2 (binary values in base64); .venv's is v1.
aws_cli_v2() {
  [ -x /usr/bin/aws ] && return 0
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq awscli >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq awscli >/dev/null
  }
}

node_ready() {
  command -v npm >/dev/null && return 0
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
}

# The installs lane: everything apt, pip and npm bring, one after another (apt takes one
# lock).
installs() {
  step installs "Python test dependencies (.venv)" python_deps
  step installs "Chromium and chromedriver for the console's browser tests" ./scripts/browser.sh
  step installs "Node.js and npm" node_ready
  step installs "The AWS CLI v2 (Debian's awscli), for the console's CLI snippets" aws_cli_v2
  step installs "The AWS SDK for JavaScript v3 and axe-core, for the console's snippets and accessibility" \
    npm ci --prefix tests/interop/js --no-audit --no-fund --silent
  step installs "Debian's docker.io, dockerd started when none runs" docker_ready
  step installs "The SARIF 2.1.0 schema the advisor's SARIF output is validated against" \
    ./scripts/sarif-schema.sh
  step installs "Amazon DynamoDB Local" benches/peers/install.sh dynamodb-local
}

fuzz_smoke() {
  step fuzz "Fuzz smoke run: every fuzz target for ${FUZZ_SMOKE_SECONDS:-10}s from its committed seeds" \
    env -u RUSTC_WORKSPACE_WRAPPER FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-10}" FUZZ_BUILD=dev FUZZ_JOBS=2 \
    ./scripts/fuzz.sh
  if [ -n "${CI:-}" ]; then rm -rf fuzz/target; fi
}

# The static release binary: the one the interop tests run and the image ships. Not
# through Clippy: the test build has linted the same code.
static_build() {
  env -u RUSTC_WORKSPACE_WRAPPER ./scripts/build-static.sh quick | tail -n 1 >"$RUN_DIR/kura-bin"
}

summary() {
  [ -s "$STEPS" ] || return 0
  printf '\n== Time per step (wall and CPU seconds; lanes overlap, so they add up to more than the run)\n'
  awk -F'\t' '{printf "%-9s %6d %6d  %s%s\n", $1, $3, $5, $2, ($4 == 0 ? "" : "  (exit " $4 ")")}' "$STEPS"
  awk -F'\t' '{cpu += $5} END {printf "%-9s %6d %6d  the whole run (CPU: its steps)\n", "total", '"$SECONDS"', cpu}' "$STEPS"
}

server_pid=""
data_dir=""
cleanup() {
  local status=$?
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  [ -n "$data_dir" ] && rm -rf "$data_dir"
  dynamodb_local_stop
  local pid
  for pid in "${LANES[@]}"; do kill_tree "$pid"; done
  summary
  rm -rf "$RUN_DIR"
  exit "$status"
}
trap cleanup EXIT

# A CI machine builds once: incremental compilation data would only fill its disk.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
# Every cargo call of this run compiles the workspace's crates through Clippy (the same
# wrapper each time, or cargo would rebuild them).
CLIPPY_DRIVER="$(rustc --print sysroot)/bin/clippy-driver"
RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/clippy-rustc.sh"
export CLIPPY_DRIVER RUSTC_WORKSPACE_WRAPPER

step tests "cargo fmt --check" cargo fmt --all -- --check
# The installs mostly wait on the network, and the tests wait for them: not lowered (a
# lowered pip took minutes beside three builds).
lane installs 0 installs
lane fuzz 10 fuzz_smoke

# Every later cargo step of this lane reuses this build (scripts/workspace-build.sh): the
# container test is ignored here and run once the image exists. `--all-targets` brings the
# benchmarks under the lint too.
step tests "Rust tests: the build, linted by Clippy as it compiles (every target, the test features)" \
  cargo test --workspace --all-targets --locked --features "$WORKSPACE_FEATURES" --no-run
# Some Rust tests drive boto3 and the AWS CLI from .venv.
await_lane installs
export PATH="$PWD/.venv/bin:$PATH"
# The static build starts now, lowered, and mostly runs while the tests wait on their
# servers, children and disks. (Started at once instead, beside the test build, it pushed
# the fuzz lane past the end of the tests: the run is bound by its CPU work, not by the
# order of its builds; docs/testing.md.)
lane static 10 step static "The static release binary (quick profile: release without LTO, every feature)" static_build
step tests "Rust tests (unit, property, conformance, SDK in-process and over HTTP, kill -9, crash torture; the kura-cqrs suite against Kura in process)" \
  cargo test --workspace --locked --features "$WORKSPACE_FEATURES"

# The README's serve command builds kura without its SDK-client commands (ADR 0020): that
# build, linted, and its test of the commands it leaves out. Cargo resolves the features of
# `-p kura` alone differently, so this rebuilds the part of the tree they touch.
step tests "The README's build (kura without the SDK-client commands), linted, on the commands it leaves out" \
  cargo test --locked -p kura --test without_clients

await_lane static
KURA_BIN="$PWD/$(cat "$RUN_DIR/kura-bin")"
export KURA_BIN
"$KURA_BIN" --version
# Its build tree (gigabytes, with line tables) is not used again by this run; a CI machine
# may need the space.
if [ -n "${CI:-}" ]; then rm -rf "target/$(rustc -vV | sed -n 's/^host: //p')/quick"; fi

image_build() { ./scripts/image.sh "$KURA_BIN" | tail -n 1 >"$RUN_DIR/image"; }
step tests "The container image (Debian's docker.io)" image_build
KURA_IMAGE=$(cat "$RUN_DIR/image")
export KURA_IMAGE

wheel_build() { ./scripts/python-package.sh "$KURA_BIN" | tail -n 1 >"$RUN_DIR/wheel"; }
step tests "The Python wheel carrying the same binary (packaging/python)" wheel_build
KURA_WHEEL="$PWD/$(cat "$RUN_DIR/wheel")"
export KURA_WHEEL

npm_build() { ./scripts/npm-package.sh "$KURA_BIN" | tail -n 1 >"$RUN_DIR/npm"; }
step tests "The npm package carrying the same binary (packaging/npm)" npm_build
KURA_NPM=$(cat "$RUN_DIR/npm")
export KURA_NPM

KURA_SARIF_SCHEMA=$(./scripts/sarif-schema.sh | tail -n 1)
export KURA_SARIF_SCHEMA

step tests "The Rust testcontainers image (kura_testkit::container) against that image" \
  cargo test --workspace --locked --features "$WORKSPACE_FEATURES" --test container -- --ignored

data_dir=$(mktemp -d)
server_log=$(mktemp)
"$KURA_BIN" serve --port 0 --data-dir "$data_dir" 2>"$server_log" &
server_pid=$!
endpoint=""
for _ in $(seq 1 300); do
  endpoint=$(sed -n 's/.*kura ready on \(http:[^ ]*\).*/\1/p' "$server_log" | head -n 1)
  [ -n "$endpoint" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$server_log"; echo "kura exited early" >&2; exit 1; fi
  sleep 0.1
done
[ -n "$endpoint" ] || { cat "$server_log"; echo "kura did not become ready" >&2; exit 1; }

step tests "Interop tests: boto3, the AWS CLI, the container and the console in headless Chromium against kura serve" \
  env KURA_ENDPOINT="$endpoint" python -m pytest tests/interop -q

step tests "Console page server times on a small table (short form of benches/console_pages.py)" \
  python benches/console_pages.py --items 20000 --repeat 5 --binary "$KURA_BIN"

step tests "Vector search: recall, latency and throughput over HTTP, hnswlib beside it (short form of benches/vectors.py)" \
  python benches/vectors.py --sizes 5000x64 --queries 50 --seconds 2 --no-engine

step tests "Size and start-to-ready of each channel: binary, image, wheel, npm (short form of benches/channels.py)" \
  python benches/channels.py --rounds 3 --binary "$KURA_BIN" --image "$KURA_IMAGE" \
  --wheel "$KURA_WHEEL" --npm "$KURA_NPM"

step tests "kura-cqrs suite against kura serve ($endpoint)" cqrs_suite "kura serve" "$endpoint"

step tests "kura-cqrs examples against the same server" cqrs_examples "$endpoint"

step tests "The README's kura dev example: server, projector and trigger in one process" \
  ./scripts/dev-example.sh

log "kura-cqrs suite and examples against Amazon DynamoDB Local"
# In this shell: it sets DYNAMODB_LOCAL_ENDPOINT and the pid the cleanup stops.
dynamodb_local_start
step tests "kura-cqrs suite against DynamoDB Local" cqrs_suite "DynamoDB Local" "$DYNAMODB_LOCAL_ENDPOINT"
step tests "kura-cqrs examples against DynamoDB Local" cqrs_examples "$DYNAMODB_LOCAL_ENDPOINT"
step tests "kura mcp in front of DynamoDB Local (the official MCP Python SDK)" \
  env DYNAMODB_LOCAL_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" python -m pytest tests/interop/test_mcp.py -q -k dynamodb_local
dynamodb_local_stop

await_lane fuzz
log "all tests passed"
