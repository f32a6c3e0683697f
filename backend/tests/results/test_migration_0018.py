"""Migration 0018 on a database at 0017 holding a stored verdict table: variant_summary's twelve interval
and verdict columns become one VerdictRead value each (verdict_value, floor_value) with the same
numbers, and come back as they were on downgrade. The rows are a real verdict table (the golden rounds
of test_verdicts_unchanged.py with an A/A control and a one-round variant), written in the columns the
run end wrote before."""

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from tests.results.test_verdicts_unchanged import GOLDEN, _rounds
from upgradelab.migrations import alembic_config
from upgradelab.results.stats import verdicts
from upgradelab.results.store.verdict_table import VerdictRow, table

REVISION, BEFORE = "0018_verdict_value", "0017_replay_cancel_timeout"
OLD = [
    "ratio", "ratio_low", "ratio_high", "ratio_rounds", "method", "verdict", "reason", "mde",
    "aa_ratio", "aa_low", "aa_high", "aa_rounds",
]  # fmt: skip


def _old_columns(row: VerdictRow) -> dict[str, Any]:
    """As results/summary.py to_stored wrote them before (commit 9b940ff)."""
    found, floor = row.interval, row.floor
    decision = row.decision(verdicts.DEFAULT_THRESHOLD)
    return {
        "ratio": found and found.ratio,
        "ratio_low": found and found.low,
        "ratio_high": found and found.high,
        "ratio_rounds": found and found.rounds,
        "method": found and found.method,
        "verdict": decision and decision.verdict,
        "reason": decision and decision.reason,
        "mde": found and found.mde,
        "aa_ratio": floor and floor.ratio,
        "aa_low": floor and floor.low,
        "aa_high": floor and floor.high,
        "aa_rounds": floor and floor.rounds,
    }


def _verdict_rows() -> list[VerdictRow]:
    rows = []
    for case in GOLDEN["cases"][:4]:  # A/A floors, an extended run, three rounds, one round
        loaded = _rounds(case)
        rows += table([loaded], loaded.variants[0])
    return rows


def test_0018_moves_the_interval_columns_into_one_value_and_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, BEFORE)
    engine = sa.create_engine(url)
    rows = _verdict_rows()
    stored = [
        {
            "id": k + 1,
            "run_id": 1,
            "variant_index": row.variant_index,
            "variant": row.variant,
            "is_aa_control": row.is_aa_control,
            "group_name": f"case {k}",
            "metric": "seconds",
            "unit": "s",
            "higher_is_better": False,
            "iterations": row.iterations,
            "rounds": row.rounds,
            "total_s": row.total_s,
            "computed_at": "2026-11-01 00:00:00",
            **_old_columns(row),
        }
        for k, row in enumerate(rows)
    ]
    names = list(stored[0])
    placeholders = ", ".join(f":{name}" for name in names)
    insert = f"INSERT INTO variant_summary ({', '.join(names)}) VALUES ({placeholders})"
    read_old = f"SELECT id, {', '.join(OLD)} FROM variant_summary ORDER BY id"
    with engine.begin() as connection:
        connection.execute(sa.text(insert), stored)
        before = connection.execute(sa.text(read_old)).all()
    assert sum(1 for r in rows if r.floor is not None) >= 2 and any(r.interval is None for r in rows)

    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("variant_summary")}
        values = connection.execute(
            sa.select(sa.column("verdict_value", sa.JSON()), sa.column("floor_value", sa.JSON()))
            .select_from(sa.table("variant_summary"))
            .order_by(sa.text("id"))
        ).all()
    assert not set(OLD) & columns and {"verdict_value", "floor_value"} <= columns
    for row, (verdict_value, floor_value) in zip(rows, values, strict=True):
        # the value is what the run end stores since: the read model, same numbers bit for bit
        expected = row.read(verdicts.DEFAULT_THRESHOLD)
        assert verdict_value == (None if expected is None else expected.model_dump(mode="json"))
        floor = row.floor_read(verdicts.DEFAULT_THRESHOLD)
        assert floor_value == (None if floor is None else floor.model_dump(mode="json"))

    command.downgrade(config, BEFORE)
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("variant_summary")}
        after = connection.execute(sa.text(read_old)).all()
    assert {"verdict_value", "floor_value"}.isdisjoint(columns)
    assert [tuple(r) for r in after] == [tuple(r) for r in before]
    assert any(r.verdict is not None for r in after) and any(r.aa_low is not None for r in after)


def test_the_floor_value_is_decided_in_the_metrics_direction() -> None:
    floor = verdicts.Interval(0.8, 0.7, 0.9, 10, "paired rounds")
    seconds, tps = verdicts.read(floor, 0.05, False), verdicts.read(floor, 0.05, True)
    assert seconds is not None and tps is not None
    assert (seconds.verdict, tps.verdict) == ("improvement", "regression")
    assert seconds.mde == pytest.approx((0.9 / 0.7) ** 0.5 - 1)
