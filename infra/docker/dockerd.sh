#!/usr/bin/env bash
# Starts the Docker engine in the background if it is not answering (root; idempotent).
# Used by infra/docker/install.sh, the tests and CI, which run on machines without systemd.
# The engine gets no bridge network: Upgrade Lab's target containers use host networking
# (servers listen on 127.0.0.1), so nothing ever talks to a bridge address.
# Env: UPGRADELAB_DOCKERD_LOG (default /var/log/upgradelab-dockerd.log).
set -euo pipefail

log() { printf '[dockerd] %s\n' "$*" >&2; }

if docker info >/dev/null 2>&1; then
  exit 0
fi
command -v dockerd >/dev/null || { log "dockerd is not installed: run infra/docker/install.sh"; exit 1; }
logfile=${UPGRADELAB_DOCKERD_LOG:-/var/log/upgradelab-dockerd.log}
log "starting dockerd (log: $logfile)"
setsid nohup dockerd --bridge=none --iptables=false --ip6tables=false >>"$logfile" 2>&1 </dev/null &
for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then
    log "dockerd is up"
    exit 0
  fi
  sleep 0.5
done
log "dockerd did not answer within 60 s; last log lines:"
tail -n 20 "$logfile" >&2
exit 1
