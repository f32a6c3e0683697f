"""The metadata database on a real MariaDB 10.11 server (the one a multi-host install shares): the
migrations run up and down on it, and an instance whose API (aiomysql) and worker (pymysql) keep
their metadata there runs an experiment and lists its pool."""

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy.orm import Session

from tests import ports
from tests.conftest import lab_provisioner
from tests.faults.helpers import submit, wait_final
from tests.pools.metadata_lab import MetadataLab
from upgradelab.migrations import alembic_config, upgrade_head

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def mariadb(database: None) -> Iterator[str]:
    """A MariaDB 10.11 server of the lab on ports.METADATA_DB; yields its lab user's
    `user:password@127.0.0.1:port` (append `/<database>`)."""
    server = lab_provisioner("mariadb-10.11", ports.METADATA_DB, suffix="metadata")
    endpoint = server.start([])
    try:
        yield f"{endpoint.user}:{endpoint.password}@127.0.0.1:{endpoint.port}"
    finally:
        server.stop()


def _database(address: str, name: str) -> str:
    engine = sa.create_engine(f"mysql+pymysql://{address}/")
    with engine.begin() as connection:
        connection.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
        connection.execute(sa.text(f"CREATE DATABASE {name} CHARACTER SET utf8mb4"))
    engine.dispose()
    return f"{address}/{name}"


def test_every_migration_runs_up_and_down_on_mariadb(mariadb: str) -> None:
    url = f"mysql+pymysql://{_database(mariadb, 'migrations')}"
    upgrade_head(url)
    engine = sa.create_engine(url)
    with engine.connect() as connection:
        assert "MariaDB" in connection.execute(sa.text("SELECT VERSION()")).scalar_one()
        pools = {p for (p,) in connection.execute(sa.text("SELECT pools FROM target"))}
    assert pools == {'["local"]'}
    config = alembic_config(url)
    before = ScriptDirectory.from_config(config).get_revision("0020_pools").down_revision
    assert isinstance(before, str)
    command.downgrade(config, before)
    with engine.connect() as connection:
        assert "pools" not in {c["name"] for c in sa.inspect(connection).get_columns("target")}
    command.upgrade(config, "head")
    engine.dispose()


def _mariadb_lab(address: str) -> MetadataLab:
    """The fault tests' throw-away instance with its metadata database on MariaDB."""
    move = "UPDATE target SET settings = JSON_SET(settings, '$.port', :port) WHERE name = :name"
    return MetadataLab(f"mysql+aiomysql://{address}", f"mysql+pymysql://{address}", move)


def test_an_instance_with_its_metadata_on_mariadb_runs_an_experiment(mariadb: str) -> None:
    lab = _mariadb_lab(_database(mariadb, "flow"))
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
        with Session(lab.engine) as session:
            stored = session.execute(sa.text("SELECT COUNT(*) FROM iteration")).scalar_one()
        assert stored >= 3
    finally:
        lab.close()
        lab.engine.dispose()
