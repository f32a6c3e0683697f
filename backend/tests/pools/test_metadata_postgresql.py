"""The metadata database on a real PostgreSQL (Debian's postgresql package, which `scripts/install.sh
--tests` installs): a throw-away cluster of this test module on ports.METADATA_POSTGRESQL; every
migration runs up to head, down to the first and up again; an instance whose API and worker keep their
metadata there (psycopg 3, async and sync) runs an experiment and lists its pool."""

import glob
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy.orm import Session

from tests import ports
from tests.faults.helpers import submit, wait_final
from tests.pools.metadata_lab import MetadataLab
from upgradelab.migrations import alembic_config, upgrade_head

pytestmark = pytest.mark.timeout(600)


def _bin(name: str) -> str:
    """The newest installed PostgreSQL's program (/usr/lib/postgresql/<major>/bin/<name>)."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    assert found, "Debian's postgresql package is not installed: run scripts/install.sh --tests"
    return found[-1]


def _as_postgres(*argv: str) -> None:
    # initdb and postgres refuse to run as root: the package's postgres account runs the cluster
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def postgresql() -> Iterator[str]:
    """A cluster in a temporary directory, listening on 127.0.0.1:ports.METADATA_POSTGRESQL only
    (password auth over TCP); yields the superuser's `user:password@127.0.0.1:port` (append
    `/<database>`). Stopped and removed at the module's end."""
    home = Path(tempfile.mkdtemp(prefix="upgradelab-postgresql-"))
    password = secrets.token_urlsafe(12)
    (home / "pw").write_text(password)
    shutil.chown(home, "postgres")
    shutil.chown(home / "pw", "postgres")
    data, port = home / "data", ports.METADATA_POSTGRESQL
    _as_postgres(_bin("initdb"), "-D", str(data), "-U", "postgres", f"--pwfile={home / 'pw'}",
                 "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--no-sync")  # fmt: skip
    options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off"
    _as_postgres(_bin("pg_ctl"), "-D", str(data), "-l", str(home / "log"), "-o", options, "-w", "start")
    try:
        yield f"postgres:{password}@127.0.0.1:{port}"
    finally:
        _as_postgres(_bin("pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(home, ignore_errors=True)


def _database(address: str, name: str) -> str:
    engine = sa.create_engine(f"postgresql+psycopg://{address}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
        connection.execute(sa.text(f"CREATE DATABASE {name} ENCODING 'UTF8'"))
    engine.dispose()
    return f"{address}/{name}"


def test_every_migration_runs_up_and_down_on_postgresql(postgresql: str) -> None:
    url = f"postgresql+psycopg://{_database(postgresql, 'migrations')}"
    upgrade_head(url)
    engine = sa.create_engine(url)
    with engine.connect() as connection:
        assert "PostgreSQL" in connection.execute(sa.text("SELECT version()")).scalar_one()
        pools = {name: p for name, p in connection.execute(sa.text("SELECT name, pools FROM target"))}
    # the seeded lab targets, with 0020's pools column (json: psycopg reads it back as a list)
    assert {"mysql-9.7", "mariadb-10.11"} <= set(pools) and set(map(tuple, pools.values())) == {("local",)}
    config = alembic_config(url)
    scripts = ScriptDirectory.from_config(config)
    first = [revision.revision for revision in scripts.walk_revisions()][-1]
    command.downgrade(config, first)
    with engine.connect() as connection:
        tables = set(sa.inspect(connection).get_table_names())
    assert "target" in tables and "attribution" not in tables
    command.downgrade(config, "base")
    with engine.connect() as connection:
        assert set(sa.inspect(connection).get_table_names()) <= {"alembic_version"}
    command.upgrade(config, "head")
    with engine.connect() as connection:
        revision = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one()
    assert revision == scripts.get_current_head()
    engine.dispose()


def _postgresql_lab(address: str) -> MetadataLab:
    """The fault tests' throw-away instance with its metadata database on PostgreSQL (its JSON
    functions move the seeded targets)."""
    move = (
        "UPDATE target SET settings = jsonb_set(settings::jsonb, '{port}', to_jsonb(:port))::json"
        " WHERE name = :name"
    )
    url = f"postgresql+psycopg://{address}"
    return MetadataLab(url, url, move)


def test_an_instance_with_its_metadata_on_postgresql_runs_an_experiment(postgresql: str) -> None:
    lab = _postgresql_lab(_database(postgresql, "flow"))
    try:
        lab.prepare()
        lab.start()
        with lab.client() as client:
            run_id = submit(client, "mariadb-10.11", iterations=3)
            run = wait_final(client, run_id, timeout_s=180)
            assert run["status"] == "succeeded" and run["iterations_done"] == 3, run
            [pool] = [p for p in client.get("/api/pools").json() if p["name"] == "local"]
            assert len(pool["workers"]) == 1 and pool["waiting"] == [] and pool["queue_depth"] == 0
            summary = client.get(f"/api/runs/{run_id}/results").json()["summary"]
            assert [row["iterations"] for row in summary] == [3]
            # the history's filters (LIKE with an escape, lower(), a join, a sort) as PostgreSQL reads them
            history = {"target": "mariadb-10", "status": "succeeded", "sort": "name"}
            page = client.get("/api/runs", params=history).json()
            assert [r["id"] for r in page["items"]] == [run_id] and page["total"] == 1
            unmatched = client.get("/api/runs", params={**history, "q": "No_Such 100%"}).json()
            assert unmatched["total"] == 0
            # ids past PostgreSQL's integer (4 bytes) and past 8 bytes name no row: 404, as on SQLite
            # and MariaDB (errors.id_out_of_range: the database refuses to bind them, SQLSTATE 22003)
            past = [f"/api/runs/{2**31}", f"/api/runs/{2**63}", f"/api/runs/{-(2**31) - 1}/results"]
            assert [client.get(path).status_code for path in past] == [404, 404, 404]
            assert client.get("/api/runs", params={"offset": 2**63}).status_code in {404, 422}
        with Session(lab.engine) as session:
            stored = session.execute(sa.text("SELECT COUNT(*) FROM iteration")).scalar_one()
        assert stored >= 3
    finally:
        lab.close()
        lab.engine.dispose()
