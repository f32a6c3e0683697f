#!/usr/bin/env bash
# Starts Upgrade Lab with its embedded defaults: Redis, the Celery worker, the API serving the UI.
# Then queues the main job, article 001's INSERT/TRUNCATE experiment on the lab's two servers,
# unless UPGRADELAB_DEMO=0. Logs and pid files: $UPGRADELAB_STATE_DIR (default /var/lib/upgradelab/state).
# Ends by printing each install phase's time and the start's (scripts/install.sh skips what is done:
# a second `make up` is the start alone).
set -euo pipefail
cd "$(dirname "$0")/.."
state=${UPGRADELAB_STATE_DIR:-/var/lib/upgradelab/state}
export UPGRADELAB_STATE_DIR=$state
mkdir -p "$state/logs" "$state/redis"
UPGRADELAB_INSTALL_TIMINGS="$state/install-timings" bash scripts/install.sh
started=$SECONDS

# Secrets on disk (issue 44): the state directory is its owner's alone. Its database (users' password
# hashes, token digests, sealed target passwords), logs and Redis data are made under umask 077 from
# here on (the install above keeps the default umask); files of an older state directory are made
# 0600 (directories 0700). The worker alone runs under the default umask: it makes server directories
# that the servers' own `mysql` user must read; its log is opened here, 0600, before it starts.
chmod -R go-rwx "$state"
umask 077

redis_port=${UPGRADELAB_REDIS_PORT:-6380}
export UPGRADELAB_REDIS_URL=${UPGRADELAB_REDIS_URL:-redis://127.0.0.1:$redis_port/0}
api_port=${UPGRADELAB_API_PORT:-8700}
bash scripts/down.sh >/dev/null 2>&1 || true

redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$state/redis" --daemonize yes \
  --pidfile "$state/redis.pid" --logfile "$state/logs/redis.log" --save "" --appendonly yes
.venv/bin/upgradelab db upgrade

# The API and the worker import for seconds: start them first, make the admin and token meanwhile.
(umask 022 && exec nohup .venv/bin/celery -A upgradelab.worker worker --loglevel=INFO --concurrency=2 \
  -Q upgradelab) >"$state/logs/worker.log" 2>&1 &
echo $! >"$state/worker.pid"
nohup .venv/bin/upgradelab serve --port "$api_port" >"$state/logs/api.log" 2>&1 &
echo $! >"$state/api.pid"

# Sign-in: the first admin's password is generated once and kept (0600) in $state/admin-password.
if [ ! -s "$state/admin-password" ]; then
  (umask 077; head -c 18 /dev/urandom | base64 >"$state/admin-password")
  UPGRADELAB_ADMIN_PASSWORD=$(cat "$state/admin-password") .venv/bin/upgradelab users create-admin --username admin
fi
if [ "${UPGRADELAB_DEMO:-1}" != "0" ]; then
  export UPGRADELAB_TOKEN=${UPGRADELAB_TOKEN:-$(.venv/bin/upgradelab users token --username admin --label up.sh)}
fi

url="http://127.0.0.1:$api_port"
deadline=$((SECONDS + 120)) # a loaded 2-core host has taken 40 s to import the API
until curl -fsS "$url/api/health" >/dev/null 2>&1; do
  if [ $SECONDS -ge $deadline ] || ! kill -0 "$(cat "$state/api.pid")" 2>/dev/null; then
    echo "API did not start; see $state/logs/api.log" >&2
    exit 1
  fi
  sleep 0.2
done

echo "Upgrade Lab is up: $url  (logs: $state/logs, stop: bash scripts/down.sh)"
echo "Sign in as admin; the password is in $state/admin-password"
if [ "${UPGRADELAB_DEMO:-1}" != "0" ]; then
  # The main job: article 001 on the lab's servers; the CLI prints the run's page and waits in the background.
  # 10 rounds of 10, extended (same seed stream) while a verdict is inconclusive, up to 30 rounds and
  # no round started after 4 minutes: bench/README.md (verdict_robustness.py) has the figures.
  nohup .venv/bin/upgradelab run --api "$url" --workload insert-truncate --iterations 100 \
    --schedule interleaved --rounds 10 --aa-control --max-rounds 30 --max-minutes 4 \
    --name "Article 001: INSERT/TRUNCATE, MySQL 9.7 vs MariaDB 10.11" \
    --variant mysql-9.7:default --variant mysql-9.7:redo-off --variant mysql-9.7:skip-log-bin \
    --variant mariadb-10.11:default >"$state/logs/demo-run.log" 2>&1 &
  demo=$!
  # queued once the CLI prints the run's page (at most 30 s; a refusal ends the CLI: its log says why)
  page=""
  for _ in $(seq 1 150); do
    page=$(grep -o 'http[^ ]*' "$state/logs/demo-run.log" 2>/dev/null | head -n 1 || true)
    [ -z "$page" ] && kill -0 "$demo" 2>/dev/null || break
    sleep 0.2
  done
  if [ -n "$page" ]; then
    echo "Main job queued: $page"
  else
    echo "The main job was not queued; see $state/logs/demo-run.log" >&2
  fi
fi
echo "[up] $(cat "$state/install-timings"), start $((SECONDS - started)) s"
