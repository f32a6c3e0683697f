#!/usr/bin/env bash
# Builds Upgrade Lab's local images (root; idempotent: an image whose inputs did not change is kept).
# No image registry is needed: every base is made here from Debian packages.
#   upgradelab/debian:bookworm   debootstrap (minbase) of bookworm, `docker import`ed: the base of the
#                                app image (infra/docker/app.Dockerfile) and of the MariaDB image
#   upgradelab/mysql:9.7         the lab's sid chroot with MySQL 9.7 + images/docker-entrypoint.sh
#   upgradelab/mariadb:10.11     bookworm's mariadb-server + images/docker-entrypoint.sh
# Env: UPGRADELAB_LAB_DIR (default /var/lib/upgradelab). Builds use host networking (apt only).
set -euo pipefail
cd "$(dirname "$0")"

LAB_DIR=${UPGRADELAB_LAB_DIR:-/var/lib/upgradelab}
MYSQL_CHROOT="$LAB_DIR/chroots/mysql-9.7"
export DOCKER_BUILDKIT=0 # the legacy builder ships with Debian's docker.io; buildx may be missing

log() { printf '[docker images] %s\n' "$*" >&2; }

# shellcheck source=../lib/debian.sh
source ../lib/debian.sh  # the script runs from its own folder (cd above)

# The digest of an image's inputs, stored as a label: a changed Dockerfile or entrypoint rebuilds.
inputs_digest() { cat "$@" | sha256sum | cut -c1-16; }
image_label() { docker image inspect -f "{{index .Config.Labels \"upgradelab.inputs\"}}" "$1" 2>/dev/null || true; }

base_image() {
  if docker image inspect upgradelab/debian:bookworm >/dev/null 2>&1; then
    log "upgradelab/debian:bookworm present"
    return
  fi
  local rootfs="$LAB_DIR/rootfs/debian-bookworm"
  if [ ! -f "$rootfs/.complete" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -q --no-install-recommends debootstrap
    rm -rf "$rootfs"
    mkdir -p "$rootfs"
    log "debootstrap bookworm into $rootfs"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$(debian_mirror)" >&2
    chroot "$rootfs" apt-get clean
    touch "$rootfs/.complete"
  fi
  log "importing upgradelab/debian:bookworm"
  tar -C "$rootfs" --exclude=./.complete --exclude='./proc/*' --exclude='./sys/*' --exclude='./dev/*' -c . |
    docker import --change 'CMD ["bash"]' - upgradelab/debian:bookworm >/dev/null
}

mysql_image() {
  local digest
  digest=$(inputs_digest images/mysql/Dockerfile images/docker-entrypoint.sh)
  if [ "$(image_label upgradelab/mysql:9.7)" = "$digest" ]; then
    log "upgradelab/mysql:9.7 present"
    return
  fi
  if ! docker image inspect upgradelab/mysql-rootfs:9.7 >/dev/null 2>&1; then
    [ -x "$MYSQL_CHROOT/usr/sbin/mysqld" ] || { log "no MySQL chroot: run infra/lab/install.sh"; exit 1; }
    log "importing $MYSQL_CHROOT as upgradelab/mysql-rootfs:9.7"
    tar -C "$MYSQL_CHROOT" --exclude=./var/lib/upgradelab --exclude='./proc/*' --exclude='./sys/*' \
      --exclude='./dev/*' --exclude='./opt/upgradelab-*' --exclude=./usr/share/doc --exclude=./usr/share/man \
      --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' -c . |
      docker import - upgradelab/mysql-rootfs:9.7 >/dev/null
  fi
  log "building upgradelab/mysql:9.7"
  docker build -q --network host --label "upgradelab.inputs=$digest" -t upgradelab/mysql:9.7 \
    -f images/mysql/Dockerfile images >&2
}

mariadb_image() {
  local digest
  digest=$(inputs_digest images/mariadb/Dockerfile images/docker-entrypoint.sh)
  if [ "$(image_label upgradelab/mariadb:10.11)" = "$digest" ]; then
    log "upgradelab/mariadb:10.11 present"
    return
  fi
  log "building upgradelab/mariadb:10.11"
  docker build -q --network host --label "upgradelab.inputs=$digest" -t upgradelab/mariadb:10.11 \
    -f images/mariadb/Dockerfile images >&2
}

bash ./dockerd.sh
base_image
mysql_image
mariadb_image
