"""Secrets unreadable on disk (issue 44, item 4): a target's password is sealed in the metadata
database (no plaintext in the SQLite file or its WAL; the provisioner reads it back), the state
directory, the database and its WAL/SHM are their owner's alone from creation (and an older state
directory is made so), and a share token never reaches the API's log."""

import os
import secrets
import stat
import time
import uuid
from pathlib import Path

import httpx
from sqlalchemy import create_engine, delete, select, text

from tests import ports
from tests.conftest import STATE
from upgradelab.db import prepare_sqlite_dir, sync_session
from upgradelab.secret_files import protect_state_dir
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_targets_password_is_sealed_in_the_metadata_database(client: httpx.Client) -> None:
    password = f"admin-set-{uuid.uuid4().hex}"
    name = f"sealed-t{ports.SESSION}"
    with sync_session() as session:
        lab = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        settings = {**lab.settings.stored(), "port": ports.H3_TARGET + 7, "password": password}
    body = {"name": name, "flavor": "mariadb", "provisioner": "local", "settings": settings}
    created = client.post("/api/targets", json=body)
    assert created.status_code == 201, created.text
    try:
        with sync_session() as session:
            target = session.scalars(select(Target).where(Target.name == name)).one()
            assert "password" not in target.settings.stored() and target.settings.password_sealed
            assert provisioner_for(target).endpoint.password == password
        database = STATE / "upgradelab.db"
        for path in (database, database.with_name("upgradelab.db-wal")):
            if path.exists():
                assert password.encode() not in path.read_bytes(), path
    finally:
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name == name))
            session.commit()


def test_a_new_sqlite_database_and_its_wal_are_the_owners_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    url = f"sqlite+pysqlite:///{state / 'upgradelab.db'}"
    old = os.umask(0o022)  # what a service inherits by default
    try:
        prepare_sqlite_dir(url)
        engine = create_engine(url)
        with engine.begin() as connection:
            connection.execute(text("PRAGMA journal_mode=WAL"))
            connection.execute(text("CREATE TABLE secret (value TEXT)"))
            connection.execute(text("INSERT INTO secret VALUES ('x')"))
        files = sorted(state.iterdir())
        assert {path.name for path in files} >= {"upgradelab.db", "upgradelab.db-wal", "upgradelab.db-shm"}
        assert {path.name: _mode(path) for path in files} == {path.name: 0o600 for path in files}
        assert _mode(state) == 0o700
        engine.dispose()
    finally:
        os.umask(old)


def test_an_older_state_directory_is_made_the_owners_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "logs").mkdir(parents=True, mode=0o755)
    state.chmod(0o755)
    for name in ("upgradelab.db", "upgradelab.db-wal", "logs/api.log", "worker.token"):
        (state / name).write_text("secret")
        (state / name).chmod(0o644)
    protect_state_dir(Settings(state_dir=state))
    assert _mode(state) == 0o700 and _mode(state / "logs") == 0o700
    for name in ("upgradelab.db", "upgradelab.db-wal", "logs/api.log", "worker.token"):
        assert _mode(state / name) == 0o600, name


def test_a_share_token_never_reaches_the_apis_log(api: str) -> None:
    """Every share path's token is `<token>` in the access log, whatever the answer (a live link's
    token would be logged the same way)."""
    token = secrets.token_urlsafe(24)
    for path in (f"/api/public/shares/{token}", f"/share/{token}", f"/api/public/captures/checks/{token}"):
        httpx.get(f"{api}{path}", timeout=30)
    time.sleep(0.5)  # the access line is written after the answer
    log = (STATE / "api.log").read_text(errors="replace")
    assert "/api/public/shares/<token>" in log and "/api/public/captures/checks/<token>" in log
    assert token not in log
