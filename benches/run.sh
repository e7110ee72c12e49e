#!/usr/bin/env bash
# Kura's benchmark in one command: installs the peers it can (benches/peers/install.sh),
# builds release binaries, then
#   1. the same-run comparison: the loopback echo baseline, `kura serve` (writes synced
#      before they are acknowledged), the embedded engine, dynalite, moto and DynamoDB
#      Local, one after another, the same workloads against each, with ratios;
#   2. Kura's footprint: start-to-ready, restart after kill -9, memory idle and loaded,
#      size on disk, bulk load rate, Query latency at 10k items and at ITEMS;
#   3. the test loop against Dynoxide (issue 32): start to first answer, idle memory and
#      memory under a bulk load, Kura and Dynoxide the same way (`kura-load start`); a
#      test suite's shape replayed with one and four workers, and the cost of a reset
#      through the test controls at 10,000 and 100,000 items (`kura-load suite`).
# Figures are printed and written as JSON to target/bench/.
#
# Settings (environment): SECONDS_PER_RUN (5), CONCURRENCY (16; a list such as 1,16,64),
# TARGETS (all), WORKLOADS (all), ITEMS (100000; the 1M figures in docs/costs.md use 1000000).
# The micro-benchmarks are separate: cargo bench -p kura-bench --bench micro
set -euo pipefail
cd "$(dirname "$0")/.."

bash benches/peers/install.sh
cargo build --release --locked -p kura -p kura-bench --features kura/full --bin kura --bin kura-load
mkdir -p target/bench
load=./target/release/kura-load
args=(--seconds "${SECONDS_PER_RUN:-5}" --concurrency "${CONCURRENCY:-16}")
[ -n "${TARGETS:-}" ] && args+=(--targets "$TARGETS")
[ -n "${WORKLOADS:-}" ] && args+=(--workloads "$WORKLOADS")

echo "== machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
"$load" compare "${args[@]}" --json target/bench/compare.json
"$load" footprint --items "${ITEMS:-100000}" --json target/bench/footprint.json
# Where the shipped build exists (scripts/build-static.sh dist), it is what starts.
start_targets=kura,dynoxide,kura-memory,dynoxide-memory
[ -x target/static/kura-dist ] && start_targets=kura-dist,kura-dist-memory,$start_targets
"$load" start --targets "$start_targets" --items "${ITEMS:-100000}" --json target/bench/start.json
"$load" suite --json target/bench/suite.json
echo "JSON: target/bench/compare.json, target/bench/footprint.json, target/bench/start.json, target/bench/suite.json"
