"""Issue 21 (a): a constructed gap on the real MySQL 9.7 server. The variant turns
innodb_file_per_table off (article 001's TRUNCATE gets much cheaper) and binary logging off, plus five
changes that do not matter to the INSERT/TRUNCATE loop; the attribution must name exactly the two."""

from typing import Any

import httpx
import pytest

from tests.attribution.helpers import finished_run, start_attribution, verdict_of, wait_attribution

# It times a 0.88x setting against the noise of the 2-core host: scripts/test.sh runs it alone, after the
# parallel suite. Beside the other worker's real-server tests in CI its step runs' intervals were about
# twice as wide (skip-log-bin alone 12 % [-36, 59]), and two fresh-clone CI runs in a row failed here
# (skip-log-bin not decided; "unexplained"); alone they are +/- 12-19 % of the gap.
pytestmark = pytest.mark.quiet

MATTER = {"innodb-file-per-table": "OFF", "skip-log-bin": None}
IRRELEVANT = {
    "max-connections": "300",
    "table-open-cache": "2000",
    "sort-buffer-size": "1048576",
    "join-buffer-size": "1048576",
    "thread-cache-size": "20",
}
ROUNDS, BLOCK = 6, 10
# each step run of the attribution: 10 rounds (the settings that matter move the time by more than a
# 10-round run's smallest detectable change); at 6 the first test (all candidates) fell short of 80 %
# once in 4 runs with two suites on the 2-core host, and the search ended "unexplained"
STEP_ROUNDS = 10
# the origin run is extended while its verdict is open: 12 rounds left it undecided once on a busy CI
# host (0.75x [0.39, 1.42]); the attribution needs a decided gap
MAX_ROUNDS = 24


def test_attribution_names_the_two_settings_that_matter_and_none_of_the_five(client: httpx.Client) -> None:
    variants: list[dict[str, Any]] = [
        {"target": "mysql-9.7", "name": "default"},
        {"target": "mysql-9.7", "name": "tuned", "options": {**MATTER, **IRRELEVANT}},
    ]
    run = finished_run(client, variants, ROUNDS, BLOCK, max_rounds=MAX_ROUNDS)
    gap = verdict_of(client, run["id"], "tuned")
    assert gap["verdict"] == "improvement", gap

    created = start_attribution(client, run["id"], "tuned", STEP_ROUNDS, BLOCK, budget_runs=14)
    assert created.status_code == 201, created.text
    started = created.json()
    assert {c["name"] for c in started["candidates"]} == set(MATTER) | set(IRRELEVANT)
    assert started["candidates"][0]["name"] == "skip-log-bin"  # a known changed default: tried first
    # table_definition_cache, open_files_limit ... follow from the options: listed, not tested
    assert all(u["reason"] for u in started["untestable"])

    found = wait_attribution(client, started["id"])
    assert found["status"] == "succeeded", found
    result = found["result"]
    # what the search measured (shown on failure: pytest keeps the test's stdout)
    print("origin gap", gap["ratio"], "runs", result["runs"], "minutes", result["minutes"])
    print("tested", result["tested"], "beside", result.get("beside"))
    assert result["outcome"] == "explained", result
    # The smallest set closing 80 % of the gap, and what matters alone beside it (search.py `beside`):
    # where innodb_file_per_table=OFF alone closes more than 80 %, skip-log-bin is named beside it,
    # on ddmin's own measurement of it or on fresh confirmation runs when that one left it undecided
    # (or, where file-per-table alone falls short of 80 %, both are the set). On a 2-core host with two
    # sessions at once, 12 runs of 14 named exactly these two; the other two ended "unexplained" above
    # (bench/README.md, attribution_cost.py section), never with a wrong name.
    named = set(result["set"]) | {other["name"] for other in result["also"]}
    assert named == set(MATTER), result
    assert not named & set(IRRELEVANT)
    assert result["runs"] <= 14
    assert result["set_share"]["share"] >= 0.8
    for member in result["members"]:
        assert member["contribution"] is not None and member["contribution"] > 0, member
    assert all(line.startswith("# drop ") for line in result["lines"])  # the baseline had none of them
    every_step_run = [step["run_id"] for step in found["steps"]]
    assert len(every_step_run) == result["runs"]
    for run_id in every_step_run:
        assert client.get(f"/api/runs/{run_id}").json()["status"] == "succeeded"
    csv = client.get(f"/api/attributions/{found['id']}/export", params={"format": "csv"})
    assert csv.status_code == 200 and "innodb-file-per-table" in csv.text
