#!/usr/bin/env bash
# Runs every check and test: installs what is missing, lints, formats, type-checks (backend and UI),
# then pytest against the real lab servers, a real Redis, a real Celery worker and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
# --tests: also what only the tests use (PostgreSQL, the Docker engine and the lab's images)
bash scripts/install.sh --tests

echo "== lint, format, types" >&2
(cd backend && ../.venv/bin/ruff check . ../bench && ../.venv/bin/ruff format --check . ../bench &&
  ../.venv/bin/mypy upgradelab tests ../bench)
# the package layers and no import cycle (backend/pyproject.toml [tool.importlinter];
# docs/architecture.md, "Packages and layers")
(cd backend && PYTHONPATH=. ../.venv/bin/lint-imports --no-cache)
# the committed API client must be what the backend's schemas generate (scripts/client.sh)
bash scripts/client.sh --check
(cd frontend && npm run --silent typecheck && npm run --silent lint && npm run --silent test)
# the first page's JavaScript (entry + /runs or sign-in chunks of the build install.sh made) at most 120 kB gzip
(cd frontend && node scripts/first-page-size.mjs)

echo "== tests" >&2
# Servers' datadirs go under /var/lib/upgradelab (on the host and in the chroots), several GB per session at
# its peak; a full disk shows up late, as InnoDB's "The table ... is full". Say it first.
free_mib=$(df -Pm /var/lib | awk 'NR == 2 { print $4 }')
if [ "$free_mib" -lt 10240 ]; then
  echo "warning: only ${free_mib} MiB free under /var/lib; the tests' servers need about 10 GiB" >&2
fi
cd backend
# Two worker processes (pytest-xdist, a test file at a time), each a test session of its own: its own
# Redis, Celery worker, API, ports and server directories (tests/ports.py), so they share nothing.
# UPGRADELAB_TEST_WORKERS=0 runs in this process alone.
if [ $# -gt 0 ]; then
  exec ../.venv/bin/python -m pytest -ra -p no:cacheprovider -n "${UPGRADELAB_TEST_WORKERS:-2}" \
    --dist loadfile "$@"
fi
../.venv/bin/python -m pytest -ra -p no:cacheprovider -n "${UPGRADELAB_TEST_WORKERS:-2}" --dist loadfile \
  --durations=15 --ignore=tests/fuzzing
# The fuzzer tallies its answers across its module (checked when the module ends): one process.
../.venv/bin/python -m pytest -ra -p no:cacheprovider tests/fuzzing
