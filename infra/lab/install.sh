#!/usr/bin/env bash
# Installs everything the lab needs on a fresh Debian bookworm machine (run as root, idempotent):
#   - host packages: MariaDB 10.11 (the mariadb-10.11 target), Redis (Celery broker),
#     debootstrap, sysbench, chromium + chromium-driver (browser tests);
#   - a Debian sid chroot holding MySQL 9.7 (the mysql-9.7 target), at $LAB_DIR/chroots/mysql-9.7;
#   - a Debian trixie chroot holding MariaDB 11.8 (the mariadb-11.8 target), at
#     $LAB_DIR/chroots/mariadb-11.8 (10.11 -> 11.8 is the LTS -> LTS upgrade; 11.0 replaced the
#     optimizer's cost model).
# The two chroots are built side by side, each logging to $LAB_DIR/logs/chroot-<name>.log; a failure of
# either fails the install naming it (and showing its log's last lines).
# Usage: install.sh [host-packages|chroots]  (default both, in that order: debootstrap is a host package)
# The Debian mirror is read from this machine's apt sources, never written here.
set -euo pipefail

LAB_DIR=${UPGRADELAB_LAB_DIR:-/var/lib/upgradelab}
HOST_PACKAGES=(mariadb-server mariadb-client redis-server debootstrap sysbench chromium chromium-driver)

log() { printf '[lab install] %s\n' "$*" >&2; }

# shellcheck source=../lib/debian.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../lib/debian.sh"

install_host_packages() {
  local missing=() installed p
  # one dpkg-query for all (a package dpkg never heard of is left out of its answer: missing too)
  installed=" $(dpkg-query -W -f='${Package}=${Status} ' "${HOST_PACKAGES[@]}" 2>/dev/null || true)"
  for p in "${HOST_PACKAGES[@]}"; do
    [[ $installed == *" $p=install ok installed "* ]] || missing+=("$p")
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

build_server_chroot() {
  # $1 chroot name under $LAB_DIR/chroots, $2 Debian suite, $3 server binary (inside the chroot),
  # then the packages to install.
  local name=$1 suite=$2 binary=$3
  shift 3
  local chroot="$LAB_DIR/chroots/$name"
  # debootstrap leaves no /etc/hosts; mariadb-install-db refuses to run when localhost does not resolve.
  if [ -d "$chroot/etc" ] && [ ! -e "$chroot/etc/hosts" ]; then
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$chroot/etc/hosts"
  fi
  if [ -x "$chroot$binary" ]; then
    log "$name chroot present: $chroot ($(chroot "$chroot" "$binary" --version))"
    return
  fi
  local mirror tmp
  mirror=$(debian_mirror)
  tmp="$chroot.partial"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$chroot")"
  log "debootstrap $suite into $tmp"
  debootstrap --variant=minbase --include=ca-certificates "$suite" "$tmp" "$mirror" >&2
  printf 'Acquire::Check-Valid-Until "false";\n' >"$tmp/etc/apt/apt.conf.d/99upgradelab-no-valid-until"
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod +x "$tmp/usr/sbin/policy-rc.d"
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$tmp/etc/hosts"
  log "installing $* inside the chroot"
  chroot "$tmp" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c \
    "apt-get update -q && apt-get install -y -q --no-install-recommends $*" >&2
  chroot "$tmp" apt-get clean
  mv "$tmp" "$chroot"
  log "$name chroot ready: $(chroot "$chroot" "$binary" --version)"
}

build_chroots() {
  # Both in the background, each into its own log; then wait for each and name the ones that failed.
  local logs="$LAB_DIR/logs" name failed=()
  mkdir -p "$logs"
  declare -A pids
  build_server_chroot mysql-9.7 sid /usr/sbin/mysqld mysql-server mysql-client \
    >"$logs/chroot-mysql-9.7.log" 2>&1 &
  pids[mysql-9.7]=$!
  build_server_chroot mariadb-11.8 trixie /usr/sbin/mariadbd mariadb-server mariadb-client \
    >"$logs/chroot-mariadb-11.8.log" 2>&1 &
  pids[mariadb-11.8]=$!
  for name in mysql-9.7 mariadb-11.8; do
    if wait "${pids[$name]}"; then
      tail -n 1 "$logs/chroot-$name.log" >&2
    else
      failed+=("$name")
      log "$name chroot FAILED; last lines of $logs/chroot-$name.log:"
      tail -n 15 "$logs/chroot-$name.log" | sed 's/^/    /' >&2
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    log "chroot build failed: ${failed[*]} (logs: $logs/chroot-<name>.log)"
    exit 1
  fi
}

case "${1:-all}" in
  host-packages) install_host_packages ;;
  chroots) build_chroots ;;
  all) install_host_packages && build_chroots ;;
  *) log "usage: install.sh [host-packages|chroots]"; exit 2 ;;
esac
