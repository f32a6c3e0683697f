#!/usr/bin/env bash
# Regenerates the UI's API client from the backend: the OpenAPI schema comes from the app object
# (upgradelab.main:app.openapi(), no server needed) into frontend/openapi.json, then
# @hey-api/openapi-ts (frontend/openapi-ts.config.ts) writes frontend/src/client/. Both are committed;
# `scripts/client.sh --check` fails when they differ from what the backend's schemas generate.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd backend && ../.venv/bin/python -c \
  'import json, sys; from upgradelab.main import app; json.dump(app.openapi(), sys.stdout, indent=2); print()') \
  > frontend/openapi.json
(cd frontend && npx --no-install openapi-ts > /dev/null)
if [ "${1:-}" = "--check" ]; then
  changed=$(git status --porcelain -- frontend/openapi.json frontend/src/client)
  if [ -n "$changed" ]; then
    echo "The committed API client differs from the backend's schema; run scripts/client.sh and commit:" >&2
    echo "$changed" >&2
    git --no-pager diff --stat -- frontend/openapi.json frontend/src/client >&2
    exit 1
  fi
fi
