#!/usr/bin/env bash
# Runs the README's `kura dev` example as written: the kura.dev.json of the README, `kura
# dev` in that directory, the order_items example against it; then checks that the trigger
# delivered the command table's records and that the data table holds the order.
# Called by scripts/test.sh (expects $KURA_BIN, or target/debug/kura, built and .venv
# active).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/workspace-build.sh
source "$root/scripts/workspace-build.sh"
work=$(mktemp -d)
log_file="$work/kura-dev.log"
# The README's configuration, between `cat > kura.dev.json <<'JSON'` and `JSON`.
sed -n "/^cat > kura.dev.json <<'JSON'$/,/^JSON$/p" "$root/README.md" | sed '1d;$d' >"$work/kura.dev.json"
python -c "import json,sys; json.load(open(sys.argv[1]))" "$work/kura.dev.json"
kura="${KURA_BIN:-$root/target/debug/kura}"
(cd "$work" && exec "$kura" dev --port 0 --in-memory 2>"$log_file") &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
endpoint=""
for _ in $(seq 1 300); do
  if grep -q "kura dev ready in" "$log_file"; then
    endpoint=$(sed -n 's/.*kura ready on \(http:[^ ]*\).*/\1/p' "$log_file" | head -n 1)
    break
  fi
  kill -0 "$pid" 2>/dev/null || { cat "$log_file"; echo "kura dev exited early" >&2; exit 1; }
  sleep 0.1
done
[ -n "$endpoint" ] || { cat "$log_file"; echo "kura dev did not become ready" >&2; exit 1; }
grep "kura dev ready in" "$log_file" | sed 's/.*INFO //'
KURA_ENDPOINT="$endpoint" workspace_example order_items
python - "$endpoint" "$work/order-events.jsonl" <<'PY'
import json, sys, time, urllib.request
import boto3
endpoint, events = sys.argv[1], sys.argv[2]
ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="k", aws_secret_access_key="s")
deadline = time.time() + 30
while True:
    try:
        text = open(events).read()
    except FileNotFoundError:
        text = ""
    # The command writes each event, then a newline: one JSON event per line.
    records = [r for line in text.splitlines() if line.strip() for r in json.loads(line)["Records"]]
    if len(records) >= 5:
        break
    assert time.time() < deadline, f"the trigger delivered {len(records)} records"
    time.sleep(0.2)
assert all(r["eventSourceARN"].split("/")[1] == "example-shop-order-command" for r in records)
with urllib.request.urlopen(endpoint + "/kura/triggers/order-events") as r:
    status = json.load(r)
assert status["RecordsDelivered"] >= 5 and status["Shards"], status
items = ddb.scan(TableName="example-shop-order-data")["Items"]
assert len(items) >= 4, items
print(f"kura dev example: the trigger delivered {len(records)} records, the data table holds {len(items)} rows")
PY
kill -TERM "$pid"
wait "$pid"
