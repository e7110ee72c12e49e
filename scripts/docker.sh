# Sourced: `docker_ready` makes sure a Docker daemon answers, installing Debian's
# docker.io and starting dockerd when needed (CI machines have the client at most).
docker_ready() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if ! command -v dockerd >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
  fi
  if ! docker info >/dev/null 2>&1; then
    (dockerd >/tmp/dockerd.log 2>&1 &)
    for _ in $(seq 1 100); do
      docker info >/dev/null 2>&1 && return 0
      sleep 0.3
    done
    cat /tmp/dockerd.log >&2
    echo "dockerd did not start" >&2
    return 1
  fi
}
