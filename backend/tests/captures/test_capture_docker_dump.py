"""A capture's dump client from a docker target's image (captures/docker_dump.py), on a real engine:
the lab's upgradelab/mariadb:10.11 image dumps a local MariaDB 10.11 (the captured server, on
127.0.0.1) through the host's network, as the image's mysql user, the capture account's password
in an option file on its standard input; the dump loads back; a cancelled or timed-out dump leaves
no container behind."""

import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from sqlalchemy import delete

from tests import ports
from tests.captures.team import sql
from tests.conftest import lab_provisioner
from tests.lab_images import MARIADB_IMAGE, lab_images, labelled_containers
from upgradelab.captures.docker_dump import docker_client, option_file
from upgradelab.captures.dump import DumpFailed, write_dump
from upgradelab.captures.runner import lab_dump_client
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import DockerProvisioner, LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint, free_port

# every character an option file treats specially: a quote of each kind, a backslash, a comment
# mark after a space, a tab, and a newline
HOSTILE_PASSWORD = "p\"a's\\s #w\td\nx"
DUMPER = "dumper"


def test_the_option_file_passes_every_character_and_refuses_a_nul() -> None:
    text = option_file(HOSTILE_PASSWORD).decode()
    assert text == '[client]\npassword="p\\"a\'s\\\\s #w\\td\\nx"\n'
    with pytest.raises(DumpFailed, match="NUL"):
        option_file("a\0b")


@pytest.fixture(scope="module")
def source(database: None) -> Iterator[LocalProvisioner]:
    """The captured server: a local MariaDB 10.11 with a small schema and a read-only account."""
    lab_images()
    provisioner = lab_provisioner("mariadb-10.11", free_port(), suffix="dockerdump")
    provisioner.start([])
    try:
        quoted = HOSTILE_PASSWORD.replace("\\", "\\\\").replace("'", "\\'")
        sql(
            provisioner,
            "CREATE DATABASE shop",
            "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))",
            "INSERT INTO shop.items VALUES (1, 'tea'), (2, 'cake'), (3, 'jam')",
            "CREATE FUNCTION shop.twice(x INT) RETURNS INT DETERMINISTIC RETURN 2 * x",
            f"CREATE USER '{DUMPER}'@'127.0.0.1' IDENTIFIED BY '{quoted}'",
            f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO '{DUMPER}'@'127.0.0.1'",
            f"GRANT SELECT ON mysql.proc TO '{DUMPER}'@'127.0.0.1'",
        )
        yield provisioner
    finally:
        provisioner.stop()


@pytest.fixture(scope="module")
def lab() -> DockerProvisioner:
    """The docker target whose image holds the dump client (never started: only its image runs)."""
    raw = {"image": MARIADB_IMAGE, "port": free_port()}
    # the session's number in the name: helpers' sessions share the engine, and its labels
    return DockerProvisioner(f"capture-dump-mariadb-t{ports.SESSION}", "mariadb", raw, get_settings())


def _dumper(source: LocalProvisioner) -> Endpoint:
    return Endpoint("127.0.0.1", source.endpoint.port, DUMPER, HOSTILE_PASSWORD)


def _volumes() -> set[str]:
    return {str(volume.name) for volume in docker.from_env().volumes.list()}


def _left_behind(before: set[str], target: str) -> set[str]:
    """Anonymous volumes, and volumes named for `target`, made since `before` that stay. The engine is
    shared with the other sessions: their docker targets make and remove named volumes of their own
    (the compose test's template volume removed meanwhile once failed an equality of all volumes),
    and their `--rm` containers of an image declaring VOLUME hold an anonymous one for their few
    seconds; one this client left stays (30 s here)."""
    deadline = time.monotonic() + 30
    while True:
        left = {v for v in _volumes() - before if re.fullmatch("[0-9a-f]{64}", v) or target in v}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(1)


@pytest.mark.docker
def test_the_images_client_dumps_the_server_on_the_host_and_the_dump_loads(
    source: LocalProvisioner, lab: DockerProvisioner, tmp_path: Path
) -> None:
    client = docker_client(lab, "mariadb")
    argv = " ".join(client.argv)
    assert "--network=host" in argv and "--user=mysql" in argv and "--rm" in argv
    assert not any(flag in argv for flag in ("-v ", "--volume", "--mount", "MYSQL_PWD"))
    assert HOSTILE_PASSWORD not in argv and client.defaults == "--defaults-file=/dev/stdin"
    volumes = _volumes()
    out = tmp_path / "dump.sql"
    write_dump(client, _dumper(source), out, ["shop"], [], lambda: False, 1)
    text = out.read_text()
    assert "CREATE TABLE `items`" in text and "'cake'" in text and "FUNCTION `twice`" in text
    assert labelled_containers(lab.target_name) == [] and _left_behind(volumes, lab.target_name) == set()
    # the dump loads: the database dropped, then read back by the server's own client
    sql(source, "DROP DATABASE shop")
    endpoint = source.endpoint
    with out.open("rb") as dump:
        loaded = subprocess.run(
            [*endpoint.client], stdin=dump, env=endpoint.client_env(), capture_output=True, timeout=60
        )
    assert loaded.returncode == 0, loaded.stderr.decode(errors="replace")
    assert sql(source, "SELECT name FROM shop.items ORDER BY id") == [("tea",), ("cake",), ("jam",)]
    assert sql(source, "SELECT shop.twice(21)") == [(42,)]


@pytest.fixture
def locked(source: LocalProvisioner) -> Iterator[None]:
    """shop.items write-locked by another session: the dump's rows wait for it until it ends."""
    connection = source.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("LOCK TABLES shop.items WRITE")
    try:
        yield
    finally:
        connection.close()  # the lock goes with the session


@pytest.mark.docker
def test_a_cancelled_dump_removes_its_container(
    source: LocalProvisioner, lab: DockerProvisioner, locked: None, tmp_path: Path
) -> None:
    seen = threading.Event()

    def cancelled() -> bool:  # asked once the client's container runs (killing the CLI leaves it)
        if labelled_containers(lab.target_name):
            seen.set()
        return seen.is_set()

    with pytest.raises(DumpFailed, match="cancelled"):
        client = docker_client(lab, "mariadb")
        write_dump(client, _dumper(source), tmp_path / "d.sql", ["shop"], [], cancelled, 1)
    assert seen.is_set()
    assert labelled_containers(lab.target_name) == []


@pytest.mark.docker
def test_a_dump_past_its_timeout_is_stopped_and_leaves_no_container(
    source: LocalProvisioner, lab: DockerProvisioner, locked: None, tmp_path: Path
) -> None:
    # the rows wait for the lock for ever: the timeout, not the machine's speed, ends the dump
    with pytest.raises(DumpFailed, match="past its 5 s timeout"):
        write_dump(
            docker_client(lab, "mariadb"),
            _dumper(source),
            tmp_path / "d.sql",
            ["shop"],
            [],
            lambda: False,
            1,
            timeout_s=5,
        )
    assert labelled_containers(lab.target_name) == []


@pytest.mark.docker
def test_a_capture_whose_lab_binary_is_a_docker_target_dumps_in_its_image(database: None) -> None:
    name = "capture-dump-docker-lab"
    settings = {"image": MARIADB_IMAGE, "port": free_port()}
    with sync_session() as session:
        session.add(Target(name=name, flavor="mariadb", provisioner="docker", settings=settings))
        session.commit()
    try:
        make = lab_dump_client(name, "mariadb", get_settings())
        assert make is not None
        client = make()
        assert client.argv[:2] == ["docker", "run"]
        assert client.argv[-1] == docker.from_env().images.get(MARIADB_IMAGE).id
        assert client.name == f"mariadb-dump of image {MARIADB_IMAGE}"
        local = lab_dump_client("mariadb-10.11", "mariadb", get_settings())  # a local target's: beside
        assert local is not None and local().defaults == "--no-defaults" and local().stdin is None
        assert lab_dump_client("no-such-target", "mariadb", get_settings()) is None
    finally:
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name == name))
            session.commit()
