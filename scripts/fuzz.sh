#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS each (default 60). Installs cargo-fuzz if needed.
# Targets: attribute_value_json, request_json, number_parse, key_decode, item_decode,
# expression_parse, expression_eval, table_definition, stream_requests, engine_model,
# partiql_parse, auth_header, policy_parse, backup_requests, import_records.
# `-s none` builds with coverage but without a sanitizer, which works on the stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=$(cargo fuzz list)
for target in $targets; do
  echo "== fuzzing $target for ${seconds}s"
  # Committed seed inputs (valid requests) start the corpus where random bytes rarely go.
  if [ -d "seeds/$target" ]; then
    mkdir -p "corpus/$target" && { cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true; }
  fi
  cargo fuzz run -s none "$target" -- -max_total_time="$seconds"
done
