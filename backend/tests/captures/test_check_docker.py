"""A check against a docker target (captures/option_check.py on DockerProvisioner): the team's
settings asked of the image's server binary as flags of a throw-away container (server_refusal),
those it takes started as the scratch container's flags, the refusals and warnings in the server's
own words from the container's output; on the lab's upgradelab/mariadb:10.11 image."""

from collections.abc import Iterator

import pytest

from tests import ports
from tests.lab_images import MARIADB_IMAGE, lab_images, labelled_containers
from upgradelab.captures.configuration import Configuration, HostFacts, Variable
from upgradelab.captures.option_check import check_options
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import DockerProvisioner
from upgradelab.targets.provisioners.base import Endpoint, free_port
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

# the team's settings: one MySQL-only option MariaDB never had (refused), one MariaDB 10.5 removed
# but still takes ("'innodb-log-files-in-group' was removed. It does nothing now": a warning at
# start), one it takes as it is
TEAM = {"innodb_log_writer_threads": ("OFF", "ON"), "innodb_log_files_in_group": ("2", "1")}
TEAM_MAX_CONNECTIONS = "77"


def _config() -> Configuration:
    rows = [(name, value, default) for name, (value, default) in TEAM.items()]
    rows.append(("max_connections", TEAM_MAX_CONNECTIONS, "151"))
    variables = [Variable(name=n, value=v, default=d, comparison="differs") for n, v, d in rows]
    host = HostFacts(hostname=None, os=None, machine=None, buffer_pool_mib=None, cpus=None, cpus_from="")
    return Configuration(
        version="10.4.0-MariaDB",
        version_comment="",
        flavor="mariadb",
        defaults_from=None,
        variables=variables,
        host=host,
        differs=len(variables),
    )


@pytest.fixture(scope="module")
def scratch() -> Iterator[DockerProvisioner]:
    """The new version as a docker target (its own port: the provisioner tests use theirs)."""
    lab_images()
    raw = {"image": MARIADB_IMAGE, "port": free_port(), "base_options": {"innodb_buffer_pool_size": "64M"}}
    one = DockerProvisioner(f"capture-check-mariadb-t{ports.SESSION}", "mariadb", raw, get_settings())
    yield one
    one.stop()
    cleanup(one.target_name, templates=True)


def test_a_check_on_a_docker_target_names_refused_ignored_and_taken_settings(
    scratch: DockerProvisioner,
) -> None:
    seen: dict[str, str] = {}

    def while_started(endpoint: Endpoint) -> None:
        connection = endpoint.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT @@max_connections")
                row = cursor.fetchone()
        finally:
            connection.close()
        assert row is not None
        seen["max_connections"] = str(row[0])

    accounts = [
        {"user": "legacy", "host": "%", "plugin": "mysql_native_password"},
        {"user": "modern", "host": "%", "plugin": "caching_sha2_password"},
    ]
    result = check_options(_config(), scratch, accounts, "mariadbd 10.11", while_started)
    found = {finding.name: finding for finding in result.options}
    assert found["innodb_log_writer_threads"].outcome == "refused"
    assert "innodb" in found["innodb_log_writer_threads"].words  # the server's words name it
    assert found["innodb_log_files_in_group"].outcome == "no_effect"  # "It does nothing now"
    assert "[Warning]" in found["innodb_log_files_in_group"].words
    assert found["max_connections"].outcome == "accepted"
    assert seen["max_connections"] == TEAM_MAX_CONNECTIONS  # the taken lines were the container's flags
    plugins = {finding.plugin: finding.outcome for finding in result.accounts}
    assert plugins == {"caching_sha2_password": "missing", "mysql_native_password": "available"}
    assert labelled_containers(scratch.target_name) == []  # the scratch container discarded
