"""Property-based fuzzing of every endpoint from the API's own OpenAPI schema (Schemathesis), signed in
as the admin, against the real test API: no request may answer 5xx.

Bounded: EXAMPLES generated requests per operation (positive and negative data). Side effects are
contained: a run the fuzzer manages to queue is cancelled at once (so the worker never starts
servers for it), logout is called without the session's token (it would revoke it), and targets
and users the fuzzer created are removed afterwards.
"""

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis import Case
from sqlalchemy import delete, select

from tests.conftest import auth_headers
from upgradelab.db import sync_session
from upgradelab.main import app
from upgradelab.targets.models import Target
from upgradelab.users.models import User

EXAMPLES = 100
NO_TOKEN = {"/api/auth/logout"}
QUEUES_A_RUN = {"/api/experiments/{experiment_id}/runs", "/api/runs/{run_id}/rerun"}
# Answers by status class; checked (and printed, with -s) when the module ends.
TALLY: Counter[str] = Counter()


# The app's own schema (the same the live API serves at /openapi.json); requests go to the live API.
schema = schemathesis.openapi.from_dict(app.openapi())


@pytest.fixture(scope="module", autouse=True)
def contained(api: str) -> Iterator[None]:
    """Targets and users the fuzzer adds are deleted afterwards."""
    with sync_session() as session:
        targets = set(session.scalars(select(Target.id)))
        users = set(session.scalars(select(User.id)))
    yield
    print(f"\nfuzzing: {sum(TALLY.values())} requests, by status: {dict(sorted(TALLY.items()))}")
    # Signed in as admin, so the fuzzer reached the handlers, not only the sign-in check.
    assert TALLY["2xx"] > 0 and TALLY["422"] > 0 and TALLY["5xx"] == 0, TALLY
    with sync_session() as session:
        session.execute(delete(Target).where(Target.id.not_in(targets)))
        session.execute(delete(User).where(User.id.not_in(users)))
        session.commit()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_no_request_answers_a_server_error(case: Case[Any], api: str) -> None:
    headers = {} if case.path in NO_TOKEN else auth_headers()
    # Schemathesis stops reading an event stream (a live run's SSE) when the timeout has passed.
    response = case.call(base_url=api, headers=headers, timeout=10)
    if case.path in QUEUES_A_RUN and response.status_code == 201:
        run_id = json.loads(response.content)["id"]
        httpx.post(f"{api}/api/runs/{run_id}/cancel", headers=auth_headers(), timeout=30).raise_for_status()
    status = response.status_code
    TALLY["2xx" if status < 300 else "5xx" if status >= 500 else str(status)] += 1
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path} answered {response.status_code}: {response.content[:500]!r}"
    )
