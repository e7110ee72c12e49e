#!/usr/bin/env bash
# Builds the container image `kura:latest` (packaging/docker/Dockerfile) from the static
# binary at ${1:-target/static/kura}. Starts Debian's dockerd first when no daemon answers
# (installing docker.io when it is missing), as CI machines have none running.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/static/kura}"
tag="${KURA_IMAGE:-kura:latest}"
[ -x "$binary" ] || { echo "$binary is missing: run scripts/build-static.sh" >&2; exit 1; }
# shellcheck source=scripts/docker.sh
source scripts/docker.sh
docker_ready
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$binary" "$context/kura"
mkdir "$context/data"
cp packaging/docker/Dockerfile "$context/Dockerfile"
DOCKER_BUILDKIT=0 docker build --quiet --tag "$tag" "$context" >&2
size=$(docker image inspect "$tag" --format '{{.Size}}')
echo "image $tag: $((size / 1000000)) MB" >&2
echo "$tag"
