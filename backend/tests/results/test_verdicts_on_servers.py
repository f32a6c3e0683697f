"""Round verdicts on the lab's real MySQL 9.7: an interleaved run of default, redo-off and the A/A
control reaches its final state with a verdict row per variant, each verdict one of the allowed values
and the one the rules (results/stats/verdicts.py `decide`) give on the row's own interval and A/A floor.

Which verdict comes out is not judged here: redo-off (~0.6x) and the A/A control's spread are within a
few times this 2-core host's noise, so "redo-off is faster" and "the A/A control is not decided" are
power checks (bench/power_checks.py redo-off and verdicts-under-load, results in bench/README.md), and
the decision rules' error rates are tested against a simulated oracle with seeded noise."""

import httpx

from tests.runs.helpers import wait_final
from upgradelab.results.stats.verdicts import VERDICTS, VerdictRead, decide

ROUNDS, BLOCK = 6, 4


def test_a_run_with_an_a_a_control_gets_verdicts_the_rules_give_on_its_own_intervals(
    client: httpx.Client,
) -> None:
    body = {
        "workload": "insert-truncate",
        "variants": [{"target": "mysql-9.7"}, {"target": "mysql-9.7", "preset": "redo-off"}],
        "iterations": ROUNDS * BLOCK,
        "rounds": ROUNDS,
        "block": BLOCK,
        "aa_control": True,
        "seed": 12,
    }
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    run_id = client.post(f"/api/experiments/{created.json()['id']}/runs").json()["id"]
    assert wait_final(client, run_id, timeout_s=600)["status"] == "succeeded"
    rows = client.get("/api/compare", params={"runs": str(run_id), "series": "false"}).json()["rows"]
    base, redo, aa = sorted(rows, key=lambda row: row["variant_index"])
    assert base["is_baseline"] and base["ratio"] is None and not redo["is_aa_control"] and aa["is_aa_control"]
    assert redo["rounds"] == aa["rounds"] == ROUNDS
    for row in (redo, aa):
        ratio = VerdictRead(**row["ratio"])
        assert ratio.method == "paired rounds" and ratio.rounds == ROUNDS, ratio
        assert 0 < ratio.low <= ratio.ratio <= ratio.high and ratio.mde >= 0, ratio
        assert ratio.verdict in VERDICTS and ratio.reason, ratio
    # the A/A control's own interval is the other variants' floor, and no floor of its own
    floor = VerdictRead(**redo["aa_floor"]).interval()
    assert floor == VerdictRead(**aa["ratio"]).interval() and aa["aa_floor"] is None
    decided = decide(VerdictRead(**redo["ratio"]).interval(), floor=floor)
    assert decided is not None and decided.verdict == redo["ratio"]["verdict"], (decided, redo["ratio"])
    decided = decide(VerdictRead(**aa["ratio"]).interval())
    assert decided is not None and decided.verdict == aa["ratio"]["verdict"], (decided, aa["ratio"])
