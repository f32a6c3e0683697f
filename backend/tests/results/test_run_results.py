"""GET /api/runs/{id}/results and /groups on a long synthetic run: columns downsampled to the chart's
width (ends and spikes kept), the summary and the group medians over every iteration."""

import statistics

import httpx
import pytest
from sqlalchemy import select, update

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.results.stats.downsample import POINTS_PER_PIXEL
from upgradelab.results.store.models import Iteration

ROUNDS, BLOCK = 200, 10  # 2,000 iterations per variant
SPIKE_AT, SPIKE_S = 1234, 5.0


@pytest.fixture(scope="module")
def long_run(api: str) -> tuple[int, list[list[float]]]:
    """The run id and every variant's seconds in iteration order (with one spike in variant 1)."""
    with sync_session() as session:
        run_id = insert_run(
            session, [SyntheticVariant("base"), SyntheticVariant("slower", shift=1.2)], ROUNDS, BLOCK, seed=3
        )
        session.execute(
            update(Iteration)
            .where(Iteration.run_id == run_id, Iteration.variant_index == 1, Iteration.iteration == SPIKE_AT)
            .values(elapsed_s=SPIKE_S)
        )
        session.commit()
        rows = session.execute(
            select(Iteration.variant_index, Iteration.elapsed_s)
            .where(Iteration.run_id == run_id)
            .order_by(Iteration.variant_index, Iteration.iteration)
        )
        seconds: list[list[float]] = [[], []]
        for variant_index, elapsed_s in rows:
            seconds[variant_index].append(elapsed_s)
    return run_id, seconds


def test_series_are_columns_downsampled_to_the_chart_width(
    client: httpx.Client, long_run: tuple[int, list[list[float]]]
) -> None:
    run_id, seconds = long_run
    body = client.get(f"/api/runs/{run_id}/results", params={"width": 150}).json()
    for one, every in zip(body["series"], seconds, strict=True):
        assert one["total_points"] == ROUNDS * BLOCK
        assert len(one["iterations"]) == len(one["elapsed_s"]) == 150 * POINTS_PER_PIXEL
        assert one["iterations"][0] == 1 and one["iterations"][-1] == ROUNDS * BLOCK
        assert one["iterations"] == sorted(one["iterations"])
        assert all(every[i - 1] == s for i, s in zip(one["iterations"], one["elapsed_s"], strict=True))
    assert SPIKE_AT in body["series"][1]["iterations"], "the spike survives downsampling"
    # the summary is over every iteration, not over the points drawn
    slower = body["summary"][1]
    assert slower["iterations"] == ROUNDS * BLOCK
    assert slower["median_s"] == pytest.approx(statistics.median(seconds[1]))
    assert slower["total_s"] == pytest.approx(sum(seconds[1]))
    assert slower["ratio"] == pytest.approx(statistics.median(seconds[1]) / statistics.median(seconds[0]))


def test_max_points_above_the_length_sends_every_point_and_a_bad_width_names_the_field(
    client: httpx.Client, long_run: tuple[int, list[list[float]]]
) -> None:
    run_id, seconds = long_run
    body = client.get(f"/api/runs/{run_id}/results", params={"max_points": 5000}).json()
    assert [s["elapsed_s"] for s in body["series"]] == seconds
    refused = client.get(f"/api/runs/{run_id}/results", params={"width": 3})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["query", "width"]


def test_group_medians_without_the_iterations(
    client: httpx.Client, long_run: tuple[int, list[list[float]]]
) -> None:
    run_id, seconds = long_run
    medians = client.get(f"/api/runs/{run_id}/groups", params={"iterations": "false"}).json()
    full = client.get(f"/api/runs/{run_id}/groups").json()
    assert medians["iterations"] == [] and len(full["iterations"]) == 2 * ROUNDS * BLOCK
    assert medians["groups"] == full["groups"]
    assert [g["median_s"] for g in medians["groups"]] == [
        pytest.approx(statistics.median(s)) for s in seconds
    ]
