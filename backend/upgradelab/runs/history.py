"""Runs list with filters, sorting and pagination (indexed: status+created_at, workload, created_at)."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.runs.models import Experiment, Run
from upgradelab.runs.schemas import RunFilter

_SORT_COLUMNS: dict[str, Any] = {
    "created_at": Run.created_at,
    "id": Run.id,
    "status": Run.status,
    "name": func.coalesce(Run.name, Experiment.name),
    "workload": Experiment.workload,
}


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _filtered(query: Any, where: RunFilter) -> Any:
    query = query.join(Experiment, Experiment.id == Run.experiment_id)
    if where.workload:
        query = query.where(Experiment.workload == where.workload)
    if where.target:
        query = query.where(Run.targets.like(f"%{_escape_like(where.target)}%", escape="\\"))
    if where.status:
        query = query.where(Run.status.in_(where.status))
    if where.created_from is not None:
        query = query.where(Run.created_at >= _utc(where.created_from))
    if where.created_to is not None:
        query = query.where(Run.created_at <= _utc(where.created_to))
    if where.q:
        pattern = f"%{_escape_like(where.q.lower())}%"
        query = query.where(
            or_(
                func.lower(Run.name).like(pattern, escape="\\"),
                func.lower(Run.notes).like(pattern, escape="\\"),
                func.lower(Experiment.name).like(pattern, escape="\\"),
            )
        )
    return query


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


async def list_runs(
    session: AsyncSession, where: RunFilter, limit: int, offset: int
) -> tuple[list[Run], int]:
    """One page of runs matching `where` in the requested order (ties broken by id), and the total."""
    column = _SORT_COLUMNS[where.sort]
    ordering = [column.desc(), Run.id.desc()] if where.order == "desc" else [column.asc(), Run.id.asc()]
    page = _filtered(select(Run), where).order_by(*ordering).limit(limit).offset(offset)
    runs = list((await session.scalars(page)).unique().all())
    total = await session.scalar(_filtered(select(func.count(Run.id)), where)) or 0
    return runs, total
