"""The planted semijoin regression on a real MySQL 9.7 (issue 34, Deliver 6): a variant started with
optimizer_switch='semijoin=off,materialization=off' runs `o.k IN (SELECT i.c FROM i)`, i.c unindexed,
as a dependent subquery (IN -> EXISTS: i scanned once per row of o); the baseline, the same server
with its defaults, runs it as a semi-join. A replay (one round), then `upgradelab fix --json` on that
fingerprint: the first candidate is the baseline's semijoin strategy as a hint in the subquery
(`IN (SELECT /*+ SEMIJOIN(...) */ ...)`, strategies.py), which MySQL 9.7 must take (the one
real-server check of the hint's spelling: its plan changes, its results equal the baseline's, it is
decided faster than the variant), and the search must end restored; then, scope "global", the
differing flags set back as an option line must restore and report no
side effect, the replay having no other fingerprint. (The SET_VAR spelling is asserted in
test_candidates.py; the search stops at the strategy hint before it.) As on MariaDB
(test_fix_on_mariadb.py), the timing decision asks a large effect only (tolerance 50 % of a planted
many-fold gap); the mechanics (candidates, the hint's spelling, the plans) are asserted exactly."""

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


def _fix(api: str, replay: dict[str, Any], *extra: str) -> tuple[int, dict[str, Any]]:
    fingerprint = replay["report"]["fingerprints"][0]["fingerprint_id"]
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", str(replay["id"]), "--fingerprint",
         fingerprint, "--variant", "no semijoin", "--json", "--rounds", "10", "--budget-rounds", "200",
         "--tolerance", "0.5", *extra],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), (done.returncode, done.stdout[-3000:], done.stderr[-2000:])
    return done.returncode, json.loads(done.stdout)


def accesses(steps: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(s["table"], s["access_type"], s["key"]) for s in steps]  # rows: estimates move


def test_the_baselines_subquery_strategy_is_asked_for_first_as_a_hint_mysql_takes(
    api: str, replay: dict[str, Any]
) -> None:
    code, found = _fix(api, replay)
    said = [(t["name"], t["status"], t["reason"]) for t in found["tried"]]
    assert code == 0 and found["result"]["outcome"] == "restored", (found["result"], said)
    first = found["candidates"][0]
    # the baseline's semi-join, the variant's dependent subquery: the strategy as a plan hint, first
    assert first["source"] == "plan" and first["extra"]["subquery_hint"].startswith("SEMIJOIN("), first
    assert [c["name"] for c in found["candidates"][1:4]] == [
        "optimizer_switch materialization=on",
        "optimizer_switch semijoin=on",
        "optimizer_switch materialization=on,semijoin=on",
    ]
    chosen = found["tried"][0]
    assert chosen["name"] == first["name"], said
    hinted = QUERY.replace("IN (SELECT", f"IN (SELECT /*+ {first['extra']['subquery_hint']} */", 1)
    assert chosen["statements"] == [hinted] and chosen["scope"] == "statement"
    # MySQL 9.7 took the hint under semijoin=off (a new warning would have made it "refused"): the
    # plan with it is not the variant's as the replay read it, its results equal the baseline's and
    # it is decided faster than the variant's dependent subquery (a many-fold gap)
    assert chosen["status"] != "refused" and chosen["results_equal"] is True, said
    replayed = replay["report"]["fingerprints"][0]["statements"][0]["outcomes"]["no semijoin"]["plan"]
    assert replayed and accesses(chosen["plan_before"]) == accesses(replayed)
    assert chosen["plan_error"] is None and accesses(chosen["plan_after"]) != accesses(replayed)
    assert chosen["ratio_to_variant"]["verdict"] == "improvement", said
    assert chosen["apply"] == f"/*+ {first['extra']['subquery_hint']} */ in each IN / EXISTS subquery"
    # Whether it restores is its timing verdict against the baseline (same plan, so ~1x: it restored
    # in 2 of 3 runs here; once, on the loaded machine of a full fixsearch run, it was not decided
    # within 1.5x, and the next candidate, a SET_VAR, restored). If it restores it is the remedy and
    # the search stops at it (a hint has no global twin).
    if chosen["status"] == "restores":
        assert found["result"]["remedy"] == first["name"] and len(found["tried"]) == 1
    else:
        assert found["result"]["remedy"] != first["name"], said


def test_a_global_search_sets_the_flags_back_as_an_option_line_without_side_effects(
    api: str, replay: dict[str, Any]
) -> None:
    code, found = _fix(api, replay, "--scope", "global")
    said = [(t["name"], t["status"], t["reason"]) for t in found["tried"]]
    assert code == 0 and found["result"]["outcome"] == "restored", (found["result"], said)
    assert all(c["scope"] == "global" for c in found["candidates"])  # the strategy hint has no twin
    remedy = found["result"]["global_remedy"]
    assert remedy == found["result"]["remedy"] and remedy.endswith(" (global)")
    twin = next(t for t in found["tried"] if t["name"] == remedy)
    setting = next(c for c in found["candidates"] if c["name"] == remedy)["settings"]["optimizer_switch"]
    assert twin["scope"] == "global" and twin["statements"] == [QUERY]  # run under the setting, unchanged
    assert twin["apply"] == f"optimizer_switch='{setting}'"
    assert twin["set_global"] == f"SET GLOBAL optimizer_switch='{setting}'"
    assert twin["side_effects"]["complete"] is True and twin["side_effects"]["checked"] == []
