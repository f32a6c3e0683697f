#!/usr/bin/env bash
# Installs everything Upgrade Lab needs on a fresh Debian bookworm machine (root, idempotent):
# lab servers and system packages (infra/lab/install.sh), the Python venv, the UI's npm deps and build.
set -euo pipefail
cd "$(dirname "$0")/.."

bash infra/lab/install.sh
bash infra/docker/install.sh # Docker engine, compose client, local base and target images

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# Reinstall when pyproject.toml changed since the last install.
stamp=.venv/.upgradelab-installed
if [ ! -f "$stamp" ] || [ backend/pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e 'backend[dev]'
  touch "$stamp"
fi

if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  (cd frontend && npm ci --no-audit --no-fund)
fi
(cd frontend && npm run build --silent)
