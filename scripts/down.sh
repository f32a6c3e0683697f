#!/usr/bin/env bash
# Stops what scripts/up.sh started (API, worker, Redis). Lab servers stop with their runs.
# The worker gets SIGTERM (Celery's warm shutdown: it finishes the job it runs), then, still there after
# 10 s, SIGQUIT (the cold shutdown: the job is ended; its run is failed "worker lost" by the next
# worker's start-up reap, which also stops the servers it left), then SIGKILL after 10 s more. (A warm
# shutdown alone left a worker running the main job for as long as the job lasted, after "stopped".)
set -uo pipefail
state=${UPGRADELAB_STATE_DIR:-/var/lib/upgradelab/state}
gone() {  # $1 pid, $2 tenths of a second to wait
  for _ in $(seq 1 "$2"); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  ! kill -0 "$1" 2>/dev/null
}
for name in api worker redis; do
  pidfile="$state/$name.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  if kill "$pid" 2>/dev/null && ! gone "$pid" 100; then
    echo "$name (pid $pid) still running after 10 s: cold shutdown (SIGQUIT)" >&2
    kill -QUIT "$pid" 2>/dev/null
    if ! gone "$pid" 100; then
      echo "$name (pid $pid) killed (SIGKILL), with its child processes" >&2
      pkill -KILL -P "$pid" 2>/dev/null
      kill -KILL "$pid" 2>/dev/null
    fi
  fi
  rm -f "$pidfile"
done
echo "stopped"
