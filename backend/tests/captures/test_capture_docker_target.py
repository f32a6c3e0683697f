"""A capture whose lab binary of the captured version is a docker target, end to end (API, worker):
the team's server is MariaDB 10.11.18 in a container of the lab's upgradelab/mariadb:10.11 image,
added as an existing target with a read-only account; the lab's only binary of exactly that version
is the docker target of the same image (the host's MariaDB is 10.11.19: the same series only), so
the defaults come from its image and so does the dump client. The dump is a dataset, and it loads."""

import subprocess
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import delete

from tests import ports
from tests.captures.team import wait
from tests.conftest import auth_headers
from tests.lab_images import MARIADB_IMAGE, lab_images, labelled_containers
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import DockerProvisioner
from upgradelab.targets.provisioners.base import free_port
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

LAB = f"capture-lab-mariadb-t{ports.SESSION}"  # docker labels are shared by the sessions' engines
TEAM = "capture-team-in-docker"
READER, READER_PASSWORD = "reader", "r#ad 'er\"pw"


def _sql(server: DockerProvisioner, *statements: str) -> list[tuple[object, ...]]:
    connection = server.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
            return list(cursor.fetchall())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def team_server(database: None) -> Iterator[DockerProvisioner]:
    """The team's server: a container of the lab image, a small schema and a read-only account."""
    lab_images()
    raw = {"image": MARIADB_IMAGE, "port": free_port(), "base_options": {"innodb_buffer_pool_size": "64M"}}
    server = DockerProvisioner(LAB, "mariadb", raw, get_settings())
    server.start([])
    try:
        connection = server.endpoint.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute("CREATE DATABASE shop")
                cursor.execute("CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))")
                cursor.execute("INSERT INTO shop.items VALUES (1, 'tea'), (2, 'cake')")
                cursor.execute(f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY %s", (READER_PASSWORD,))
                cursor.execute(f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO '{READER}'@'127.0.0.1'")
                cursor.execute("CREATE DATABASE labdb")  # the existing target's lab database
                cursor.execute(f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'")
        finally:
            connection.close()
        yield server
    finally:
        server.stop()
        cleanup(LAB, templates=True)
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name.in_([LAB, TEAM])))
            session.commit()


def test_the_capture_is_dumped_by_the_docker_targets_image_and_loads(
    api: str, team_server: DockerProvisioner
) -> None:
    lab = {"image": MARIADB_IMAGE, "port": free_port()}  # never started: its image is what runs
    team = {"host": "127.0.0.1", "port": team_server.port, "user": READER, "password": READER_PASSWORD}
    team["database"] = "labdb"
    with sync_session() as session:  # a worker that ran this file before left the rows
        session.execute(delete(Target).where(Target.name.in_([LAB, TEAM])))
        session.commit()
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        for body in (
            {"name": LAB, "flavor": "mariadb", "provisioner": "docker", "settings": lab},
            {"name": TEAM, "flavor": "mariadb", "provisioner": "existing", "settings": team},
        ):
            added = client.post("/api/targets", json=body)
            assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": TEAM})
        assert created.status_code == 201, created.text
        found = wait(client, created.json()["id"])
    assert found["status"] == "succeeded", found["error"]
    origin = found["configuration"]["defaults_from"]
    assert (origin["target"], origin["match"]) == (LAB, "exact")
    dump = found["dump"]
    assert dump["error"] is None, dump["error"]
    assert dump["client"] == f"mariadb-dump of image {MARIADB_IMAGE}" and dump["databases"] == ["shop"]
    # the dump's containers are gone: the team's server is the target's only container left
    [left] = labelled_containers(LAB)
    assert left.startswith(f"upgradelab-{LAB}-0-")
    with sync_session() as session:
        dataset = session.get(Dataset, found["dataset_id"])
        assert dataset is not None
        path = dataset.path
    with open(path, "rb") as text:
        assert b"CREATE TABLE `items`" in text.read()
    # it loads: the database dropped on the team's server, then read back by the server's own client
    _sql(team_server, "DROP DATABASE shop")
    endpoint = team_server.endpoint
    with open(path, "rb") as text:
        loaded = subprocess.run(
            [*endpoint.client], stdin=text, env=endpoint.client_env(), capture_output=True, timeout=60
        )
    assert loaded.returncode == 0, loaded.stderr.decode(errors="replace")
    assert _sql(team_server, "SELECT name FROM shop.items ORDER BY id") == [("tea",), ("cake",)]
