"""Rows as older code stored them, for the tests of typed JSON columns (db.ModelJSON, issue 48)."""

import json
from typing import Any

from sqlalchemy import text

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
