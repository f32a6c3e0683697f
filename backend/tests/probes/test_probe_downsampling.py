"""GET /api/runs/{id}/probes?width=: a long run's probe series cut to about the chart's width per drawn
metric, with the ends and the spikes of each metric kept and the full count given; a finished run's read
from the columns packed at its end (probes/series.py) with the same answer."""

import httpx
from sqlalchemy import delete, insert

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.probes.hooks import register
from upgradelab.probes.models import ProbeSample
from upgradelab.results.store.models import Iteration
from upgradelab.results.store.summary import store_summary_in

ROUNDS, BLOCK = 100, 10  # 1,000 iterations per variant
DIP_AT, SERVER_SPIKE_AT = 321, 777


def _seed() -> int:
    """Two variants of 1,000 iterations with a hit rate and a server time each (one dip, one spike)."""
    with sync_session() as session:
        run_id = insert_run(session, [SyntheticVariant("a"), SyntheticVariant("b")], ROUNDS, BLOCK, seed=9)
        rows = []
        for variant_index in (0, 1):
            for iteration in range(1, ROUNDS * BLOCK + 1):
                hit_rate = 0.2 if (variant_index, iteration) == (1, DIP_AT) else 0.99 - (iteration % 5) / 1000
                server_s = 9.0 if (variant_index, iteration) == (0, SERVER_SPIKE_AT) else 0.01
                for metric, probe, value in (
                    ("hit_rate", "buffer_pool", hit_rate),
                    ("server_s", "statement_time", server_s),
                ):
                    rows.append(
                        {
                            "run_id": run_id,
                            "variant_index": variant_index,
                            "iteration": iteration,
                            "probe": probe,
                            "metric": metric,
                            "subject": "",
                            "value": value,
                        }
                    )
        session.execute(insert(ProbeSample), rows)
        session.commit()
    return run_id


def test_probe_series_are_downsampled_to_the_width_keeping_each_metrics_spikes(
    api: str, client: httpx.Client
) -> None:
    run_id = _seed()
    every = client.get(f"/api/runs/{run_id}/probes").json()["variants"]
    assert [len(v["iterations"]) for v in every] == [ROUNDS * BLOCK] * 2
    cut = client.get(f"/api/runs/{run_id}/probes", params={"width": 100}).json()["variants"]
    for variant in cut:
        kept = [p["iteration"] for p in variant["iterations"]]
        assert variant["iterations_total"] == ROUNDS * BLOCK
        assert kept == sorted(kept) and kept[0] == 1 and kept[-1] == ROUNDS * BLOCK
        assert 100 <= len(kept) <= 3 * 100  # about the width per drawn metric: hit rate, server, client
    by_iteration = [{p["iteration"]: p for p in v["iterations"]} for v in cut]
    assert by_iteration[1][DIP_AT]["hit_rate"] == 0.2, "the hit-rate dip survives"
    assert by_iteration[0][SERVER_SPIKE_AT]["server_s"] == 9.0, "the server-time spike survives"
    # kept points carry every value of their iteration, as without a width
    full = {p["iteration"]: p for p in every[0]["iterations"]}
    assert all(full[i] == p for i, p in by_iteration[0].items())
    refused = client.get(f"/api/runs/{run_id}/probes", params={"width": 10})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["query", "width"]


def test_a_finished_runs_probes_come_from_its_packed_columns(api: str, client: httpx.Client) -> None:
    run_id = _seed()
    url = f"/api/runs/{run_id}/probes"
    from_rows = [client.get(url).json(), client.get(url, params={"width": 100}).json()]
    register()  # as the worker does: its run task module registers the probe hooks
    with sync_session() as session:
        store_summary_in(session, run_id)  # what the worker does at run end
        # without the probe and iteration rows, the answers can only come from the packed columns
        session.execute(delete(ProbeSample).where(ProbeSample.run_id == run_id))
        session.execute(delete(Iteration).where(Iteration.run_id == run_id))
        session.commit()
    from_packed = [client.get(url).json(), client.get(url, params={"width": 100}).json()]
    assert [len(v["iterations"]) for v in from_packed[0]["variants"]] == [ROUNDS * BLOCK] * 2
    assert from_packed == from_rows
