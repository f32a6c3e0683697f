"""A finished run's statement table and group medians computed once at run end (results/store/digests.py): the
run page's answers are the same from the stored digests as from every sample and iteration, and come from
the digests once they exist; a run still going is read from its rows; migration 0015 adds and drops the
table."""

from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from alembic import command
from sqlalchemy import delete, update

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus
from upgradelab.migrations import alembic_config
from upgradelab.results.store.models import Iteration, Sample
from upgradelab.results.store.summary import store_summary_in
from upgradelab.runs.models import Run


def _run_with_samples() -> int:
    """A 2-variant sweep (two groups, tps and p95_ms metrics) with two statements per iteration."""
    with sync_session() as session:
        run_id = insert_run(
            session,
            [SyntheticVariant("base"), SyntheticVariant("slower", shift=1.3)],
            8,
            3,
            workload="charset-oltp",
            groups=("threads=1", "threads=4"),
            seed=7,
        )
        for row in session.scalars(sa.select(Iteration).where(Iteration.run_id == run_id)):
            for statement, share in (("INSERT INTO t", 0.7), ("TRUNCATE t", 0.3)):
                session.add(
                    Sample(
                        run_id=run_id,
                        variant_index=row.variant_index,
                        variant="",
                        iteration=row.iteration,
                        statement=statement,
                        elapsed_s=row.elapsed_s * share * (1 + row.iteration / 100),
                        label=row.group,
                    )
                )
        session.commit()
    return run_id


def _answers(client: httpx.Client, run_id: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    statements = client.get(f"/api/runs/{run_id}/statements")
    groups = client.get(f"/api/runs/{run_id}/groups", params={"iterations": False})
    assert statements.status_code == groups.status_code == 200
    return statements.json(), groups.json()["groups"]


def test_a_finished_runs_statements_and_group_medians_come_from_its_digests(
    api: str, client: httpx.Client
) -> None:
    run_id = _run_with_samples()
    from_rows = _answers(client, run_id)
    statements, groups = from_rows
    assert {(s["variant_index"], s["statement"], s["count"]) for s in statements} == {
        (v, name, 48) for v in (0, 1) for name in ("INSERT INTO t", "TRUNCATE t")
    }
    assert {(g["variant_index"], g["group"], g["iterations"]) for g in groups} == {
        (v, group, 24) for v in (0, 1) for group in ("threads=1", "threads=4")
    }
    assert all(set(g["metrics"]) == {"tps", "p95_ms"} for g in groups)
    with sync_session() as session:
        store_summary_in(session, run_id)  # what the worker does at run end
        # without the samples and iterations, the answers can only come from the digests
        session.execute(delete(Sample).where(Sample.run_id == run_id))
        session.execute(delete(Iteration).where(Iteration.run_id == run_id))
        session.commit()
    assert _answers(client, run_id) == from_rows


def test_a_run_still_going_is_read_from_its_rows(api: str, client: httpx.Client) -> None:
    run_id = _run_with_samples()
    with sync_session() as session:
        store_summary_in(session, run_id)
        # the run goes on (an extension): its samples change, the digests stored before do not apply
        session.execute(update(Run).where(Run.id == run_id).values(status=JobStatus.running))
        session.execute(delete(Sample).where(Sample.run_id == run_id, Sample.statement == "TRUNCATE t"))
        session.commit()
    statements, _ = _answers(client, run_id)
    assert {s["statement"] for s in statements} == {"INSERT INTO t"}


def test_0015_adds_and_drops_the_digest_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0014_iteration_series")
    engine = sa.create_engine(url)
    assert "run_digest" not in sa.inspect(engine).get_table_names()
    command.upgrade(config, "0015_run_digests")
    assert {c["name"] for c in sa.inspect(engine).get_columns("run_digest")} == {"run_id", "name", "body"}
    assert "probe_series" in sa.inspect(engine).get_table_names()
    command.downgrade(config, "0014_iteration_series")
    assert not {"run_digest", "probe_series"} & set(sa.inspect(sa.create_engine(url)).get_table_names())
