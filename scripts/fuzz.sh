#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS each (default 60), FUZZ_JOBS at a time (default
# 1). FUZZ_TARGETS (space-separated) runs only those. Installs cargo-fuzz if needed.
# Targets: attribute_value_json, request_json, number_parse, key_decode, item_decode,
# expression_parse, expression_eval, table_definition, stream_requests, kinesis_requests,
# kinesis_cbor, engine_model,
# partiql_parse, auth_header, policy_parse, backup_requests, import_records, insights_requests,
# trigger_filter, test_controls, console_requests, vector_search, yaml_template,
# advisor_inputs, mcp_inputs, http_edge.
# `-s none` builds with coverage but without a sanitizer, which works on the stable toolchain.
# FUZZ_BUILD=dev builds the targets without optimisation (the same debug assertions and
# overflow checks): several minutes less to build, fewer inputs per second; the test
# command's smoke run uses it, long runs keep the default optimised build.
# libFuzzer's progress lines (thousands per target) go to fuzz/logs/<target>.log, not to the
# terminal: CI keeps a bounded log, and a failure further on must stay visible in it. A
# target that fails prints the end of its log, with the crashing input's path, and stops the
# run; FUZZ_KEEP_GOING=1 (the long form) runs the remaining targets first and fails at the end.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-1}"
build=()
[ "${FUZZ_BUILD:-}" = dev ] && build=(--dev)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p logs
# Every target built once, before any runs: targets run side by side would otherwise each
# wait for the other's build.
cargo fuzz build -s none ${build[@]+"${build[@]}"}
targets="${FUZZ_TARGETS:-$(cargo fuzz list)}"

# Runs one target for $seconds; its libFuzzer lines go to its log.
fuzz_one() {
  local target="$1"
  # Committed seed inputs (valid requests) start the corpus where random bytes rarely go.
  if [ -d "seeds/$target" ]; then
    mkdir -p "corpus/$target" && { cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true; }
  fi
  cargo fuzz run -s none ${build[@]+"${build[@]}"} "$target" -- -max_total_time="$seconds" \
    >"logs/$target.log" 2>&1
}

failed=()
# Says how a finished target went; a failed one prints the end of its log and stops the run
# (or, with FUZZ_KEEP_GOING=1, is remembered for the end).
report() {
  local target="$1" status="$2"
  if [ "$status" = 0 ]; then
    printf '== fuzzed %-22s %s\n' "$target" "$(grep -E '^Done [0-9]+ runs' "logs/$target.log" | tail -n 1)"
  else
    printf '== fuzz target %s FAILED; the end of %s:\n' "$target" "fuzz/logs/$target.log"
    tail -n 80 "logs/$target.log"
    [ "${FUZZ_KEEP_GOING:-}" = 1 ] || exit 1
    failed+=("$target")
  fi
}

# Up to $jobs targets at a time (FUZZ_JOBS; each is one libFuzzer process, one core).
declare -A running=()
finish_one() {
  local pid status=0 target
  wait -n -p pid "${!running[@]}" || status=$?
  target="${running[$pid]}"
  unset "running[$pid]"
  report "$target" "$status"
}
for target in $targets; do
  while [ "${#running[@]}" -ge "$jobs" ]; do finish_one; done
  fuzz_one "$target" &
  running[$!]="$target"
done
while [ "${#running[@]}" -gt 0 ]; do finish_one; done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "== fuzz targets that FAILED: ${failed[*]}"
  exit 1
fi
