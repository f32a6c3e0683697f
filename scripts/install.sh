#!/usr/bin/env bash
# Installs everything Upgrade Lab needs on a fresh Debian bookworm machine (root, idempotent), phase by
# phase, and prints each phase's time at the end:
#   host packages, chroots   infra/lab/install.sh (the two server chroots are built side by side, and
#                            while the venv and the UI install)
#   venv                     .venv, reinstalled only when backend/pyproject.toml is newer than its stamp
#   UI                       npm ci when package-lock.json changed; the build only when a source under
#                            frontend/ is newer than frontend/dist/.upgradelab-built
# With --tests (scripts/test.sh) also what only the tests use: Debian's PostgreSQL (the metadata
# database test) and the Docker engine, a Compose client and the lab's images (infra/docker/install.sh).
# `make up` does not install Docker: a docker target tells the operator to run infra/docker/install.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=0
[ "${1:-}" != "--tests" ] || tests=1

timings=() current=""
# a failure (set -e) stops the install naming its phase
trap 'status=$?; [ "$status" -eq 0 ] || echo "[install] failed in phase: ${current:-start} (exit $status)" >&2' EXIT
phase() {
  # phase LABEL COMMAND...: runs it and records "LABEL N s". Not under `if`: that would switch set -e
  # off inside the phase's functions.
  local start=$SECONDS
  current=$1
  shift
  "$@"
  timings+=("$current $((SECONDS - start)) s")
}

venv() {
  [ -x .venv/bin/python ] || python3 -m venv .venv
  local stamp=.venv/.upgradelab-installed
  if [ ! -f "$stamp" ] || [ backend/pyproject.toml -nt "$stamp" ]; then
    .venv/bin/pip install -q --upgrade pip
    .venv/bin/pip install -q -e 'backend[dev]'
    touch "$stamp"
  fi
}

ui() {
  if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
    (cd frontend && npm ci --no-audit --no-fund)
  fi
  local stamp=frontend/dist/.upgradelab-built changed=""
  if [ -f "$stamp" ]; then
    changed=$(find frontend -path frontend/node_modules -prune -o -path frontend/dist -prune -o \
      -type f -newer "$stamp" -print -quit)
  fi
  if [ ! -f "$stamp" ] || [ -n "$changed" ]; then
    (cd frontend && npm run build --silent)
    touch "$stamp"
  fi
}

test_packages() {
  # the metadata database test (tests/pools/test_metadata_postgresql.py) runs its own throw-away cluster
  if ! command -v pg_ctlcluster >/dev/null || ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    apt-get update -q
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [ ! -e "$policy" ]; then # keep the packaged cluster from starting: the test starts its own
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql
    [ "$created_policy" -eq 0 ] || rm -f "$policy"
  fi
}

phase "host packages" bash infra/lab/install.sh host-packages
# The chroots (debootstrap and dpkg: mostly waiting on the mirror and the disk) build in the background
# while the venv and the UI install; their time is from their start to the wait's end.
chroots_start=$SECONDS
bash infra/lab/install.sh chroots &
chroots=$!
# The UI (npm ci, vite build) installs beside the venv (pip): in a fresh clone each took 30-50 s in series.
ui_start=$SECONDS
ui_log=$(mktemp)
ui >"$ui_log" 2>&1 &
ui_pid=$!
phase "venv" venv
current=UI
ui_rc=0
wait "$ui_pid" || ui_rc=$?
cat "$ui_log" >&2
rm -f "$ui_log"
[ "$ui_rc" -eq 0 ] || exit "$ui_rc"
timings+=("UI $((SECONDS - ui_start)) s (beside the venv)")
current=chroots
wait "$chroots"
timings+=("chroots $((SECONDS - chroots_start)) s")
if [ "$tests" = 1 ]; then
  phase "test packages" test_packages
  phase "docker" bash infra/docker/install.sh # Docker engine, compose client, local base and target images
fi
line=$(IFS=,; echo "${timings[*]}" | sed 's/,/, /g')
echo "[install] $line" >&2
# scripts/up.sh prints it again at its end, beside the start's own time
[ -z "${UPGRADELAB_INSTALL_TIMINGS:-}" ] || echo "$line" >"$UPGRADELAB_INSTALL_TIMINGS"
