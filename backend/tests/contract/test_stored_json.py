"""Every stored JSON value is typed: each JSON column of the SQLAlchemy models is a db.ModelJSON (a
pydantic model, or a list or dict of them, validated on read), never a plain JSON column whose
readers pick raw keys (issue 48, item 5)."""

from sqlalchemy import Column, MetaData, Table
from sqlalchemy.types import JSON, TypeDecorator

import upgradelab.models  # noqa: F401  (every table on Base.metadata)
from upgradelab.db import Base, ModelJSON


def untyped_json_columns(metadata: MetaData) -> set[str]:
    """ "table.column" of every column of `metadata` stored as JSON but not through db.ModelJSON: a
    plain JSON (or JSONB, a subclass), or another TypeDecorator over JSON."""
    found = set()
    for table in metadata.tables.values():
        for column in table.columns:
            kind = column.type
            if isinstance(kind, ModelJSON):
                continue
            wrapped = isinstance(kind, TypeDecorator) and isinstance(kind.impl_instance, JSON)
            if isinstance(kind, JSON) or wrapped:
                found.add(f"{table.name}.{column.name}")
    return found


def typed_json_columns(metadata: MetaData) -> set[str]:
    """ "table.column" of every db.ModelJSON column of `metadata`."""
    return {
        f"{table.name}.{column.name}"
        for table in metadata.tables.values()
        for column in table.columns
        if isinstance(column.type, ModelJSON)
    }


def test_no_json_column_of_the_models_is_untyped() -> None:
    """0 left: every JSON column is typed (the last three, experiment.variants and .parameters and
    target.settings, in issue 48's round 3); a new plain one fails here."""
    untyped = untyped_json_columns(Base.metadata)
    assert untyped == set(), f"{len(untyped)} left: a JSON column must be db.ModelJSON(<its pydantic model>)"
    assert len(typed_json_columns(Base.metadata)) >= 50  # the walk reaches every table's columns


def test_the_walk_finds_a_plain_json_column_and_passes_a_typed_one() -> None:
    class Wrapped(TypeDecorator[object]):
        impl = JSON
        cache_ok = True

    metadata = MetaData()
    Table(
        "toy",
        metadata,
        Column("loose", JSON),
        Column("wrapped", Wrapped()),
        Column("typed", ModelJSON(dict[str, int])),
    )
    assert untyped_json_columns(metadata) == {"toy.loose", "toy.wrapped"}
    assert typed_json_columns(metadata) == {"toy.typed"}
