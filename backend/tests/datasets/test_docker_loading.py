"""Docker targets load dumps the same way (the lab's images, MySQL 9.7 and MariaDB 10.11): the
client, `docker exec --user mysql` in the server's container, runs as the image's mysql user with
its commands off, as the dataset's load user; a client command is refused with its line."""

import threading
import time
from collections.abc import Iterator

import psutil
import pytest

from tests import ports
from tests.conftest import STATE
from tests.datasets.hostile import SAMPLE, marker_name, markers_found
from tests.lab_images import MARIADB_IMAGE, MYSQL_IMAGE, lab_images
from upgradelab.datasets.accounts import LOAD_USER
from upgradelab.datasets.loader import LoadFailed, load_dataset
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import DockerProvisioner
from upgradelab.targets.provisioners.docker import cleanup
from upgradelab.workloads.base import scalar

pytestmark = pytest.mark.docker

IMAGES = {"mysql": (MYSQL_IMAGE, ports.DOCKER["mysql"]), "mariadb": (MARIADB_IMAGE, ports.DOCKER["mariadb"])}
MYSQL_UID = {"mysql": 999, "mariadb": 100}  # the images' own mysql user (`id mysql` in each)


@pytest.fixture(scope="module", params=sorted(IMAGES))
def provisioner(request: pytest.FixtureRequest, database: None) -> Iterator[DockerProvisioner]:
    lab_images()
    image, port = IMAGES[request.param]
    raw = {"image": image, "port": port, "base_options": {"innodb_buffer_pool_size": "64M"}}
    one = DockerProvisioner(
        f"unit-docker-load-{request.param}-t{ports.SESSION}", request.param, raw, get_settings()
    )
    yield one
    one.stop()
    cleanup(one.target_name, templates=True)


def _clients(port: int) -> list[psutil.Process]:
    """The client processes (in the container, seen from the host) of a load as the load user."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        argv = process.info["cmdline"] or []
        if argv and argv[0] != "docker" and f"--user={LOAD_USER}" in argv and f"--port={port}" in argv:
            found.append(process)
    return found


def test_a_dump_loads_in_the_container_as_its_mysql_user(provisioner: DockerProvisioner) -> None:
    endpoint = provisioner.start([])
    admin = endpoint.connect()
    path = STATE / f"docker-{provisioner.flavor}.sql"
    path.write_text(SAMPLE + "SELECT SLEEP(2);\n")
    uids: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() and not uids:
            for process in _clients(provisioner.port):
                try:
                    uids.append(process.uids().real)
                except psutil.Error:
                    continue
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        _, databases = load_dataset(admin, endpoint, provisioner.flavor, path, "docker_ds")
    finally:
        done.set()
        watcher.join()
    assert databases == ["docker_ds", "sample_own"]
    assert uids and uids[0] == MYSQL_UID[provisioner.flavor], uids
    assert scalar(admin, "SELECT sample_own.film_count(49)") == 2
    definer = scalar(
        admin, "SELECT DEFINER FROM information_schema.ROUTINES WHERE ROUTINE_NAME = 'film_count'"
    )
    assert str(definer).startswith(f"{LOAD_USER}@")

    marker = marker_name()
    hostile = STATE / f"docker-hostile-{provisioner.flavor}.sql"
    hostile.write_text(f"SELECT 1;\nsystem touch /tmp/{marker}\n")
    with pytest.raises(LoadFailed, match="at line 2 of the dump: client command `system`"):
        load_dataset(admin, endpoint, provisioner.flavor, hostile, "docker_ds")
    assert markers_found(marker) == [] and _clients(provisioner.port) == []
    admin.close()
