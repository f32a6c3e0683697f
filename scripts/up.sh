#!/usr/bin/env bash
# Starts Upgrade Lab with its embedded defaults: Redis, the Celery worker, the API serving the UI.
# Then queues the main job, article 001's INSERT/TRUNCATE experiment on the lab's two servers,
# unless UPGRADELAB_DEMO=0. Logs and pid files: $UPGRADELAB_STATE_DIR (default /var/lib/upgradelab/state).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh

state=${UPGRADELAB_STATE_DIR:-/var/lib/upgradelab/state}
export UPGRADELAB_STATE_DIR=$state
redis_port=${UPGRADELAB_REDIS_PORT:-6380}
export UPGRADELAB_REDIS_URL=${UPGRADELAB_REDIS_URL:-redis://127.0.0.1:$redis_port/0}
api_port=${UPGRADELAB_API_PORT:-8700}
mkdir -p "$state/logs" "$state/redis"
bash scripts/down.sh >/dev/null 2>&1 || true

redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$state/redis" --daemonize yes \
  --pidfile "$state/redis.pid" --logfile "$state/logs/redis.log" --save "" --appendonly yes
.venv/bin/upgradelab db upgrade
# Sign-in: the first admin's password is generated once and kept (0600) in $state/admin-password.
if [ ! -s "$state/admin-password" ]; then
  (umask 077; head -c 18 /dev/urandom | base64 >"$state/admin-password")
  UPGRADELAB_ADMIN_PASSWORD=$(cat "$state/admin-password") .venv/bin/upgradelab users create-admin --username admin
fi
export UPGRADELAB_TOKEN=${UPGRADELAB_TOKEN:-$(.venv/bin/upgradelab users token --username admin --label up.sh)}

nohup .venv/bin/celery -A upgradelab.worker worker --loglevel=INFO --concurrency=2 -Q upgradelab \
  >"$state/logs/worker.log" 2>&1 &
echo $! >"$state/worker.pid"
nohup .venv/bin/upgradelab serve --port "$api_port" >"$state/logs/api.log" 2>&1 &
echo $! >"$state/api.pid"

url="http://127.0.0.1:$api_port"
for _ in $(seq 1 60); do
  curl -fsS "$url/api/health" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "$url/api/health" >/dev/null || { echo "API did not start; see $state/logs/api.log" >&2; exit 1; }

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
  sleep 2
  echo "Main job queued: $(grep -o 'http[^ ]*' "$state/logs/demo-run.log" | head -n 1 || echo "$url/runs")"
fi
