"""verdict value: variant_summary's interval and verdict stored as one JSON value each (verdict_value:
the variant against the baseline; floor_value: the A/A control's, this run's noise floor), the shape
every reader shows (results/stats/verdicts.py VerdictRead), instead of twelve flat columns

Existing rows keep their numbers: each row's columns are moved into the value (floats as they were)
and back on downgrade. The old floor columns had no verdict: the floor's is decided on upgrade, at the
default threshold, from its interval (results/stats/verdicts.read, as the run end does since).

Revision ID: 0018_verdict_value
Revises: 0017_replay_cancel_timeout
"""

import math
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from upgradelab.results.stats import verdicts

revision: str = "0018_verdict_value"
down_revision: str | None = "0017_replay_cancel_timeout"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_VERDICT = ["ratio", "ratio_low", "ratio_high", "ratio_rounds", "method", "verdict", "reason", "mde"]
_FLOOR = ["aa_ratio", "aa_low", "aa_high", "aa_rounds"]
_OLD: dict[str, sa.types.TypeEngine[Any]] = {
    "ratio": sa.Double(),
    "ratio_low": sa.Double(),
    "ratio_high": sa.Double(),
    "ratio_rounds": sa.Integer(),
    "method": sa.String(32),
    "verdict": sa.String(32),
    "reason": sa.String(300),
    "mde": sa.Double(),
    "aa_ratio": sa.Double(),
    "aa_low": sa.Double(),
    "aa_high": sa.Double(),
    "aa_rounds": sa.Integer(),
}


def _table(*names: str) -> sa.TableClause:
    columns: list[sa.ColumnClause[Any]] = [
        sa.column("id", sa.Integer()),
        sa.column("higher_is_better", sa.Boolean()),
    ]
    columns += [sa.column(name, _OLD.get(name, sa.JSON())) for name in names]
    return sa.table("variant_summary", *columns)


def _verdict(row: Any) -> dict[str, Any] | None:
    if any(getattr(row, name) is None for name in _VERDICT):
        return None
    return {
        "ratio": row.ratio,
        "low": row.ratio_low,
        "high": row.ratio_high,
        "rounds": row.ratio_rounds,
        "method": row.method,
        "mde": row.mde,
        "verdict": row.verdict,
        "reason": row.reason,
    }


def _floor(row: Any) -> dict[str, Any] | None:
    if any(getattr(row, name) is None for name in _FLOOR):
        return None
    found = verdicts.Interval(row.aa_ratio, row.aa_low, row.aa_high, row.aa_rounds, "paired rounds")
    read = verdicts.read(found, verdicts.DEFAULT_THRESHOLD, bool(row.higher_is_better))
    return None if read is None else read.model_dump(mode="json")


def upgrade() -> None:
    with op.batch_alter_table("variant_summary") as batch:
        batch.add_column(sa.Column("verdict_value", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("floor_value", sa.JSON(), nullable=True))
    connection = op.get_bind()
    old = _table(*_VERDICT, *_FLOOR)
    new = _table("verdict_value", "floor_value")
    for row in connection.execute(sa.select(old)).all():
        connection.execute(
            new.update()
            .where(new.c.id == row.id)
            .values(verdict_value=_verdict(row), floor_value=_floor(row))
        )
    with op.batch_alter_table("variant_summary") as batch:
        for name in [*_VERDICT, *_FLOOR]:
            batch.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("variant_summary") as batch:
        for name in [*_VERDICT, *_FLOOR]:
            batch.add_column(sa.Column(name, _OLD[name], nullable=True))
    connection = op.get_bind()
    new = _table("verdict_value", "floor_value")
    old = _table(*_VERDICT, *_FLOOR)
    for row in connection.execute(sa.select(new)).all():
        value, floor = row.verdict_value or {}, row.floor_value or {}
        low, high = value.get("low"), value.get("high")
        mde = value.get("mde", math.sqrt(high / low) - 1 if low and high else None)
        connection.execute(
            old.update()
            .where(old.c.id == row.id)
            .values(
                ratio=value.get("ratio"),
                ratio_low=low,
                ratio_high=high,
                ratio_rounds=value.get("rounds"),
                method=value.get("method"),
                verdict=value.get("verdict"),
                reason=value.get("reason"),
                mde=mde,
                aa_ratio=floor.get("ratio"),
                aa_low=floor.get("low"),
                aa_high=floor.get("high"),
                aa_rounds=floor.get("rounds"),
            )
        )
    with op.batch_alter_table("variant_summary") as batch:
        batch.drop_column("floor_value")
        batch.drop_column("verdict_value")
