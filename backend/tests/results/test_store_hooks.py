"""The results store's hooks: what another package stores beside a run's results goes in the same
session and commit (per iteration, at run end), registered once however often it is asked, and the
store itself names no package that registers (probes registers its own: probes/hooks.py)."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.probes.base import Measurement
from upgradelab.probes.hooks import ATTACHED, register
from upgradelab.probes.models import ProbeSample, ProbeSeries
from upgradelab.results.store import hooks
from upgradelab.results.store.hooks import IterationEnd, Place, RunEnd
from upgradelab.results.store.ingest import ingest_iteration
from upgradelab.results.store.models import Iteration
from upgradelab.results.store.summary import store_summary_in
from upgradelab.workloads.base import StatementTiming

RESULTS = Path(__file__).parents[2] / "upgradelab" / "results"


@pytest.fixture
def empty_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "_iteration_hooks", [])
    monkeypatch.setattr(hooks, "_run_end_hooks", [])


def test_a_hook_registered_twice_runs_once_in_registration_order(empty_registry: None) -> None:
    calls: list[str] = []

    def first(session: Session, ended: RunEnd) -> None:
        calls.append("first")

    def second(session: Session, ended: RunEnd) -> None:
        calls.append("second")

    for hook in (first, second, first):
        hooks.on_run_end(hook)
    hooks.run_ended(None, None)  # type: ignore[arg-type]  # the hooks above read neither
    assert calls == ["first", "second"]


def test_the_store_and_the_statistics_import_no_package_above_them() -> None:
    above = (
        "upgradelab.probes",
        "upgradelab.runs",
        "upgradelab.replay",
        "upgradelab.api",
        "upgradelab.sharing",
    )
    for path in RESULTS.rglob("*.py"):
        tree = ast.parse(path.read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        # the run's record (runs/models.py) sits below results/ in the layers, as experiments/models.py
        # did before the run kind moved into one package (issue 48, item 4)
        assert not [m for m in imported if m.startswith(above) and m != "upgradelab.runs.models"], path
        if path.parent.name == "stats":  # pure: no database, no other upgradelab package
            assert not [m for m in imported if m.startswith("sqlalchemy")], path
            assert all(
                m.startswith("upgradelab.results.stats") for m in imported if m.startswith("upgradelab")
            ), path


@pytest.fixture
def run_id(database: None, redis_server: str) -> Iterator[int]:
    with sync_session() as session:
        yield insert_run(session, [SyntheticVariant("a"), SyntheticVariant("b")], rounds=1, block=1)


def test_an_iterations_probe_deltas_are_stored_with_it_once_probes_registered(run_id: int) -> None:
    register()
    register()  # a second call registers nothing more
    assert hooks._iteration_hooks.count(hooks._iteration_hooks[-1]) == 1
    place = Place(run_id, 1, "b", 2, "", 1, 3, 0)
    measured = [Measurement("buffer_pool", "reads", 4.0), Measurement("mutex_waits", "wait_ms", 1.5, "x")]
    seconds = ingest_iteration(place, [StatementTiming("SELECT 1", 0.25)], {ATTACHED: measured})
    assert seconds == 0.25
    with sync_session() as session:
        rows = session.execute(
            select(ProbeSample.probe, ProbeSample.metric, ProbeSample.subject, ProbeSample.value)
            .where(ProbeSample.run_id == run_id, ProbeSample.iteration == 2)
            .order_by(ProbeSample.id)
        ).all()
        stored = session.scalar(
            select(Iteration.elapsed_s).where(Iteration.run_id == run_id, Iteration.iteration == 2)
        )
    assert [tuple(r) for r in rows] == [
        ("buffer_pool", "reads", "", 4.0),
        ("mutex_waits", "wait_ms", "x", 1.5),
    ]
    assert stored == 0.25
    with sync_session() as session:
        store_summary_in(session, run_id)  # the run-end hook packs the probe columns
        counts = session.scalars(
            select(ProbeSeries.count).where(ProbeSeries.run_id == run_id).order_by(ProbeSeries.variant_index)
        ).all()
    assert counts == [1, 2]


def test_an_iteration_hook_sees_the_place_seconds_and_attachments(run_id: int, empty_registry: None) -> None:
    seen: list[IterationEnd] = []
    hooks.on_iteration(lambda session, iteration: seen.append(iteration))
    place = Place(run_id, 0, "a", 2, "", 1, 2, 0)
    ingest_iteration(place, [StatementTiming("SELECT 1", 0.5), StatementTiming("SELECT 2", 0.25)], {"x": [1]})
    assert seen == [IterationEnd(place, 0.75, {"x": [1]})]
