"""Docker targets' admin account is a secret too (issue 30): the lab user at 127.0.0.1 with the target's
random password, root at localhost only with a password nobody keeps, and a template volume made
with another password (before issue 30: `upgradelab`, root@% alike) made again."""

from collections.abc import Iterator

import docker
import pymysql
import pytest

from tests import ports
from tests.lab_images import MARIADB_IMAGE, lab_images
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import DockerProvisioner
from upgradelab.targets.provisioners.credentials import admin_key, server_password
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

NAME = f"cred-docker-t{ports.SESSION}"


def _provisioner(**settings: object) -> DockerProvisioner:
    raw = {"image": MARIADB_IMAGE, "port": ports.DOCKER["mariadb"], **settings}
    return DockerProvisioner(
        NAME, "mariadb", {**raw, "base_options": {"innodb_buffer_pool_size": "64M"}}, get_settings()
    )


@pytest.fixture(scope="module")
def started() -> Iterator[DockerProvisioner]:
    lab_images()
    one = _provisioner()
    one.start([])
    yield one
    one.stop()
    cleanup(NAME, templates=True)


def _template_key() -> str | None:
    volume = docker.from_env().volumes.get(f"upgradelab-{NAME}-template")
    return (volume.attrs.get("Labels") or {}).get("upgradelab.admin-key")


def test_the_lab_user_is_at_127_0_0_1_and_root_only_at_localhost(started: DockerProvisioner) -> None:
    secret = server_password(NAME, get_settings())
    assert started.endpoint.password == secret != "upgradelab"
    connection = started.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SELECT user, host FROM mysql.user ORDER BY user, host")
        accounts = {(str(user), str(host)) for user, host in cursor.fetchall()}
    connection.close()
    assert {host for user, host in accounts if user == "upgradelab"} == {"127.0.0.1"}, accounts
    assert {host for user, host in accounts if user == "root"} == {"localhost"}, accounts
    for user, password in (("root", ""), ("root", "upgradelab"), ("upgradelab", "upgradelab")):
        with pytest.raises(pymysql.err.OperationalError):
            pymysql.connect(host="127.0.0.1", port=started.port, user=user, password=password).close()
    # only the container that made the template had a root password; a server container has none
    assert started._container is not None
    environment = started._container.attrs["Config"]["Env"] or []
    assert not [line for line in environment if "PASSWORD" in line]
    assert _template_key() == admin_key(secret)


def test_a_template_made_with_another_password_is_made_again(started: DockerProvisioner) -> None:
    started.stop()
    other = _provisioner(password="admin-set.2")  # as a template of the fixed password would be
    other.start([])
    assert _template_key() == admin_key("admin-set.2")
    other.stop()
    started.start([])  # back to the secret: made again, and the lab user logs in with it
    assert _template_key() == admin_key(server_password(NAME, get_settings()))
