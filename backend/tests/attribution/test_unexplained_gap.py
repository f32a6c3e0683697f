"""Issue 21 (c): a gap no candidate explains. The variant differs from the baseline by one startup
option that does not matter to the INSERT/TRUNCATE loop (max_connections) and by a session setting
that does (autocommit=0: five INSERTs commit once, at the first TRUNCATE), which is no candidate:
the attribution must end "unexplained" with the share left, and name no cause."""

from typing import Any

import httpx

from tests.attribution.helpers import finished_run, verdict_of, wait_attribution

ROUNDS, BLOCK = 6, 10


def test_a_gap_no_candidate_explains_ends_unexplained_with_its_share(client: httpx.Client) -> None:
    variants: list[dict[str, Any]] = [
        {"target": "mysql-9.7", "name": "default"},
        {
            "target": "mysql-9.7",
            "name": "session",
            "options": {"max-connections": "300"},
            "set_session": {"autocommit": "0"},
        },
    ]
    run = finished_run(client, variants, ROUNDS, BLOCK, max_rounds=12)
    gap = verdict_of(client, run["id"], "session")
    assert gap["verdict"] in ("improvement", "regression"), gap

    created = client.post(
        "/api/attributions",
        json={"run_id": run["id"], "variant": "session", "rounds": ROUNDS, "block": BLOCK, "budget_runs": 3},
    )
    assert created.status_code == 201, created.text
    started = created.json()
    assert [c["name"] for c in started["candidates"]] == ["max-connections"]
    assert "SET SESSION autocommit" in {u["name"] for u in started["untestable"]}

    found = wait_attribution(client, started["id"])
    assert found["status"] == "succeeded", found
    result = found["result"]
    assert result["outcome"] == "unexplained", result
    assert result["set"] == [] and result["members"] == [] and result["lines"] == []
    assert result["runs"] == 1  # all candidates together did not close the gap: nothing to search
    assert result["unexplained"] > 0.5, result
