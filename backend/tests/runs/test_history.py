"""Runs history: filters, sorting and pagination over 10,000 runs; name, notes and re-run on real runs."""

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from tests.runs.helpers import submit, wait_final
from tests.runs.seed_history import seed
from upgradelab.runs.history import list_runs
from upgradelab.runs.schemas import RunFilter

RUNS = 10_000
T = TypeVar("T")


class History:
    """The seeded database; `run(fn)` awaits fn(session) on a fresh loop in a thread (the browser tests'
    sync Playwright keeps an event loop running in the main thread)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def run(self, fn: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async def once() -> T:
            engine = create_async_engine(self.url)
            try:
                async with async_sessionmaker(engine, expire_on_commit=False)() as session:
                    return await fn(session)
            finally:
                await engine.dispose()

        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, once()).result()

    def list(self, where: RunFilter, limit: int, offset: int) -> tuple[list[Any], int]:
        return self.run(lambda session: list_runs(session, where, limit, offset))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    path: Path = tmp_path_factory.mktemp("history") / "runs.db"
    return History(seed(path, RUNS).replace("sqlite+pysqlite", "sqlite+aiosqlite"))


def test_newest_first_pages_cover_all_10000_runs(history: History) -> None:
    first, total = history.list(RunFilter(), 50, 0)
    assert total == RUNS and [r.id for r in first[:3]] == [RUNS, RUNS - 1, RUNS - 2]
    last, _ = history.list(RunFilter(), 50, RUNS - 50)
    assert last[-1].id == 1


def test_filters_combine_and_the_total_counts_the_matches(history: History) -> None:
    where = RunFilter(status=["failed"], target="mariadb", workload="insert-truncate")
    runs, total = history.list(where, 500, 0)
    assert 0 < total < RUNS
    for run in runs:
        assert run.status == "failed" and ",mariadb-10.11," in run.targets
        assert run.experiment.workload == "insert-truncate"


def test_free_text_finds_notes_and_dates_bound_the_range(history: History) -> None:
    runs, total = history.list(RunFilter(q="NEEDLE 5000"), 10, 0)
    assert total == 1 and runs[0].notes == "needle 5000"
    window = RunFilter(
        created_from=datetime(2026, 1, 2, tzinfo=UTC), created_to=datetime(2026, 1, 2, 23, 59, tzinfo=UTC)
    )
    runs, total = history.list(window, 100, 0)
    assert total == 24 and all(r.created_at.day == 2 for r in runs)


def test_sorting_by_name_ascending_breaks_ties_by_id(history: History) -> None:
    runs, _ = history.list(RunFilter(sort="name", order="asc"), 5, 0)
    names = [r.experiment.name for r in runs]
    assert names == sorted(names)


def test_the_list_query_uses_an_index_for_status_and_date(history: History) -> None:
    sql = text(
        "EXPLAIN QUERY PLAN SELECT id FROM run WHERE status = 'failed' ORDER BY created_at DESC LIMIT 50"
    )

    async def explain(session: AsyncSession) -> list[Any]:
        return list((await session.execute(sql)).all())

    plan = history.run(explain)
    assert any("ix_run_status_created_at" in str(row) for row in plan), plan


def test_a_run_is_named_annotated_found_and_rerun(client: httpx.Client) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=1)
    wait_final(client, run_id)
    named = client.patch(
        f"/api/runs/{run_id}", json={"name": "baseline before upgrade", "notes": "ticket OPS-42"}
    )
    assert named.status_code == 200 and named.json()["name"] == "baseline before upgrade"
    found = client.get("/api/runs", params={"q": "ops-42"}).json()
    assert [r["id"] for r in found["items"]] == [run_id]
    assert (
        client.get("/api/runs", params={"target": "mariadb-10.11", "status": "succeeded"}).json()["total"]
        >= 1
    )
    again = client.post(f"/api/runs/{run_id}/rerun").json()
    assert (
        again["id"] != run_id and again["name"] == "baseline before upgrade" and again["status"] == "queued"
    )
    assert wait_final(client, again["id"])["status"] == "succeeded"
    cleared = client.patch(f"/api/runs/{run_id}", json={"name": ""}).json()
    assert cleared["name"] != "" and cleared["notes"] == "ticket OPS-42"


def test_a_bad_filter_is_refused_naming_the_field(client: httpx.Client) -> None:
    response = client.get("/api/runs", params={"sort": "password"})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["query", "sort"]
