"""The planted semijoin regression on a real MySQL 9.7 (issue 34, Deliver 6): a variant started with
optimizer_switch='semijoin=off,materialization=off' runs `o.k IN (SELECT i.c FROM i)`, i.c unindexed,
as a dependent subquery (IN -> EXISTS: i scanned once per row of o); the baseline, the same server
with its defaults, runs it as a semi-join. A replay (one round), then `upgradelab fix --json` on that
fingerprint: the remedy must be a statement-level `/*+ SET_VAR(optimizer_switch=...) */` hint that
restores the baseline's time with equal results, and its global twin (the option line) must report
no side effect, the replay having no other fingerprint. As on MariaDB (test_fix_on_mariadb.py), the
timing decision asks a large effect only (tolerance 50 % of a planted many-fold gap); the mechanics
(candidates, the hint's spelling, the refused lever, the plans) are asserted exactly."""

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import BIN
from tests.fixsearch.planted import planted_replay
from tests.fixsearch.test_fix_on_mariadb import DUMP, QUERY

DATASET = "fix-semijoin-mysql"
TARGET = "mysql-9.7"
SLOWED = {
    "target": TARGET,
    "name": "no semijoin",
    "options": {"optimizer_switch": "semijoin=off,materialization=off"},
}


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    with planted_replay(http, DATASET, DUMP, f"{QUERY};\n", [TARGET, SLOWED]) as found:
        yield found


def test_the_search_finds_a_set_var_hint_that_restores_and_its_global_twin_has_no_side_effect(
    api: str, replay: dict[str, Any]
) -> None:
    fingerprint = replay["report"]["fingerprints"][0]["fingerprint_id"]
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", str(replay["id"]), "--fingerprint",
         fingerprint, "--variant", "no semijoin", "--json", "--rounds", "10", "--budget-rounds", "200",
         "--tolerance", "0.5"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), (done.returncode, done.stdout[-3000:], done.stderr[-2000:])
    found = json.loads(done.stdout)
    said = [(t["name"], t["status"], t["reason"]) for t in found["tried"]]
    assert done.returncode == 0 and found["result"]["outcome"] == "restored", (found["result"], said)
    names = [c["name"] for c in found["candidates"]]
    assert names[:3] == [
        "optimizer_switch materialization=on",
        "optimizer_switch semijoin=on",
        "optimizer_switch materialization=on,semijoin=on",
    ]
    remedy = found["result"]["remedy"]
    trials = {t["name"]: t for t in found["tried"]}
    chosen = trials[remedy]
    setting = next(c for c in found["candidates"] if c["name"] == remedy)["settings"]["optimizer_switch"]
    assert chosen["scope"] == "statement" and chosen["results_equal"] is True
    hinted = QUERY.replace("SELECT", f"SELECT /*+ SET_VAR(optimizer_switch='{setting}') */", 1)
    assert chosen["statements"] == [hinted]
    assert chosen["ratio_to_variant"]["verdict"] == "improvement"
    # EXPLAIN of the hinted statement runs (no plan_error); 9.7's format-2 plans name their tables
    assert chosen["plan_error"] is None and chosen["plan_after"]
    replayed = replay["report"]["fingerprints"][0]["statements"][0]["outcomes"]["no semijoin"]["plan"]

    def accesses(steps: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        return [(s["table"], s["access_type"], s["key"]) for s in steps]  # rows: estimates move

    assert replayed and accesses(chosen["plan_before"]) == accesses(replayed)  # as the replay read it
    twin = trials[f"{remedy} (global)"]
    assert twin["scope"] == "global" and twin["statements"] == [QUERY]
    assert twin["apply"] == f"optimizer_switch='{setting}'"
    if twin["status"] == "restores":  # its own timing verdict; its check is what is asserted
        assert twin["side_effects"]["complete"] is True and twin["side_effects"]["checked"] == []
