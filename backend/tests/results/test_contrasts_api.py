"""GET /api/runs/{id}/results `contrasts` and GET /api/workloads/{slug} `contrast_cases` on synthetic
runs written to the metadata database: the monitor's cost per version with its interval, whether the
upgrade changed it, and the article's ratio beside the latest run's (or "not in the latest run")."""

import httpx
import pytest
from sqlalchemy import update

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.results.store.models import Iteration

ROUNDS = 6


def _scaled_run(workload: str, groups: tuple[str, ...], scale: dict[tuple[int, str], float]) -> int:
    """Two variants over `groups`; (variant_index, group) -> factor on its seconds."""
    with sync_session() as session:
        run_id = insert_run(
            session,
            [SyntheticVariant("8.0.32"), SyntheticVariant("8.0.40")],
            ROUNDS,
            3,
            workload,
            groups,
            seed=5,
        )
        for (index, group), factor in scale.items():
            session.execute(
                update(Iteration)
                .where(Iteration.run_id == run_id, Iteration.variant_index == index, Iteration.group == group)
                .values(elapsed_s=Iteration.elapsed_s * factor)
            )
        session.commit()
    return run_id


@pytest.fixture(scope="module")
def lock_waits_run(database: None) -> int:
    return _scaled_run(
        "lock-waits", ("monitor=off", "monitor=on"), {(0, "monitor=on"): 16.3, (1, "monitor=on"): 1.02}
    )


def test_run_results_give_the_monitor_cost_per_version_and_its_change(
    client: httpx.Client, lock_waits_run: int
) -> None:
    contrasts = client.get(f"/api/runs/{lock_waits_run}/results").json()["contrasts"]
    cost = {row["variant"]: row for row in contrasts["within"]}
    assert set(cost) == {"8.0.32", "8.0.40"}
    old, new = cost["8.0.32"]["verdict"], cost["8.0.40"]["verdict"]
    assert cost["8.0.32"]["name"] == "monitor=on / monitor=off" and old["rounds"] == ROUNDS
    assert old["low"] < 16.3 < old["high"] and old["verdict"] == "regression"
    assert new["low"] < 1.02 < new["high"] and new["ratio"] == pytest.approx(1.02, rel=0.05)
    [change] = contrasts["across"]
    assert (change["baseline"], change["variant"]) == ("8.0.32", "8.0.40")
    assert change["verdict"]["high"] < 0.1 and change["verdict"]["verdict"] == "improvement"


def test_template_page_sets_the_articles_ratio_beside_the_latest_runs(
    client: httpx.Client, lock_waits_run: int
) -> None:
    body = client.get("/api/workloads/lock-waits").json()
    assert body["latest_run_id"] == lock_waits_run
    cases = {case["label"]: case for case in body["contrast_cases"]}
    assert cases["8.0.32"]["ratio"] == pytest.approx(468.702 / 28.763)
    assert cases["8.0.40"]["ratio"] == pytest.approx(26.922 / 26.322)
    for case in cases.values():
        assert case["measured_note"] is None
        measured = {m["variant"]: m["verdict"] for m in case["measured"]}
        assert measured["8.0.32"]["ratio"] == pytest.approx(16.3, rel=0.05)
    # the list does not read runs
    listed = next(w for w in client.get("/api/workloads").json() if w["slug"] == "lock-waits")
    assert listed["latest_run_id"] is None and all(c["measured"] == [] for c in listed["contrast_cases"])


def test_a_case_the_latest_run_did_not_sweep_is_not_in_the_latest_run(client: httpx.Client) -> None:
    # default parameters sweep threads 1, 2, 4, 8: the article's 16 and 32 are not in it
    run_id = _scaled_run(
        "parallel-read",
        ("threads=1", "threads=2", "threads=4", "threads=8"),
        {(0, "threads=2"): 0.6, (1, "threads=2"): 0.6},
    )
    body = client.get("/api/workloads/parallel-read").json()
    assert body["latest_run_id"] == run_id
    by_name = {case["contrast"]: case for case in body["contrast_cases"]}
    assert by_name["threads=32 / threads=1"]["measured"] == []
    assert by_name["threads=32 / threads=1"]["measured_note"] == "not in the latest run"
    two = by_name["threads=2 / threads=1"]
    assert two["ratio"] == pytest.approx(19.65 / 33.07)
    assert [m["verdict"]["verdict"] for m in two["measured"]] == ["improvement", "improvement"]


def test_a_template_without_runs_says_so(client: httpx.Client) -> None:
    body = client.get("/api/workloads/charset-oltp").json()
    if body["latest_run_id"] is None:
        assert {c["measured_note"] for c in body["contrast_cases"]} == {
            "no succeeded run of this template yet"
        }
    assert len(body["contrast_cases"]) == 8
