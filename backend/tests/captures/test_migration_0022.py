"""Migration 0022 adds the capture and capture_check tables as the models declare them (but for the
columns 0024, 0026, 0027 and 0030 add), and takes them away again; 0024, 0026 and 0027 add theirs and
take them away again (0030: tests/captures/test_migration_0030.py; 0032 takes share_token:
tests/sharing/test_migration_0032.py)."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.migrations import alembic_config

# the column 0026 to 0031 had and migration 0032_job_share takes (nullable): a link is a job_share row
SHARE_TOKEN = {"share_token": True}
# the columns migration 0030_check_schema_load adds
TRIAL = {"load_findings", "parse_findings", "schema_load"}
# the columns migration 0027_capture_host adds (and 0030's)
HOSTS = {"capture": set(), "capture_check": {"team_host", "hosts", *TRIAL}}
# the columns migration 0026_capture_shares adds (and 0027's)
SHARES = {"capture": {"share_token"}, "capture_check": {"share_token", *HOSTS["capture_check"]}}
# the columns migration 0024_capture_findings adds (and 0026's and 0027's)
LATER = {
    "capture": {"dataset_id", "dump", "identifiers", "share_token"},
    "capture_check": {
        "identifier_findings", "sql_mode_findings", "charset_findings", "default_findings", "share_token",
        *HOSTS["capture_check"],
    },
}  # fmt: skip


def test_capture_tables_up_as_the_models_declare_them_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0022_captures")
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    for model in (Capture, CaptureCheck):
        name = model.__tablename__
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(name)}
        declared = {c.name: c.nullable for c in model.__table__.columns if c.name not in LATER[name]}
        assert columns == declared, name
    [key] = [k for k in inspector.get_foreign_keys("capture_check") if k["referred_table"] == "capture"]
    assert key["options"].get("ondelete") == "CASCADE"
    command.downgrade(config, "0021_owners")
    assert not {"capture", "capture_check"} & set(sa.inspect(engine).get_table_names())
    engine.dispose()


def test_capture_findings_columns_up_as_the_models_declare_them_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0024_capture_findings")
    engine = sa.create_engine(url)
    for model in (Capture, CaptureCheck):
        columns = {c["name"]: c["nullable"] for c in sa.inspect(engine).get_columns(model.__tablename__)}
        declared = {c.name: c.nullable for c in model.__table__.columns}
        assert columns == {k: v for k, v in declared.items() if k not in SHARES[model.__tablename__]}
    command.downgrade(config, "0023_fix_searches")
    for name, added in LATER.items():
        assert not added & {c["name"] for c in sa.inspect(engine).get_columns(name)}
    engine.dispose()


def test_share_tokens_up_as_the_models_declare_them_unique_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0026_capture_shares")
    engine = sa.create_engine(url)
    for model in (Capture, CaptureCheck):
        inspector = sa.inspect(engine)
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(model.__tablename__)}
        declared = {
            c.name: c.nullable for c in model.__table__.columns if c.name not in HOSTS[model.__tablename__]
        }
        assert columns == declared | SHARE_TOKEN, model.__tablename__
        uniques = [u["column_names"] for u in inspector.get_unique_constraints(model.__tablename__)]
        assert ["share_token"] in uniques, uniques
    command.downgrade(config, "0025_fix_global")
    for name in SHARES:
        assert "share_token" not in {c["name"] for c in sa.inspect(engine).get_columns(name)}
    engine.dispose()


def test_the_team_host_columns_up_as_the_model_declares_them_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0027_capture_host")
    engine = sa.create_engine(url)
    columns = {c["name"]: c["nullable"] for c in sa.inspect(engine).get_columns("capture_check")}
    declared = {c.name: c.nullable for c in CaptureCheck.__table__.columns if c.name not in TRIAL}
    assert columns == declared | SHARE_TOKEN
    assert columns["team_host"] and columns["hosts"]  # None on every check made before
    command.downgrade(config, "0026_capture_shares")
    assert not HOSTS["capture_check"] & {c["name"] for c in sa.inspect(engine).get_columns("capture_check")}
    engine.dispose()
