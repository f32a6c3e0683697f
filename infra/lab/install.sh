#!/usr/bin/env bash
# Installs everything the lab needs on a fresh Debian bookworm machine (run as root, idempotent):
#   - host packages: MariaDB 10.11 (the mariadb-10.11 target), Redis (Celery broker),
#     debootstrap, sysbench, chromium + chromium-driver (browser tests);
#   - a Debian sid chroot holding MySQL 9.7 (the mysql-9.7 target), at $LAB_DIR/chroots/mysql-9.7.
# The Debian mirror is read from this machine's apt sources, never written here.
set -euo pipefail

LAB_DIR=${UPGRADELAB_LAB_DIR:-/var/lib/upgradelab}
CHROOT="$LAB_DIR/chroots/mysql-9.7"
HOST_PACKAGES=(mariadb-server mariadb-client redis-server debootstrap sysbench chromium chromium-driver)

log() { printf '[lab install] %s\n' "$*" >&2; }

# shellcheck source=../lib/debian.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../lib/debian.sh"

install_host_packages() {
  local missing=()
  for p in "${HOST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "host packages present"
    return
  fi
  log "installing host packages: ${missing[*]}"
  apt-get update -q
  # policy-rc.d keeps the packaged services (mariadb, redis) from starting: the lab runs its own.
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  [ "$created_policy" -eq 0 ] || rm -f "$policy"
}

build_mysql_chroot() {
  if [ -x "$CHROOT/usr/sbin/mysqld" ]; then
    log "MySQL chroot present: $CHROOT ($("$CHROOT/usr/sbin/mysqld" --version 2>/dev/null || chroot "$CHROOT" /usr/sbin/mysqld --version))"
    return
  fi
  local mirror tmp
  mirror=$(debian_mirror)
  tmp="$CHROOT.partial"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$CHROOT")"
  log "debootstrap sid into $tmp"
  debootstrap --variant=minbase --include=ca-certificates sid "$tmp" "$mirror" >&2
  printf 'Acquire::Check-Valid-Until "false";\n' >"$tmp/etc/apt/apt.conf.d/99upgradelab-no-valid-until"
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod +x "$tmp/usr/sbin/policy-rc.d"
  log "installing mysql-server inside the chroot"
  chroot "$tmp" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c \
    'apt-get update -q && apt-get install -y -q --no-install-recommends mysql-server mysql-client' >&2
  chroot "$tmp" apt-get clean
  mv "$tmp" "$CHROOT"
  log "MySQL chroot ready: $(chroot "$CHROOT" /usr/sbin/mysqld --version)"
}

install_host_packages
build_mysql_chroot
