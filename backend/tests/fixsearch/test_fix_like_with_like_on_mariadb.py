"""Issue 46, Deliver 3 and 4 on a real MariaDB 11.8, mechanics only: a variant started with
optimizer_switch='derived_merge=off' runs a derived-table query (microseconds) by materializing it
(`<derived2>`, a temporary table); the candidate `derived_merge=on` runs as `SET STATEMENT ... FOR`,
so the baseline's and the variant's arms carry a no-op `SET STATEMENT` of the same flag at their own
values (`derived_merge=on` on the baseline, `off` on the variant), and the wrapper's cost is measured
apart (a fourth arm). Its plan with the remedy is the baseline's, its results and work counters equal:
even when its statement-level arm does not restore it is measured as a global remedy, with the
whole-replay side-effect check, and the trial says why.

No timing effect is judged here (the common rule: the gap is ~12 %): the tolerance is the smallest
the API takes (1 %), so the statement-level arm does not restore and plan identity is what sends the
setting to its global form; the assertions are on what ran (wrapped statements, plans, counters,
the twin measured and checked), never on which way a ratio fell. The timing claim is the seeded
oracle's (test_like_with_like.py) and the bench's (bench/fix_search_cost.py, case "derived")."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fixsearch.planted import fix_json, planted_replay
from tests.fixsearch.planted_data import DERIVED_DUMP as DUMP

DATASET = "fix-derived"
TARGET = "mariadb-11.8"
QUERY = "SELECT d.id, d.v FROM (SELECT id, v FROM t WHERE g = 3) AS d WHERE d.v > 10"
OTHER = "SELECT COUNT(*) FROM t WHERE g = 5"
SLOWED = {"target": TARGET, "name": "no derived_merge", "options": {"optimizer_switch": "derived_merge=off"}}
REMEDY = "optimizer_switch derived_merge=on"


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    with planted_replay(http, DATASET, DUMP, f"{QUERY};\n{OTHER};\n", [TARGET, SLOWED]) as found:
        yield found


def test_a_plan_identical_setting_is_measured_like_with_like_and_offered_as_a_global_remedy(
    api: str, replay: dict[str, Any]
) -> None:
    fingerprints = replay["report"]["fingerprints"]
    fingerprint = next(f for f in fingerprints if f["statements"][0]["sql"] == QUERY)["fingerprint_id"]
    options = ("--rounds", "5", "--tolerance", "0.01", "--only", "differs")
    found = fix_json(api, replay["id"], fingerprint, "no derived_merge", *options)
    assert found["budget_scaled"] is True and found["budget_rounds"] >= 5 * len(found["candidates"])
    tried = {t["name"]: t for t in found["tried"]}
    trial = tried[REMEDY]
    # like with like: both sides under a no-op wrapper of the same flag, the wrapper's cost apart
    assert trial["wrapper"]["baseline"] == "SET STATEMENT optimizer_switch='derived_merge=on' FOR <statement>"
    assert trial["wrapper"]["variant"] == "SET STATEMENT optimizer_switch='derived_merge=off' FOR <statement>"
    assert trial["wrapper_cost"] is not None and trial["wrapper_cost"]["rounds"] == trial["rounds"]
    assert trial["wrapper_us"] is not None
    assert trial["statements"] == [f"SET STATEMENT optimizer_switch='derived_merge=on' FOR {QUERY}"]
    # the plan with it is the baseline's: the derived table merged, t read by its index g
    assert [s["table"] for s in trial["plan_before"]] == ["<derived2>", "t"]
    assert [(s["table"], s["access_type"], s["key"]) for s in trial["plan_after"]] == [("t", "ref", "g")]
    assert trial["results_equal"] is True
    if trial["status"] != "restores":  # at 1 %, the usual case: plan identity sends it to the global form
        assert trial["plan_identity"] and "t:ref/g" in trial["plan_identity"], trial["reason"]
        twin = tried[f"{REMEDY} (global)"]
        assert twin["reason"].startswith("measured as a global remedy: "), twin["reason"]
        assert twin["wrapper"] is None and twin["statements"] == [QUERY]  # a global form carries none
        assert twin["set_global"] == "SET GLOBAL optimizer_switch='derived_merge=on'"
        if twin["status"] == "restores":
            assert twin["side_effects"]["complete"] is True
    assert found["result"]["timing_cpu"]  # said how the timing was placed, as a replay says it
