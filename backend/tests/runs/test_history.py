"""Runs history: filters, sorting and pagination over 10,000 runs; name, notes and re-run on real runs."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from tests.runs.helpers import submit, wait_final
from tests.runs.seed_history import seed
from upgradelab.runs.history import list_runs
from upgradelab.runs.schemas import RunFilter

RUNS = 10_000


@pytest.fixture(scope="module")
async def history(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncSession]:
    path: Path = tmp_path_factory.mktemp("history") / "runs.db"
    url = seed(path, RUNS).replace("sqlite+pysqlite", "sqlite+aiosqlite")
    engine = create_async_engine(url)
    async with async_sessionmaker(engine, expire_on_commit=False)() as session:
        yield session
    await engine.dispose()


async def test_newest_first_pages_cover_all_10000_runs(history: AsyncSession) -> None:
    first, total = await list_runs(history, RunFilter(), 50, 0)
    assert total == RUNS and [r.id for r in first[:3]] == [RUNS, RUNS - 1, RUNS - 2]
    last, _ = await list_runs(history, RunFilter(), 50, RUNS - 50)
    assert last[-1].id == 1


async def test_filters_combine_and_the_total_counts_the_matches(history: AsyncSession) -> None:
    where = RunFilter(status=["failed"], target="mariadb", workload="insert-truncate")
    runs, total = await list_runs(history, where, 500, 0)
    assert 0 < total < RUNS
    for run in runs:
        assert run.status == "failed" and ",mariadb-10.11," in run.targets
        assert run.experiment.workload == "insert-truncate"


async def test_free_text_finds_notes_and_dates_bound_the_range(history: AsyncSession) -> None:
    runs, total = await list_runs(history, RunFilter(q="NEEDLE 5000"), 10, 0)
    assert total == 1 and runs[0].notes == "needle 5000"
    window = RunFilter(
        created_from=datetime(2026, 1, 2, tzinfo=UTC), created_to=datetime(2026, 1, 2, 23, 59, tzinfo=UTC)
    )
    runs, total = await list_runs(history, window, 100, 0)
    assert total == 24 and all(r.created_at.day == 2 for r in runs)


async def test_sorting_by_name_ascending_breaks_ties_by_id(history: AsyncSession) -> None:
    runs, _ = await list_runs(history, RunFilter(sort="name", order="asc"), 5, 0)
    names = [r.experiment.name for r in runs]
    assert names == sorted(names)


async def test_the_list_query_uses_an_index_for_status_and_date(history: AsyncSession) -> None:
    plan = (await history.execute(text(
        "EXPLAIN QUERY PLAN SELECT id FROM run WHERE status = 'failed' ORDER BY created_at DESC LIMIT 50"
    ))).all()  # fmt: skip
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
