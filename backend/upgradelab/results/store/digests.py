"""A finished run's summaries that read every sample or iteration (the statement table, the group medians),
computed once at run end beside its verdict table and packed series and kept as run_digest rows: opening a
run of 80,000 samples reads one row per summary (bench/open_large_run.py). Each summary's own module
(results/store/statements.py, results/store/groups.py) computes it and says when the stored one applies.
"""

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.results.store.models import RunDigest

T = TypeVar("T")


class DigestName(StrEnum):
    """What a run_digest row holds."""

    STATEMENTS = "statements"  # list[StatementRow]
    GROUP_MEDIANS = "group_medians"  # list[GroupPoint]


def put_in(session: Session, run_id: int, name: DigestName, rows: Sequence[BaseModel]) -> None:
    """(Re)write one digest of the run; the caller commits (results/store/summary.store_summary_in)."""
    session.execute(delete(RunDigest).where(RunDigest.run_id == run_id, RunDigest.name == name))
    session.add(RunDigest(run_id=run_id, name=name, body=list(rows)))


async def get(
    session: AsyncSession, run_id: int, name: DigestName, model: TypeAdapter[list[T]]
) -> list[T] | None:
    """The stored digest read as `model` (the rows it was stored as: list[StatementRow] or
    list[GroupPoint]), or None when the run has none (still going, or finished before migration 0015)."""
    body: list[Any] | None = await session.scalar(
        select(RunDigest.body).where(RunDigest.run_id == run_id, RunDigest.name == name)
    )
    return None if body is None else model.validate_python(body)
