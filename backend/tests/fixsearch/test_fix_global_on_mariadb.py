"""Global remedies and their side effects, and a fingerprint no remedy restores, on a real MariaDB
(issue 34, Deliver 4 and 6). Planted so that every decision rests on a large effect:

- both servers run with semijoin=off, so an `IN (SELECT ...)` is either materialized (the inner table
  read once into a hash) or re-run per outer row (IN -> EXISTS); the baseline forces the first
  (in_to_exists=off), the variant the second (materialization=off);
- Q1 `o.k IN (SELECT i.c FROM i)`, i.c unindexed: materialized on the baseline, on the variant i is
  scanned once per row of o (~100x the rows): the regression to fix;
- Q2 `o.id IN (SELECT i.id FROM i)` in the select list, i.id the primary key: on the variant one
  index lookup per row of o (100); forced materialization reads all of i (30,000 rows) first. So
  the global remedy "materialization=on, in_to_exists=off" (the differing flags set back together)
  restores Q1 and makes Q2 many times slower: Q2 must be listed as its side effect;
- Q3 reads o by a list of 100 primary keys (34 found): cheap to run, but its range analysis lists
  every key; the variant has the optimizer trace left on (optimizer_trace=enabled=on), which writes
  that analysis out for every statement (about 1.8x the baseline's time here), a setting no
  candidate touches (the optimizer_trace variables are not compared: candidates.py): its search,
  at the default 10 % tolerance (a candidate that leaves the gap cannot restore), must end "no
  remedy found" with every candidate tried. (join_buffer_size at its minimum was tried first:
  MariaDB kept the join as fast; sort_buffer_size at its minimum fails the replay's own statements:
  out of sort memory.)

The searches run with a 50 % tolerance (test_fix_on_mariadb.py says why: only large effects are
decided on this loaded machine) and small budgets, on the differing flags only (`--only differs`: a
lever is measured by the same arms as a flag, and MariaDB's levers are listed in test_fix_on_mariadb.py;
left out for issue 31's gate time: they were 5 of the first search's 7 trials, each running Q1 per row
of o on the variant, and 7 of the second's 10); the mechanics (which candidates, their scope, the
side-effect list, the export, the replay's read) are asserted exactly."""

import csv
import io
import json
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import BIN
from tests.fixsearch.planted import planted_replay

DATASET = "fix-global"
TARGET = "mariadb-11.8"
OUTER, INNER = 100, 30_000
DUMP = (
    "CREATE TABLE o (id INT PRIMARY KEY, k INT NOT NULL);\n"
    "CREATE TABLE i (id INT PRIMARY KEY, c INT NOT NULL);\n"
    f"INSERT INTO o VALUES {', '.join(f'({n}, {n * 301})' for n in range(1, OUTER + 1))};\n"
    f"INSERT INTO i VALUES {', '.join(f'({n}, {n * 2})' for n in range(1, INNER + 1))};\n"
).encode()
Q1 = "SELECT COUNT(*), SUM(o.id) FROM o WHERE o.k IN (SELECT i.c FROM i)"
Q2 = "SELECT o.id, o.id IN (SELECT i.id FROM i) FROM o"
IDS = ", ".join(str(n) for n in range(1, 3 * OUTER + 1, 3))
Q3 = f"SELECT COUNT(*) FROM o WHERE o.id IN ({IDS})"
BASELINE: dict[str, Any] = {
    "target": TARGET,
    "name": "materialized",
    "options": {"optimizer_switch": "semijoin=off,in_to_exists=off"},
}
VARIANT: dict[str, Any] = {
    "target": TARGET,
    "name": "per row",
    "options": {"optimizer_switch": "semijoin=off,materialization=off", "optimizer_trace": "enabled=on"},
}
TOGETHER = "optimizer_switch in_to_exists=off,materialization=on (global)"


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    with planted_replay(http, DATASET, DUMP, f"{Q1};\n{Q2};\n{Q3};\n", [BASELINE, VARIANT]) as found:
        yield found


def _fingerprint(replay: dict[str, Any], sql: str) -> str:
    rows = replay["report"]["fingerprints"]
    return str(next(f["fingerprint_id"] for f in rows if f["statements"][0]["sql"] == sql))


def _fix(
    api: str, replay: dict[str, Any], sql: str, *extra: str, tolerance: str = "0.5"
) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", str(replay["id"]), "--fingerprint",
         _fingerprint(replay, sql), "--variant", VARIANT["name"], "--json", "--tolerance", tolerance, *extra],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode in (0, 1), (done.returncode, done.stdout[-3000:], done.stderr[-2000:])
    return done.returncode, json.loads(done.stdout)


def test_a_global_remedy_lists_the_statement_it_slows_as_a_side_effect(
    http: httpx.Client, api: str, replay: dict[str, Any]
) -> None:
    # tolerance 100 %: restoring Q1 is a timing decision (same as the baseline, against a ~20x gap), seen
    # undecided at 50 % once on this loaded machine; what is tested here is the side-effect check
    code, found = _fix(
        api, replay, Q1, "--scope", "global", "--all", "--only", "differs", "--budget-rounds", "40",
        tolerance="1.0",
    )  # fmt: skip
    said = [(t["name"], t["status"], t["reason"]) for t in found["tried"]]
    assert found["status"] == "succeeded", (found["error"], said)
    # scope "global": the settings' twins only, each an option line; the differing flags only, all tried
    assert found["sources"] == ["differs"]
    assert all(c["scope"] == "global" for c in found["candidates"])
    assert [c["name"] for c in found["candidates"]] == [
        "optimizer_switch in_to_exists=off (global)",
        "optimizer_switch materialization=on (global)",
        TOGETHER,
    ]
    trial = next((t for t in found["tried"] if t["name"] == TOGETHER), None)
    assert trial is not None, said
    assert trial["status"] == "restores" and trial["results_equal"] is True, (
        trial["reason"],
        trial["rounds"],
    )
    assert trial["apply"] == "optimizer_switch='in_to_exists=off,materialization=on'"
    assert trial["set_global"] == "SET GLOBAL optimizer_switch='in_to_exists=off,materialization=on'"
    effects = trial["side_effects"]
    assert effects["complete"] is True and effects["rounds_per_fingerprint"] == 5
    fingerprints = {f["fingerprint_id"]: f["statements"][0]["sql"] for f in replay["report"]["fingerprints"]}
    assert sorted(fingerprints[e["fingerprint_id"]] for e in effects["checked"]) == sorted([Q2, Q3])
    # Which fingerprint is decided slower in 5 rounds is a timing verdict (Q2 is ~50x slower in
    # bench/fix_search_cost.py; here it once read [0.23, 3.5] undecided, once low 1.09): the listing
    # rule is the oracle's (test_global_remedies.py); here, that the list is the checked ones the
    # replay's verdict reads slower (or whose results differ), with their evidence, said and exported.
    for checked in effects["checked"]:
        assert checked["ratio"] is not None and checked["verdict"], checked
    listed = [e for e in effects["checked"] if e["verdict"] == "regression" or not e["results_equal"]]
    assert [e["fingerprint_id"] for e in effects["side_effects"]] == [e["fingerprint_id"] for e in listed]
    assert all(e["results_equal"] for e in effects["checked"])  # the same rows, faster or slower
    if listed:
        assert f"{len(listed)} side effects on the 2 other fingerprints" in trial["reason"], trial["reason"]
    else:
        assert "no side effect: checked on all 2 other fingerprints" in trial["reason"], trial["reason"]
    assert found["result"]["global_remedy"] is not None and code == 0
    # the export: a row per trial and one per side effect, with its ratio and interval
    exported = http.get(f"/api/fixsearches/{found['id']}/export", params={"format": "csv"})
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert [r["candidate"] for r in rows if r["kind"] == "trial"] == [t["name"] for t in found["tried"]]
    side = [r for r in rows if r["kind"] == "side effect"]
    assert [r["affected_fingerprint"] for r in side if r["candidate"] == TOGETHER] == [
        e["fingerprint_id"] for e in listed
    ]
    assert all(r["affected_verdict"] for r in side)


def test_a_fingerprint_no_remedy_restores_ends_no_remedy_found_with_what_was_tried(
    http: httpx.Client, api: str, replay: dict[str, Any]
) -> None:
    # the default tolerance (10 %): the planted gap is about 1.8x, so a candidate that leaves it
    # could only "restore" with an interval whose upper end is within 10 % of the baseline; the
    # differing flags only (3 candidates: 20 rounds at most; 80 with the levers)
    code, found = _fix(
        api, replay, Q3, "--scope", "statement", "--only", "differs", "--budget-rounds", "100",
        tolerance="0.1",
    )  # fmt: skip
    said = [(t["name"], t["status"], t["reason"]) for t in found["tried"]]
    assert code == 1 and found["result"]["outcome"] == "no remedy found", (found["result"], said)
    assert found["sources"] == ["differs"] and len(found["candidates"]) == 3
    assert [t["name"] for t in found["tried"]] == [c["name"] for c in found["candidates"]]  # every one
    assert all(t["status"] != "restores" for t in found["tried"]), said
    gaps = sorted(t["variant_to_baseline"]["ratio"] for t in found["tried"] if t["status"] != "refused")
    assert gaps and gaps[len(gaps) // 2] > 1.3, gaps  # the planted gap (~1.8x), measured in every trial
    assert found["result"]["not_tried"] == [] and found["result"]["remedy"] is None
    # the replay's read carries each fingerprint's fix searches with their outcome
    rows = http.get(f"/api/replays/{replay['id']}").json()["report"]["fingerprints"]
    by_sql = {r["statements"][0]["sql"]: r["fix_searches"] for r in rows}
    briefs = [(s["id"], s["outcome"], s["remedy"]) for s in by_sql[Q3]]
    assert briefs == [(found["id"], "no remedy found", None)]
    assert by_sql[Q2] == []  # no search of it
