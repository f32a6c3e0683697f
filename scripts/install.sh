#!/usr/bin/env bash
# Installs everything Upgrade Lab needs on a fresh Debian bookworm machine (root, idempotent), phase by
# phase, and prints each phase's time at the end:
#   host packages, chroots   infra/lab/install.sh (the two server chroots are built side by side, and
#                            while the venv and the UI install)
#   venv                     .venv, reinstalled only when backend/pyproject.toml is newer than its stamp,
#                            by uv (in a venv of its own, once per machine) or, when uv fails, by pip
#   UI                       npm ci when package-lock.json changed; the build only when a source under
#                            frontend/ is newer than frontend/dist/.upgradelab-built
# With --tests (scripts/test.sh) also what only the tests use: Debian's PostgreSQL (the metadata
# database test) and the Docker engine, a Compose client and the lab's images (infra/docker/install.sh).
# `make up` does not install Docker: a docker target tells the operator to run infra/docker/install.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=0
[ "${1:-}" != "--tests" ] || tests=1

timings=() current="" phase_note=""
# a failure (set -e) stops the install naming its phase
trap 'status=$?; [ "$status" -eq 0 ] || echo "[install] failed in phase: ${current:-start} (exit $status)" >&2' EXIT
phase() {
  # phase LABEL COMMAND...: runs it and records "LABEL N s". Not under `if`: that would switch set -e
  # off inside the phase's functions.
  local start=$SECONDS
  current=$1
  shift
  "$@"
  # a phase may say how it did its work (the venv: uv or pip) in phase_note
  timings+=("$current $((SECONDS - start)) s${phase_note:+ ($phase_note)}")
  phase_note=""
}

# uv (PyPI `uv`) installs the venv from its machine-wide cache (~/.cache/uv) in seconds; pip took 55-70 s
# in a fresh clone here, downloading every wheel each time (its cache stayed empty, even a --cache-dir).
# uv lives in a venv of its own outside the repo, installed once per machine by pip (never into the
# system Python: Debian's is externally managed).
tools_dir=${UPGRADELAB_TOOLS_DIR:-/opt/upgradelab/tools}
uv_requirement='uv>=0.13,<0.14'

install_uv() {
  # $tools_dir/bin/uv, installed when missing. Runs under `||` (set -e is off): every step is checked.
  [ ! -x "$tools_dir/bin/uv" ] || return 0
  mkdir -p "$(dirname "$tools_dir")" || return 1
  (
    flock 9 || exit 1 # two installs at once (two clones) install it once
    [ ! -x "$tools_dir/bin/uv" ] || exit 0
    { [ -x "$tools_dir/bin/pip" ] || python3 -m venv --clear "$tools_dir"; } &&
      "$tools_dir/bin/pip" install -q "$uv_requirement"
  ) 9>"$tools_dir.lock"
}

uv_venv() (
  # .venv by uv, in a subshell: the settings below stay in it. Runs under `&&` (set -e is off).
  # uv reads none of pip's configuration: pip's settings in the environment are passed on as uv's
  # (uv's own, when set, win). find-links keeps only what exists: uv stops at a missing directory, pip
  # warns and goes on.
  [ -z "${PIP_CERT:-}" ] || [ -n "${SSL_CERT_FILE:-}" ] || export SSL_CERT_FILE=$PIP_CERT
  # no CA bundle named: the platform's store, where a machine's own CA is installed
  [ -n "${SSL_CERT_FILE:-}${SSL_CERT_DIR:-}" ] || export UV_SYSTEM_CERTS=${UV_SYSTEM_CERTS:-true}
  [ -z "${PIP_INDEX_URL:-}" ] || export UV_DEFAULT_INDEX=${UV_DEFAULT_INDEX:-$PIP_INDEX_URL}
  if [ -n "${PIP_EXTRA_INDEX_URL:-}" ]; then
    export UV_INDEX=${UV_INDEX:-$PIP_EXTRA_INDEX_URL}
    export UV_INDEX_STRATEGY=${UV_INDEX_STRATEGY:-unsafe-best-match} # pip's: the best version of all
  fi
  [ -z "${PIP_TRUSTED_HOST:-}" ] || export UV_INSECURE_HOST=${UV_INSECURE_HOST:-$PIP_TRUSTED_HOST}
  case ${PIP_NO_INDEX:-} in 1 | [Tt]rue | [Yy]es | [Oo]n) export UV_NO_INDEX=${UV_NO_INDEX:-true} ;; esac
  if [ -n "${PIP_FIND_LINKS:-}" ] && [ -z "${UV_FIND_LINKS:-}" ]; then
    local link links=()
    for link in $PIP_FIND_LINKS; do # pip: whitespace-separated; uv: comma-separated
      [[ $link != *://* && ! -e $link ]] || links+=("$link")
    done
    [ ${#links[@]} -eq 0 ] || export UV_FIND_LINKS=$(IFS=,; echo "${links[*]}")
  fi
  export UV_PYTHON_DOWNLOADS=never # the machine's python3, as pip's venv: never a downloaded one
  local uv=$tools_dir/bin/uv
  # --seed: pip in the venv too, as in pip's (infra/docker/wheels.sh runs `python -m pip wheel`).
  # --compile-bytecode: every .pyc now, as pip does (~20 CPU-s for ~5,500 files, beside the UI's
  # install). Left to the first import, a process run with PYTHONDONTWRITEBYTECODE=1 (set in some
  # shells here) compiles what it imports each time: `import upgradelab.main` ~10 CPU-s instead of ~3.6.
  { [ -x .venv/bin/python ] || "$uv" venv -q --seed --clear --python "$(command -v python3)" .venv; } &&
    "$uv" pip install -q --compile-bytecode --python .venv/bin/python -e 'backend[dev]'
)

pip_venv() {
  [ -x .venv/bin/python ] || python3 -m venv --clear .venv
  [ -x .venv/bin/pip ] || .venv/bin/python -m ensurepip -q
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e 'backend[dev]'
}

venv() {
  local stamp=.venv/.upgradelab-installed
  if [ -f "$stamp" ] && [ ! backend/pyproject.toml -nt "$stamp" ]; then
    return
  fi
  local why=""
  if ! install_uv; then
    why="uv could not be installed into $tools_dir (above)"
  elif ! uv_venv; then
    why="uv failed (above)"
  fi
  if [ -z "$why" ]; then
    phase_note="uv $("$tools_dir/bin/uv" --version | cut -d' ' -f2)"
  else
    echo "[install] venv: $why: pip instead" >&2
    pip_venv
    phase_note=pip
  fi
  touch "$stamp"
}

ui() {
  if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
    # The machine keeps one copy of node_modules per package-lock.json (its sha256): a fresh clone copies
    # it (~2 s) instead of npm ci (~25 s, ~20 CPU-s of extraction). A plain copy, not hard links: a
    # build writing into node_modules must not change the machine's copy.
    local lock_sum cache_root cached
    lock_sum=$(sha256sum frontend/package-lock.json | cut -c1-16)
    cache_root=${UPGRADELAB_NODE_CACHE:-/var/cache/upgradelab/node_modules}
    cached="$cache_root/$lock_sum"
    if [ -f "$cached/.complete" ]; then
      rm -rf frontend/node_modules
      cp -a "$cached/node_modules" frontend/node_modules
      touch frontend/node_modules/.package-lock.json
    else
      # --prefer-offline: the lock file names every tarball with its hash, so a cached one is the same
      # bytes; it spares the registry's revalidations (~25 s instead of ~35 s here); a fresh machine fetches
      (cd frontend && npm ci --no-audit --no-fund --prefer-offline)
      # kept for the next clone: made aside, then renamed (two clones installing at once both succeed)
      mkdir -p "$cache_root"
      local staging
      staging=$(mktemp -d "$cache_root/.staging.XXXXXX")
      if cp -a frontend/node_modules "$staging/node_modules" && touch "$staging/.complete" &&
        mv -T "$staging" "$cached" 2>/dev/null; then :; else rm -rf "$staging"; fi
    fi
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
  # the query-log oracle (tests/replay/querylog/): pt-fingerprint and pt-query-digest read the same
  # logs and statements as measurement/querylog does, and the tests assert the same events and classes
  if ! command -v pt-query-digest >/dev/null || ! command -v pt-fingerprint >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends percona-toolkit
  fi
  # an assessment's PDF is read back by its test (tests/assessment/): pdftotext finds the to-do list
  if ! command -v pdftotext >/dev/null || ! command -v pdftoppm >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends poppler-utils
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
