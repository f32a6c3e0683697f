"""The local provisioner against the lab's real servers (MariaDB 10.11 on the host, MySQL 9.7 in a chroot)."""

import psutil
import pymysql
import pytest

from upgradelab.targets.provisioners import LocalProvisioner, ProvisionError


def _variable(provisioner: LocalProvisioner, name: str) -> str:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL VARIABLES LIKE %s", (name,))
            row = cursor.fetchone()
    finally:
        connection.close()
    assert row is not None, f"{name} is not a variable of {provisioner.target_name}"
    return str(row[1])


def test_restart_keeps_data_and_starts_a_new_server_process(provisioner: LocalProvisioner) -> None:
    provisioner.start([])
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE restart_probe")
        cursor.execute("SELECT CONNECTION_ID()")
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


def test_each_start_is_a_fresh_template_copy_with_the_base_and_the_variants_options(
    provisioner: LocalProvisioner,
) -> None:
    provisioner.start(["max-connections=77", "skip-log-bin"])
    # the variant's options and the target's base options reach the server
    assert _variable(provisioner, "max_connections") == "77"
    assert _variable(provisioner, "log_bin") == "OFF"
    assert _variable(provisioner, "innodb_buffer_pool_size") == str(128 * 1024 * 1024)
    assert _variable(provisioner, "port") == str(provisioner.cfg.port)
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE leftover")
    connection.close()
    provisioner.start(["max-connections=78"])  # the next variant: fresh datadir, new options
    assert _variable(provisioner, "max_connections") == "78"
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'leftover'")
        assert cursor.fetchone() is None
    connection.close()


def test_broken_option_fails_the_start_with_the_log_tail(provisioner: LocalProvisioner) -> None:
    with pytest.raises(ProvisionError) as failed:
        provisioner.start(["innodb-buffer-pool-size=12x"])
    message = str(failed.value)
    assert "exited during start-up" in message
    assert "innodb-buffer-pool-size" in message and "log tail" in message


def test_check_options_refuses_unknown_option_with_the_servers_words(provisioner: LocalProvisioner) -> None:
    provisioner.check_options(["skip-log-bin", "max-connections=50"])
    # An unknown name is refused against the binary's own list (targets/option_names.py) ...
    with pytest.raises(ProvisionError, match="'no-such-option': not an option name of m"):
        provisioner.check_options(["no-such-option=1"])
    # ... a bad value by the server itself.
    with pytest.raises(ProvisionError, match="Error while setting value 'NOPE' to 'binlog_format'"):
        provisioner.check_options(["binlog-format=NOPE"])


def test_server_version_is_read_from_the_server(provisioner: LocalProvisioner) -> None:
    version = provisioner.server_version()
    assert version.startswith("9.7." if provisioner.flavor == "mysql" else "10.11.")


def test_discard_kills_a_throwaway_server_and_removes_its_datadir_and_stop_leaves_nothing_listening(
    provisioner: LocalProvisioner,
) -> None:
    provisioner.start([])
    pid = provisioner.pid()
    assert pid is not None
    provisioner.freeze()  # a run's instances are frozen between blocks when the run ends
    provisioner.discard()
    assert provisioner.pid() is None and _gone(pid)
    assert not (provisioner.root / provisioner.inner_dir.lstrip("/") / "data").exists()
    # no clean shutdown was asked for: the error log ends before any "Shutdown" line of the server
    log = (provisioner.root / provisioner.inner_dir.lstrip("/") / "error.log").read_text()
    assert "hutdown complete" not in log
    provisioner.start([])  # the next start copies the template again
    assert _variable(provisioner, "port") == str(provisioner.cfg.port)
    provisioner.stop()  # a plain stop: nothing listens on its port afterwards
    with pytest.raises(pymysql.err.OperationalError):
        provisioner.endpoint.connect(timeout_s=2)
    provisioner.stop()  # idempotent


def test_discard_keeps_a_datadir_a_start_asked_to_keep(provisioner: LocalProvisioner) -> None:
    # as runs/executor/blocks.py prepares a dataset: a keep_data start, then a fresh one that gets prepared
    provisioner.start([], keep_data=True)
    provisioner.start([], keep_data=False)
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE prepared_probe")
    connection.close()
    provisioner.discard()
    assert provisioner.pid() is None
    log = (provisioner.root / provisioner.inner_dir.lstrip("/") / "error.log").read_text()
    assert "hutdown complete" in log  # stopped cleanly
    provisioner.start([], keep_data=True)
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'prepared_probe'")
        assert cursor.fetchone() is not None
    connection.close()
    provisioner.discard()  # kept again: a keep_data start
    assert (provisioner.root / provisioner.inner_dir.lstrip("/") / "data" / "mysql").is_dir()


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
