"""Rows as older code stored them, for the tests of typed JSON columns (db.ModelJSON, issue 48)."""

import json
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm.attributes import flag_modified

from upgradelab.db import sync_session


def write_raw(table: str, row_id: int, **columns: Any) -> None:
    """Set `columns` of row `row_id` of `table` to their values' JSON text with plain SQL, past the
    models' column types: the JSON exactly as the code before wrote it (json.dumps of its dicts)."""
    sets = ", ".join(f"{name} = :{name}" for name in columns)
    with sync_session() as session:
        session.execute(
            text(f"UPDATE {table} SET {sets} WHERE id = :id"),
            {"id": row_id, **{name: json.dumps(value) for name, value in columns.items()}},
        )
        session.commit()


def write_again(model: Any, row_id: int, *columns: str) -> dict[str, Any]:
    """Row `row_id` of `model` written again through its typed columns (`columns` flagged modified,
    so each is dumped from its model), then those columns' stored JSON read back with plain SQL,
    by column name."""
    with sync_session() as session:
        row = session.get_one(model, row_id)
        for column in columns:
            flag_modified(row, column)
        session.commit()
    with sync_session() as session:
        query = text(f"SELECT {', '.join(columns)} FROM {model.__tablename__} WHERE id = :id")
        raw = session.execute(query, {"id": row_id}).one()
    return {column: json.loads(value) for column, value in zip(columns, raw, strict=True)}
