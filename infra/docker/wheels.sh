#!/usr/bin/env bash
# Builds the wheels of the backend and its dependencies into build/wheelhouse, with this machine's
# pip (its index and certificates): the app image (infra/docker/app.Dockerfile) installs from there
# with --no-index, so `docker compose build` needs no network access from inside a build container.
# Idempotent: rebuilt when backend/pyproject.toml or the backend's code changed since the last run.
set -euo pipefail
cd "$(dirname "$0")/../.."

python=${PYTHON:-.venv/bin/python}
[ -x "$python" ] || python=python3
out=build/wheelhouse
stamp="$out/.complete"
if [ -f "$stamp" ] && [ -z "$(find backend/pyproject.toml backend/upgradelab -newer "$stamp" -print -quit)" ]; then
  echo "[wheels] $out up to date" >&2
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
# async-timeout: redis needs it on Python < 3.11.3, as the image's Debian 3.11.2 is; this machine's
# Python may be newer, so the marker would leave it out.
"$python" -m pip wheel -q -w "$out" './backend[mariadb]' 'async-timeout>=4.0.3'
touch "$stamp"
echo "[wheels] $(ls "$out"/*.whl | wc -l) wheels in $out" >&2
