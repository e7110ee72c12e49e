#!/usr/bin/env bash
# The peer table (issue 54) in one command: the README's build of Kura (`cargo build
# --release -p kura`, what `cargo run --release -p kura -- serve` runs) beside Dynoxide,
# built from crates.io by benches/peers/install.sh, every figure from one run with its
# goal: reads and writes with 16 clients on disk, every workload with one client in memory,
# start to first answer, idle memory, memory 2 s after a 100k-item load, and the echo
# server's HTTP floor. About nine minutes on two cores after the builds.
#
# Settings (environment): KURA=kura-dist to measure the shipped static build instead
# (scripts/build-static.sh dist first); SECONDS_PER_RUN (5), ROUNDS (2), STARTS (7),
# ITEMS (100000). Writes target/bench/peers.json and target/bench/peers.md.
set -euo pipefail
cd "$(dirname "$0")/.."

bash benches/peers/install.sh dynoxide
cargo build --release --locked -p kura --bin kura
cargo build --release --locked -p kura-bench --bin kura-load
mkdir -p target/bench
echo "== machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
./target/release/kura-load peers --kura "${KURA:-kura}" --seconds "${SECONDS_PER_RUN:-5}" \
  --rounds "${ROUNDS:-2}" --starts "${STARTS:-7}" --items "${ITEMS:-100000}" \
  --json target/bench/peers.json | tee target/bench/peers.md
