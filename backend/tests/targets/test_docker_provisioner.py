"""The docker provisioner on a real Docker engine, with the lab's locally built images
(upgradelab/mysql:9.7 from Debian's MySQL 9.7, upgradelab/mariadb:10.11 from bookworm's MariaDB)."""

import re
from collections.abc import Iterator

import docker
import pytest
from typer.testing import CliRunner

from tests import ports
from tests.lab_images import MARIADB_IMAGE, MYSQL_IMAGE, lab_images, labelled_containers
from upgradelab.cli import app
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import DockerProvisioner, ProvisionError
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

IMAGES = {"mysql": (MYSQL_IMAGE, ports.DOCKER["mysql"]), "mariadb": (MARIADB_IMAGE, ports.DOCKER["mariadb"])}


def _provisioner(flavor: str, **settings: object) -> DockerProvisioner:
    image, port = IMAGES[flavor]
    raw = {"image": image, "port": port, "base_options": {"innodb_buffer_pool_size": "64M"}, **settings}
    return DockerProvisioner(f"unit-docker-{flavor}-t{ports.SESSION}", flavor, raw, get_settings())


@pytest.fixture(scope="module", params=sorted(IMAGES))
def provisioner(request: pytest.FixtureRequest) -> Iterator[DockerProvisioner]:
    """Each lab image's docker provisioner in turn; its leftovers removed afterwards."""
    lab_images()
    one = _provisioner(request.param)
    yield one
    one.stop()
    cleanup(one.target_name, templates=True)


def _variable(provisioner: DockerProvisioner, name: str) -> str:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL VARIABLES LIKE %s", (name,))
            row = cursor.fetchone()
    finally:
        connection.close()
    assert row is not None, f"{name} is not a variable of {provisioner.target_name}"
    return str(row[1])


def test_variant_flags_and_base_options_show_in_show_variables(provisioner: DockerProvisioner) -> None:
    provisioner.start(["max-connections=77", "skip-log-bin"])
    assert provisioner.endpoint.host == "127.0.0.1"
    assert _variable(provisioner, "max_connections") == "77"
    assert _variable(provisioner, "log_bin") == "OFF"
    assert _variable(provisioner, "innodb_buffer_pool_size") == str(64 * 1024 * 1024)
    assert _variable(provisioner, "port") == str(provisioner.cfg.port)
    assert _variable(provisioner, "secure_file_priv").rstrip("/") == "/run/upgradelab-files"
    assert provisioner.server_version().startswith("9.7." if provisioner.flavor == "mysql" else "10.11.")


def test_restart_is_a_new_server_process_on_the_same_datadir(provisioner: DockerProvisioner) -> None:
    provisioner.start([])
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE restart_probe")
    connection.close()
    provisioner.restart()
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'restart_probe'")
        assert cursor.fetchone() is not None
        cursor.execute("SHOW GLOBAL STATUS LIKE 'Uptime'")
        row = cursor.fetchone()
    connection.close()
    assert row is not None and int(row[1]) < 30
    provisioner.start([])  # the next variant starts from the template: the database is gone
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'restart_probe'")
        assert cursor.fetchone() is None
    connection.close()


def test_stop_removes_the_container_and_keeps_one_data_volume(provisioner: DockerProvisioner) -> None:
    provisioner.stop()  # the previous test's server
    provisioner.ensure_initialized()
    volumes_before = _volumes() - {provisioner.data_volume}
    provisioner.start([])
    assert len(labelled_containers(provisioner.target_name)) == 1
    assert _volumes() - volumes_before == {provisioner.data_volume}  # nothing anonymous
    provisioner.stop()
    assert labelled_containers(provisioner.target_name) == []
    assert _volumes() - volumes_before == {provisioner.data_volume}


def test_keep_data_reuses_the_datadir_and_a_plain_start_replaces_it(provisioner: DockerProvisioner) -> None:
    connection = provisioner.start([]).connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE kept_probe")
    connection.close()
    provisioner.stop()
    assert "kept_probe" in _databases(provisioner.start([], keep_data=True))
    assert "kept_probe" not in _databases(provisioner.start([]))
    provisioner.stop()


def _databases(endpoint: Endpoint) -> set[str]:
    connection = endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES")
        names = {str(row[0]) for row in cursor.fetchall()}
    connection.close()
    return names


# a named volume of another test session: its target name ends -tN (tests/ports.py), N not ours
_OTHER_SESSION = re.compile(rf"-t(?!{ports.SESSION}-)\d+-")


def _volumes() -> set[str]:
    """The engine's volumes but other test sessions' named ones (`...-tN-...`, N not this session's):
    another checkout's tests on the machine make and remove theirs meanwhile (a capture check's volume
    came into the set once); anonymous volumes, which the tests look for, are always counted."""
    names = {str(volume.name) for volume in docker.from_env().volumes.list()}
    return {name for name in names if not _OTHER_SESSION.search(name)}


def test_check_options_refuses_an_unknown_option_in_the_servers_words(provisioner: DockerProvisioner) -> None:
    provisioner.ensure_initialized()
    before = _volumes()
    provisioner.check_options(["max-connections=50"])
    with pytest.raises(ProvisionError, match="'innodb-log-writer-thread': not an option name of m"):
        provisioner.check_options(["innodb-log-writer-thread=OFF"])
    with pytest.raises(ProvisionError, match="Error while setting value 'NOPE' to 'binlog_format'"):
        provisioner.check_options(["binlog-format=NOPE"])
    assert labelled_containers(provisioner.target_name) == []
    assert _volumes() == before  # not even the anonymous volume of the image's VOLUME


def test_server_that_cannot_start_fails_with_the_container_log_and_leaves_nothing(
    provisioner: DockerProvisioner,
) -> None:
    # A valid option (so pre-flight passes) that the template's datadir cannot take.
    with pytest.raises(ProvisionError, match="exited during start-up") as failure:
        provisioner.start(["innodb-page-size=8k"])
    assert "container log tail" in str(failure.value) and "[ERROR]" in str(failure.value)
    assert "[ERROR]" in provisioner.log_tail()
    assert labelled_containers(provisioner.target_name) == []


def test_cleanup_removes_containers_a_killed_worker_left_behind(provisioner: DockerProvisioner) -> None:
    provisioner.start([])
    orphan = _provisioner(provisioner.flavor)  # a new worker process knows nothing of the container
    printed = CliRunner().invoke(app, ["targets", "cleanup", "--target", orphan.target_name])
    assert printed.exit_code == 0, printed.output
    removed = printed.output.split()
    assert any(name.startswith(f"upgradelab-{orphan.target_name}-") for name in removed)
    assert labelled_containers(orphan.target_name) == []
    template = f"upgradelab-{orphan.target_name}-template"
    assert template not in removed  # the initialized template is kept unless asked for
    provisioner.stop()


def test_image_that_cannot_be_pulled_fails_with_a_clear_message() -> None:
    lab_images()
    # A registry on a closed local port: the pull fails at once, and no traffic leaves the machine.
    missing = _provisioner("mysql", image="127.0.0.1:9/upgradelab/missing:1")
    with pytest.raises(ProvisionError, match=r"image 127.0.0.1:9/upgradelab/missing:1 cannot be pulled"):
        missing.ensure_initialized()
    never = _provisioner("mysql", image="upgradelab/missing:1", pull="never")
    with pytest.raises(ProvisionError, match="not on this Docker host"):
        never.start([])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("image", "Mysql:8 --privileged", "image"),
        ("port", 80, "port"),
        ("password", "x'; DROP", "password"),
        ("env", {"bad name": "1"}, "env"),
        ("network", "bridge", "network"),
        ("volumes", {}, "volumes"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(field: str, value: object, message: str) -> None:
    with pytest.raises(ProvisionError, match=message):
        _provisioner("mysql", **{field: value})


def test_two_slots_run_side_by_side_pause_and_are_stopped_together(provisioner: DockerProvisioner) -> None:
    if provisioner.flavor != "mariadb":
        pytest.skip("one image is enough for the slots")
    image, port = IMAGES["mariadb"]
    second = DockerProvisioner(
        provisioner.target_name, "mariadb", {"image": image, "port": port}, get_settings(), slot=1
    )
    try:
        endpoints = [provisioner.start([]), second.start([])]
        assert endpoints[0].port == port and endpoints[1].port != port
        assert second.data_volume == f"{provisioner.data_volume}-1"
        assert _variable(second, "port") == str(second.port)
        second.freeze()
        assert _status(second) == "paused"
        assert _variable(provisioner, "port") == str(port)  # the other slot still answers
        second.thaw()
        assert _status(second) == "running"
        assert _variable(second, "port") == str(second.port)
        stopped = _provisioner("mariadb").stop_all()  # found by their labels, as the reaper finds them
        assert len(stopped) == 2
        assert labelled_containers(provisioner.target_name) == []
    finally:
        second.stop()
        provisioner.stop()


def _status(one: DockerProvisioner) -> str:
    assert one._container is not None
    one._container.reload()
    return str(one._container.status)
