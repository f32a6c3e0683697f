"""A finished run's iteration series packed at run end (results/store/series_store.py): the run page's results
are the same whether read from the packed rows or from every iteration row, and come from the packed
rows once they exist; migration 0014 adds and removes their table."""

from pathlib import Path

import httpx
import sqlalchemy as sa
from alembic import command
from sqlalchemy import delete, func, select

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.migrations import alembic_config
from upgradelab.results.store.models import Iteration, IterationSeries
from upgradelab.results.store.series_store import pack, unpack
from upgradelab.results.store.summary import store_summary_in


def test_pack_keeps_every_value() -> None:
    columns = ([1, 2, 70_000], [0.1, 1e-9, 12345.678901234])
    assert unpack(pack(0, columns)) == columns
    assert unpack(pack(3, ([], []))) == ([], [])


def test_results_of_a_finished_run_come_from_its_packed_series(api: str, client: httpx.Client) -> None:
    with sync_session() as session:
        run_id = insert_run(
            session, [SyntheticVariant("base"), SyntheticVariant("slower", shift=1.3)], 30, 10, seed=5
        )
    params = {"max_points": 5000}
    from_rows = client.get(f"/api/runs/{run_id}/results", params=params).json()
    with sync_session() as session:
        store_summary_in(session, run_id)  # what the worker does at run end
        stored = session.scalar(select(func.count()).where(IterationSeries.run_id == run_id))
        assert stored == 2
        # without the iteration rows, the page's results can only come from the packed series
        session.execute(delete(Iteration).where(Iteration.run_id == run_id))
        session.commit()
    from_packed = client.get(f"/api/runs/{run_id}/results", params=params).json()
    assert [len(s["iterations"]) for s in from_packed["series"]] == [300, 300]
    assert from_packed["series"] == from_rows["series"]
    assert from_packed["summary"] == from_rows["summary"]


def test_0014_adds_and_drops_the_iteration_series_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0013_round_values")
    engine = sa.create_engine(url)
    assert "iteration_series" not in sa.inspect(engine).get_table_names()
    command.upgrade(config, "0014_iteration_series")
    columns = {c["name"] for c in sa.inspect(engine).get_columns("iteration_series")}
    assert columns == {"run_id", "variant_index", "count", "iterations", "elapsed_s"}
    command.downgrade(config, "0013_round_values")
    assert "iteration_series" not in sa.inspect(sa.create_engine(url)).get_table_names()
