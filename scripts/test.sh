#!/usr/bin/env bash
# Runs every check and test: installs what is missing, lints, formats, type-checks (backend and UI),
# then pytest against the real lab servers, a real Redis, a real Celery worker and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
# --tests: also what only the tests use (PostgreSQL, the Docker engine and the lab's images)
# Python writes its bytecode caches here (an environment with PYTHONDONTWRITEBYTECODE=1 had every worker,
# API, Celery and CLI process compile the backend, and pytest rewrite every test module, again and again)
unset PYTHONDONTWRITEBYTECODE
started=$SECONDS
bash scripts/install.sh --tests
install_s=$((SECONDS - started))

# Lint, format, types, the client drift check and Vitest: CPU for about two minutes, run beside pytest
# (whose first minute is mostly its sessions starting servers), their output printed when both ended.
# mypy's cache is the machine's, like pip's: a fresh clone is checked in ~4 s instead of ~32 CPU-s (the
# cache is keyed by each file's hash, so a changed file is checked again).
mypy_cache=${UPGRADELAB_MYPY_CACHE:-/var/cache/upgradelab/mypy}
mkdir -p "$mypy_cache"
# The same for tsc (its incremental build info: relative paths, a file's hash per entry) and ESLint (its
# cache, content hashes; its keys are absolute paths, so the clone's path is written in): a fresh clone
# is type-checked and linted in ~8 CPU-s instead of ~37.
ui_cache=${UPGRADELAB_UI_CHECK_CACHE:-/var/cache/upgradelab/ui-checks}
mkdir -p "$ui_cache"
ui_checks() {
  local here
  here=$(pwd -P)
  cp "$ui_cache/tsc.tsbuildinfo" .tsc.tsbuildinfo 2>/dev/null || true
  if [ -f "$ui_cache/eslintcache" ] && [ -f "$ui_cache/eslint-root" ]; then
    sed "s#$(cat "$ui_cache/eslint-root")/#$here/#g" "$ui_cache/eslintcache" > .eslintcache
  fi
  npx tsc --noEmit --incremental --tsBuildInfoFile .tsc.tsbuildinfo
  npx eslint --cache --cache-strategy content --cache-location .eslintcache .
  cp .tsc.tsbuildinfo "$ui_cache/tsc.tsbuildinfo.$$" && mv "$ui_cache/tsc.tsbuildinfo.$$" "$ui_cache/tsc.tsbuildinfo"
  cp .eslintcache "$ui_cache/eslintcache.$$" && mv "$ui_cache/eslintcache.$$" "$ui_cache/eslintcache"
  echo "$here" > "$ui_cache/eslint-root"
  npm run --silent test
}
static_checks() {
echo "== lint, format, types" >&2
(cd backend && ../.venv/bin/ruff check . ../bench && ../.venv/bin/ruff format --check . ../bench &&
  ../.venv/bin/mypy --cache-dir "$mypy_cache" upgradelab tests ../bench)
# the package layers and no import cycle (backend/pyproject.toml [tool.importlinter];
# docs/architecture.md, "Packages and layers")
(cd backend && PYTHONPATH=. ../.venv/bin/lint-imports --no-cache)
# every module path and module.function that README.md and docs/ name exists (scripts/docs_check.py)
.venv/bin/python scripts/docs_check.py
# the user guide: its generated reference pages are what the CLI, the OpenAPI schema and the settings
# model say (scripts/docs_reference.py), and it builds with no warning (broken links, pages left out)
.venv/bin/python scripts/docs_reference.py --check
(site=$(mktemp -d) && trap 'rm -rf "$site"' EXIT &&
  NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet -f mkdocs.yml -d "$site")
# the committed API client must be what the backend's schemas generate (scripts/client.sh)
bash scripts/client.sh --check
(cd frontend && ui_checks)
# the first page's JavaScript (entry + /runs or sign-in chunks of the build install.sh made) at most 120 kB gzip
(cd frontend && node scripts/first-page-size.mjs)
}

echo "== tests" >&2
# Servers' datadirs go under /var/lib/upgradelab (on the host and in the chroots), several GB per session at
# its peak; a full disk shows up late, as InnoDB's "The table ... is full". Say it first.
free_mib=$(df -Pm /var/lib | awk 'NR == 2 { print $4 }')
if [ "$free_mib" -lt 10240 ]; then
  echo "warning: only ${free_mib} MiB free under /var/lib; the tests' servers need about 10 GiB" >&2
fi
cd backend
# Three worker processes (pytest-xdist, a test file at a time, the longest files first: tests/conftest.py
# LONGEST_FIRST, which --no-loadscope-reorder keeps: xdist sorts files by their test count otherwise), each a test session of its own: its own Redis, Celery worker, API, ports and server
# directories (tests/ports.py), so they share nothing. Three, on two cores: a third of the suite's time is
# waiting (servers starting, leases running out, outages, slowed servers), which a third worker fills
# (measured: 1488 s with two workers, 1241 s with three). UPGRADELAB_TEST_WORKERS=0 runs in this process alone.
if [ $# -gt 0 ]; then
  (cd .. && static_checks)
  exec ../.venv/bin/python -m pytest -ra -p no:cacheprovider -n "${UPGRADELAB_TEST_WORKERS:-3}" \
    --dist loadfile --no-loadscope-reorder "$@"
fi
static_log=$(mktemp)
(cd .. && static_checks) >"$static_log" 2>&1 &
static_pid=$!
# The fuzzer tallies its answers across its module (checked when the module ends) and deletes what it
# created: one process, a test session of its own (the block before the suite's first, tests/ports.py),
# beside the suite. (Two gate runs with it beside had cancel tests wait out their 20 s fallback: a
# cancel that caught a template's `mariadbd --bootstrap`, which blocks SIGTERM; killed at once since.)
fuzz_log=$(mktemp)
session=${UPGRADELAB_TEST_SESSION:-0}
(
  started=$SECONDS
  rc=0
  UPGRADELAB_TEST_SESSION=$(((session + 99) % 100)) ../.venv/bin/python -m pytest -ra -p no:cacheprovider \
    tests/fuzzing || rc=$?
  echo "[test] fuzzer $((SECONDS - started)) s"
  exit "$rc"
) >"$fuzz_log" 2>&1 &
fuzz_pid=$!
started=$SECONDS
tests_rc=0
# Every test's time is kept in backend/.test-times.xml (JUnit XML, not committed) for
# `python scripts/test_times.py`: seconds per test file, the slowest first.
../.venv/bin/python -m pytest -ra -p no:cacheprovider -n "${UPGRADELAB_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder \
  --durations=25 --junitxml=.test-times.xml --ignore=tests/fuzzing || tests_rc=$?
suite_s=$((SECONDS - started))
wait "$fuzz_pid" || tests_rc=$?
echo "== the fuzzer (run beside the tests)" >&2
cat "$fuzz_log" >&2
rm -f "$fuzz_log"
static_rc=0
wait "$static_pid" || static_rc=$?
echo "== lint, format, types, client, UI checks (run beside the tests)" >&2
cat "$static_log" >&2
rm -f "$static_log"
echo "[test] install ${install_s} s, pytest ${suite_s} s (the fuzzer beside it: above; checks beside them: rc ${static_rc})" >&2
[ "$static_rc" -eq 0 ] && [ "$tests_rc" -eq 0 ]
