#!/usr/bin/env bash
# Stops what scripts/up.sh started (API, worker, Redis). Lab servers stop with their runs.
set -uo pipefail
state=${UPGRADELAB_STATE_DIR:-/var/lib/upgradelab/state}
for name in api worker redis; do
  pidfile="$state/$name.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null && for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$pidfile"
done
echo "stopped"
