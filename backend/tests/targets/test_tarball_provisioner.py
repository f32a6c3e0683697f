"""The tarball provisioner on a tarball-shaped basedir made from Debian's MySQL 9.7 files.

The basedir (bin/mysqld, share/, lib/plugin/) sits inside the lab's sid chroot, whose glibc the
Debian binaries need, so the target's `root` is the chroot (tests/lab_images.py). An official
linux-glibc tarball runs on the host with root `/`.
"""

import io
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import ports
from tests.lab_images import MYSQL_CHROOT, tarball_basedir
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import ProvisionError, TarballProvisioner


@pytest.fixture(scope="module")
def provisioner() -> Iterator[TarballProvisioner]:
    settings = {
        "root": str(MYSQL_CHROOT),
        "basedir": tarball_basedir(),
        "port": ports.TARBALL,
        "base_options": {"innodb_buffer_pool_size": "64M"},
    }
    one = TarballProvisioner("unit-tarball-9.7", "mysql", settings, get_settings())
    yield one
    one.stop()


def _variables(provisioner: TarballProvisioner, *names: str) -> list[str]:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            values = []
            for name in names:
                cursor.execute("SHOW GLOBAL VARIABLES LIKE %s", (name,))
                row = cursor.fetchone()
                assert row is not None, name
                values.append(str(row[1]))
    finally:
        connection.close()
    return values


def test_server_runs_from_the_basedir_with_the_variants_options(provisioner: TarballProvisioner) -> None:
    assert provisioner.series() == (9, 7)
    provisioner.check_options(["max-connections=66", "skip-log-bin"])  # no [ERROR] at all
    provisioner.start(["max-connections=66", "skip-log-bin"])
    basedir, connections, log_bin, pool = _variables(
        provisioner, "basedir", "max_connections", "log_bin", "innodb_buffer_pool_size"
    )
    assert basedir.rstrip("/") == tarball_basedir()
    assert (connections, log_bin, pool) == ("66", "OFF", str(64 * 1024 * 1024))
    assert provisioner.server_version().startswith("9.7.")


def test_restart_keeps_the_datadir_and_check_options_asks_the_tarballs_mysqld(
    provisioner: TarballProvisioner,
) -> None:
    provisioner.start([])
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE tarball_probe")
    connection.close()
    provisioner.restart()
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'tarball_probe'")
        assert cursor.fetchone() is not None
    connection.close()
    with pytest.raises(ProvisionError, match=re.escape("'no-such-option': not an option name of mysqld 9.7")):
        provisioner.check_options(["no-such-option=1"])
    with pytest.raises(ProvisionError, match="Error while setting value 'NOPE' to 'binlog_format'"):
        provisioner.check_options(["binlog-format=NOPE"])


def _fake_tarball(path: Path, version_line: str) -> None:
    """A .tar.gz shaped like mysql-5.7.44-linux-glibc2.12-x86_64.tar.gz, with a stand-in bin/mysqld."""
    script = f"#!/bin/sh\necho '{version_line}'\n".encode()
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("mysql-5.7.44-linux-glibc2.12-x86_64/bin/mysqld")
        info.size, info.mode = len(script), 0o755
        archive.addfile(info, io.BytesIO(script))


def test_a_57_tarball_is_unpacked_and_checked_without_validate_config(tmp_path: Path) -> None:
    archive = tmp_path / "mysql-5.7.44.tar.gz"
    _fake_tarball(
        archive, "/opt/mysql/bin/mysqld  Ver 5.7.44 for linux-glibc2.12 on x86_64 (MySQL Community)"
    )
    settings = {"basedir": str(tmp_path / "mysql-5.7"), "tarball": str(archive), "port": ports.TARBALL_57}
    old = TarballProvisioner("unit-tarball-5.7", "mysql", settings, get_settings())
    assert old.series() == (5, 7)
    assert (tmp_path / "mysql-5.7" / "bin" / "mysqld").exists()
    assert old._check_flags() == ["--verbose", "--help"]  # 5.7 has no --validate-config
    assert "basedir=" + str(tmp_path / "mysql-5.7") in old._option_file("data", [])


def test_a_basedir_without_a_server_is_refused_with_its_path(tmp_path: Path) -> None:
    settings = {"basedir": str(tmp_path / "empty"), "port": ports.TARBALL_EMPTY}
    with pytest.raises(ProvisionError, match="no bin/mysqld in basedir"):
        TarballProvisioner("unit-tarball-none", "mysql", settings, get_settings()).ensure_initialized()
