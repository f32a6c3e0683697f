"""A planted regression whose remedy is known, end to end on a real MariaDB: a variant started with
optimizer_switch='semijoin=off,materialization=off' runs `o.k IN (SELECT i.c FROM i)`, with i.c
unindexed, as a dependent subquery (IN -> EXISTS: the inner table scanned once per outer row); the
baseline, the same server with its defaults, runs it as a semi-join. A replay (one round: only its
statements and variants are needed), then `upgradelab fix --json` on that fingerprint: the search
reads both servers' variables, tries the differing flags first, and must find a statement-level
remedy (SET STATEMENT optimizer_switch=... FOR) that restores the baseline's time with equal results.

The restoring decision is a timing verdict on a real server, so the test asks for a large effect
only (the common rule: no small timing effect decided on a real server): the planted gap is ~20x,
and the search is given a tolerance of 50 % (a remedy restores when decided at most 1.5x the
baseline's time; the replay's 10 % needs more rounds than this loaded machine gives: 0.99 [0.83,
1.18] after 30 rounds was seen), so the remedy that undoes the gap restores and the one that does not
(semijoin=on alone, ~7x) never does; the mechanics (order, refusals, the rewritten statements, equal
checksums) are asserted exactly."""

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import BIN
from tests.fixsearch.planted import planted_replay

DATASET = "fix-semijoin"
TARGET = "mariadb-11.8"
OUTER, INNER = 100, 30_000
# o.k distinct (the subquery cache never hits), half of them in i.c (the even ones); i large enough that the
# baseline's semi-join (i read once) takes milliseconds, and the variant's dependent subquery (i read
# once per row of o) a hundred times more
DUMP = (
    "CREATE TABLE o (id INT PRIMARY KEY, k INT NOT NULL);\n"
    "CREATE TABLE i (id INT PRIMARY KEY, c INT NOT NULL);\n"
    f"INSERT INTO o VALUES {', '.join(f'({n}, {n * 301})' for n in range(1, OUTER + 1))};\n"
    f"INSERT INTO i VALUES {', '.join(f'({n}, {n * 2})' for n in range(1, INNER + 1))};\n"
).encode()
QUERY = "SELECT COUNT(*), SUM(o.id) FROM o WHERE o.k IN (SELECT i.c FROM i)"
SLOWED = {
    "target": TARGET,
    "name": "no semijoin",
    "options": {"optimizer_switch": "semijoin=off,materialization=off"},
}


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    with planted_replay(http, DATASET, DUMP, f"{QUERY};\n", [TARGET, SLOWED]) as found:
        yield found


def test_the_search_finds_a_statement_level_remedy_that_restores_with_equal_results(
    http: httpx.Client, api: str, replay: dict[str, Any]
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
    said = [(t["name"], t["status"], t["reason"], t["results_equal"]) for t in found["tried"]]
    assert done.returncode == 0, (found["result"], found["error"], said)
    assert found["status"] == "succeeded" and found["result"]["outcome"] == "restored", found["result"]
    # the candidates: the two flags that differ, then both (the baseline's semijoin strategy needs
    # those flags: no plan candidate repeats them), then MariaDB's known levers, then the statistics
    names = [c["name"] for c in found["candidates"]]
    assert names[:3] == [
        "optimizer_switch materialization=on",
        "optimizer_switch semijoin=on",
        "optimizer_switch materialization=on,semijoin=on",
    ]
    # then the levers, then an index on o.k (the statement filters on it, the variant scans o, no
    # index covers it: issue 46), measured on a second instance like the statistics
    rest = [c["source"] for c in found["candidates"][3:-1]]
    assert rest == ["lever"] * (len(rest) - 1) + ["index"], rest
    assert found["candidates"][-2]["name"] == "index fix_o_k on o (k)"
    statistics = found["candidates"][-1]
    assert statistics["source"] == "statistics" and statistics["scope"] == "global"
    # o.k is in the WHERE; i.c is the subquery's select list
    assert statistics["extra"]["columns"] == {"o": ["k"]}
    trials = found["tried"]
    remedy = found["result"]["remedy"]
    # stopped at it; under the default scope ("both") its global twin measured right after it
    assert [t["name"] for t in trials[-2:]] == [remedy, f"{remedy} (global)"]
    assert trials[-2]["status"] == "restores" and trials[-2]["scope"] == "statement"
    assert all(t["status"] != "restores" for t in trials[:-2])
    chosen = next(c for c in found["candidates"] if c["name"] == remedy)
    assert chosen["scope"] == "statement" and chosen["source"] == "differs"
    last = trials[-2]
    assert last["results_equal"] is True
    assert last["statements"] == [
        f"SET STATEMENT optimizer_switch='{chosen['settings']['optimizer_switch']}' FOR {QUERY}"
    ]
    assert last["ratio_to_baseline"]["high"] <= 1.5  # at most the tolerance slower, decided
    assert last["ratio_to_variant"]["verdict"] == "improvement"  # the remedy undoes the planted gap
    assert last["variant_to_baseline"]["verdict"] == "regression"  # the gap, measured in the same rounds
    # the plan before and after, both read (MariaDB refuses EXPLAIN of a SET STATEMENT statement: the
    # plan is read under its settings instead); the steps (table, access, key) are the same here: the
    # dependent subquery and the materialization both read o and i whole
    assert last["plan_error"] is None
    assert [s["table"] for s in last["plan_before"]] == [s["table"] for s in last["plan_after"]] == ["o", "i"]
    # the same setting as a global one: an option line, checked on the replay's other fingerprints
    # (none: the replay has one), said so
    twin = trials[-1]
    assert twin["scope"] == "global" and twin["statements"] == [QUERY]  # the statement unchanged
    if twin["status"] == "restores":
        assert twin["side_effects"]["complete"] is True and twin["side_effects"]["side_effects"] == []
        assert "checked on all 0 other fingerprints" in twin["reason"]
        assert found["result"]["global_remedy"] == twin["name"]
    setting = chosen["settings"]["optimizer_switch"]
    assert twin["apply"] == f"optimizer_switch='{setting}'"  # the option line
    assert twin["set_global"] == f"SET GLOBAL optimizer_switch='{setting}'"
    assert last["apply"] == chosen["apply"]
    assert found["result"]["rounds"] == sum(t["rounds"] for t in trials) <= found["budget_rounds"]
    # the API serves the same search, and a final one cannot be cancelled
    again = http.get(f"/api/fixsearches/{found['id']}").json()
    assert again["result"] == found["result"]
    assert http.post(f"/api/fixsearches/{found['id']}/cancel").status_code == 409
    listed = http.get("/api/fixsearches", params={"replay_id": replay["id"]}).json()
    assert [row["id"] for row in listed] == [found["id"]]


def test_a_fix_search_names_what_it_cannot_take(http: httpx.Client, replay: dict[str, Any]) -> None:
    body = {"replay_id": replay["id"], "fingerprint_id": "nope", "variant": "no semijoin"}
    answer = http.post("/api/fixsearches", json=body)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "fingerprint_id"]
    fingerprint = replay["report"]["fingerprints"][0]["fingerprint_id"]
    answer = http.post("/api/fixsearches", json={**body, "fingerprint_id": fingerprint, "variant": TARGET})
    assert answer.status_code == 422 and "baseline" in answer.text
    assert http.post("/api/fixsearches", json={**body, "replay_id": 10**6}).status_code == 404
