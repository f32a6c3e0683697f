"""Migration 0022 adds the capture and capture_check tables as the models declare them, and takes
them away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.migrations import alembic_config


def test_capture_tables_up_as_the_models_declare_them_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0022_captures")
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    for model in (Capture, CaptureCheck):
        name = model.__tablename__
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(name)}
        assert columns == {c.name: c.nullable for c in model.__table__.columns}, name
    [key] = [k for k in inspector.get_foreign_keys("capture_check") if k["referred_table"] == "capture"]
    assert key["options"].get("ondelete") == "CASCADE"
    command.downgrade(config, "0021_owners")
    assert not {"capture", "capture_check"} & set(sa.inspect(engine).get_table_names())
    engine.dispose()
