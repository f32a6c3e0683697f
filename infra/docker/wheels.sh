#!/usr/bin/env bash
# Builds the wheels of the backend and its dependencies into build/wheelhouse/{deps,app}, with this
# machine's pip (its index and certificates): the app image (infra/docker/app.Dockerfile) installs
# from there with --no-index, so `docker compose build` needs no network access from inside a build container.
# Idempotent: rebuilt when backend/pyproject.toml or the backend's code changed since the last run.
set -euo pipefail
cd "$(dirname "$0")/../.."

python=${PYTHON:-.venv/bin/python}
[ -x "$python" ] || python=python3
out=build/wheelhouse
# deps/ (the dependencies, rebuilt when backend/pyproject.toml changes) and app/ (the backend's own
# wheel, rebuilt when its code changes): app.Dockerfile installs them in two layers, so a code change
# leaves the dependencies' layer cached. The stamps live beside the two folders, not in them: the
# image build copies each folder, and a folder whose bytes did not change keeps its layer.
deps_digest=$(sha256sum backend/pyproject.toml | cut -c1-16)
if [ "$(cat "$out/.deps" 2>/dev/null)" != "$deps_digest" ]; then
  rm -rf "$out"
  mkdir -p "$out/deps" "$out/app"
  # async-timeout: redis needs it on Python < 3.11.3, as the image's Debian 3.11.2 is; this machine's
  # Python may be newer, so the marker would leave it out.
  "$python" -m pip wheel -q -w "$out/deps" './backend[mariadb]' 'async-timeout>=4.0.3'
  mv "$out"/deps/upgradelab-*.whl "$out/app/"
  echo "$deps_digest" >"$out/.deps"
  touch "$out/.app"
elif [ ! -f "$out/.app" ] || [ -n "$(find backend/upgradelab -newer "$out/.app" -print -quit)" ]; then
  rm -rf "$out/app" "$out/.app"
  mkdir -p "$out/app"
  "$python" -m pip wheel -q --no-deps -w "$out/app" ./backend
  touch "$out/.app"
else
  echo "[wheels] $out up to date" >&2
  exit 0
fi
echo "[wheels] $(ls "$out"/deps/*.whl | wc -l) dependencies' wheels in $out/deps, the backend's in $out/app" >&2
