#!/usr/bin/env bash
# Installs what Upgrade Lab's docker targets and compose stack need (root, Debian bookworm, idempotent):
#   - Debian's Docker engine (docker.io), started in the background by infra/docker/dockerd.sh;
#   - a Compose v2 client: Debian trixie's docker-compose package, fetched with apt from this
#     machine's own Debian mirror (a temporary apt list, nothing added to /etc/apt) and unpacked
#     as a CLI plugin (it is a static Go binary, so bookworm's libc is not a concern);
#   - the images (infra/docker/images.sh): the local base `upgradelab/debian:bookworm` and the lab's
#     test target images `upgradelab/mysql:9.7` and `upgradelab/mariadb:10.11`.
# Set UPGRADELAB_DOCKER_IMAGES=0 to skip the image builds.
set -euo pipefail
cd "$(dirname "$0")"

log() { printf '[docker install] %s\n' "$*" >&2; }

# shellcheck source=../lib/debian.sh
source ../lib/debian.sh  # the script runs from its own folder (cd above)

install_engine() {
  if command -v dockerd >/dev/null; then
    log "docker engine present: $(dockerd --version)"
    return
  fi
  log "installing docker.io"
  apt-get update -q
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io
  [ "$created_policy" -eq 0 ] || rm -f "$policy"
}

install_compose() {
  local plugin=/usr/local/lib/docker/cli-plugins/docker-compose
  if [ -x "$plugin" ] && "$plugin" version >/dev/null 2>&1; then
    log "compose present: $("$plugin" version)"
    return
  fi
  local mirror tmp
  mirror=$(debian_mirror)
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' "$mirror" \
    >"$tmp/sources.list"
  local apt_opts=(
    -o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "Acquire::Check-Valid-Until=false"
  )
  log "fetching Debian trixie's docker-compose package"
  apt-get "${apt_opts[@]}" -q update >&2
  (cd "$tmp" && apt-get "${apt_opts[@]}" -q download docker-compose >&2)
  dpkg-deb -x "$tmp"/docker-compose_*.deb "$tmp/root"
  local binary
  binary=$(find "$tmp/root" -type f -name docker-compose -perm -u+x | head -n 1)
  [ -n "$binary" ] || { log "no docker-compose binary in the package"; exit 1; }
  install -D -m 0755 "$binary" "$plugin"
  ln -sf "$plugin" /usr/local/bin/docker-compose
  log "compose installed: $("$plugin" version)"
}

install_engine
install_compose
bash ./dockerd.sh
if [ "${UPGRADELAB_DOCKER_IMAGES:-1}" != 0 ]; then
  bash ./images.sh
fi
