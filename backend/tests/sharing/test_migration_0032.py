"""Migration 0032 on a database at 0031 holding links of every kind made the old ways (share_link
rows for a run, a replay and a comparison, one revoked; a share_token digest on a capture, a check,
an attribution and a fix search): going up, each token opens the same job through the one table
(the public routes' own lookups: sharing/service.py resolve, api/job_routes.py shared_job), the
revoked one stays closed, a kind's token opens no other kind, and share_link and the share_token
columns are gone; going down, the old rows and digests are back."""

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi import HTTPException
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from tests.own_loop import run_on_own_loop
from upgradelab.api.job_routes import shared_job
from upgradelab.attribution.jobs import ATTRIBUTION_JOBS
from upgradelab.captures.jobs import CAPTURE_JOBS, CHECK_JOBS
from upgradelab.execution.kinds import JobKind
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.migrations import alembic_config
from upgradelab.sharing import service as shares
from upgradelab.users.service import token_digest

BEFORE, REVISION = "0031_fix_budget", "0032_job_share"
PER_ROW = ("capture", "capture_check", "attribution", "fix_search")
FILL = {"INTEGER": 1, "BOOLEAN": 0, "FLOAT": 1.0, "JSON": "[]", "DATETIME": "2026-01-01 00:00:00"}


def _insert(connection: sa.Connection, table: str, **values: Any) -> None:
    """A row with `values` and a plain value in every other NOT NULL column without a default."""
    for column in sa.inspect(connection).get_columns(table):
        if column["nullable"] or column["default"] is not None or column["name"] in values:
            continue
        kind = str(column["type"]).split("(")[0]
        values[column["name"]] = "succeeded" if column["name"] == "status" else FILL.get(kind, "x")
    names = ", ".join(f'"{name}"' for name in values)
    connection.execute(sa.text(f"INSERT INTO {table} ({names}) VALUES (:{', :'.join(values)})"), values)


def _old_database(url: str) -> None:
    command.upgrade(alembic_config(url), BEFORE)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        _insert(connection, "app_user", id=7, username="ops", password_hash="x", role="operator")
        _insert(connection, "experiment", id=1)
        _insert(connection, "run", id=3, experiment_id=1, created_by=7)
        _insert(connection, "replay_run", id=4, created_by=7)
        links = [
            (11, "run-token", "run", 3, None, None, None),
            (12, "replay-token", "replay", None, None, 4, None),
            (13, "comparison-token", "comparison", None, '{"runs": [3], "warmup": 1}', None, None),
            (14, "revoked-token", "run", 3, None, None, "2026-01-02 00:00:00"),
        ]
        for id_, token, kind, run_id, comparison, replay_id, revoked_at in links:
            _insert(
                connection, "share_link", id=id_, token=token_digest(token), kind=kind, run_id=run_id,
                comparison=comparison, replay_id=replay_id, created_by=7, created_at="2026-01-01 00:00:00",
                revoked_at=revoked_at,
            )  # fmt: skip
        _insert(connection, "capture", id=5, created_by=7, share_token=token_digest("capture-token"))
        _insert(connection, "capture", id=6, created_by=7)  # never shared
        _insert(
            connection,
            "capture_check",
            id=8,
            capture_id=5,
            created_by=7,
            share_token=token_digest("check-token"),
        )
        _insert(
            connection,
            "attribution",
            id=9,
            run_id=3,
            created_by=7,
            share_token=token_digest("attribution-token"),
        )
        _insert(
            connection,
            "fix_search",
            id=10,
            replay_id=4,
            created_by=None,
            share_token=token_digest("fix-token"),
        )
    engine.dispose()


async def _opened(url: str) -> dict[str, Any]:
    """What each old token opens after the migration, through the code the public routes run."""
    engine = create_async_engine(url.replace("sqlite://", "sqlite+aiosqlite://"))
    opened: dict[str, Any] = {}
    async with async_sessionmaker(engine, expire_on_commit=False)() as session:
        for token in ("run-token", "replay-token", "comparison-token"):
            link = await shares.resolve(session, token, ("run", "replay", "comparison"))
            opened[token] = (link.id, link.kind, link.job_id, link.comparison and link.comparison.runs)
        with pytest.raises(HTTPException) as revoked:
            await shares.resolve(session, "revoked-token", ("run",))
        opened["revoked-token"] = revoked.value.status_code
        with pytest.raises(HTTPException) as other:
            await shares.resolve(session, "capture-token", ("run", "replay", "comparison"))
        opened["capture-token at /api/public/shares"] = other.value.status_code
        kinds: list[tuple[str, JobKind]] = [
            ("capture-token", CAPTURE_JOBS), ("check-token", CHECK_JOBS),
            ("attribution-token", ATTRIBUTION_JOBS), ("fix-token", FIX_SEARCH_JOBS),
        ]  # fmt: skip
        for token, kind in kinds:
            row = await shared_job(session, kind, token)
            opened[token] = (row.id, row.shared)
        with pytest.raises(HTTPException) as wrong_kind:
            await shared_job(session, CHECK_JOBS, "capture-token")
        opened["capture-token as a check"] = wrong_kind.value.status_code
        never = await session.get(CAPTURE_JOBS.lease.model, 6)
        opened["capture 6 shared"] = never is not None and never.shared
        links = await shares.list_links(session, None)
        opened["owners"] = {(link.kind, link.job_id): link.created_by for link in links}
    await engine.dispose()
    return opened


def test_every_link_made_before_opens_after_and_the_old_columns_come_back_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    _old_database(url)
    command.upgrade(alembic_config(url), REVISION)
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    assert "share_link" not in inspector.get_table_names()
    for table in PER_ROW:
        assert "share_token" not in {c["name"] for c in inspector.get_columns(table)}, table

    opened = run_on_own_loop(_opened(url))
    assert opened["run-token"] == (11, "run", 3, None)  # the link keeps its id: DELETE /api/shares/11
    assert opened["replay-token"] == (12, "replay", 4, None)
    assert opened["comparison-token"] == (13, "comparison", None, [3])
    assert opened["revoked-token"] == 404
    assert opened["capture-token at /api/public/shares"] == 404
    assert opened["capture-token"] == (5, True) and opened["check-token"] == (8, True)
    assert opened["attribution-token"] == (9, True) and opened["fix-token"] == (10, True)
    assert opened["capture-token as a check"] == 404 and opened["capture 6 shared"] is False
    assert opened["owners"][("capture", 5)] == 7 and opened["owners"][("fixsearch", 10)] is None

    command.downgrade(alembic_config(url), BEFORE)
    with engine.connect() as connection:
        links = connection.execute(
            sa.text("SELECT id, token, kind, run_id, replay_id FROM share_link ORDER BY id")
        )
        assert [tuple(row) for row in links] == [
            (11, token_digest("run-token"), "run", 3, None),
            (12, token_digest("replay-token"), "replay", None, 4),
            (13, token_digest("comparison-token"), "comparison", None, None),
            (14, token_digest("revoked-token"), "run", 3, None),
        ]
        for table, token in (("capture", "capture-token"), ("capture_check", "check-token"),
                             ("attribution", "attribution-token"), ("fix_search", "fix-token")):  # fmt: skip
            stored = connection.execute(
                sa.text(f"SELECT share_token FROM {table} WHERE share_token IS NOT NULL")
            )
            assert [row[0] for row in stored] == [token_digest(token)], table
    assert "job_share" not in sa.inspect(engine).get_table_names()
    engine.dispose()
