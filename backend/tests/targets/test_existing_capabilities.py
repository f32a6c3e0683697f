"""Capabilities of existing servers, detected from the servers themselves, and refusals by capability:
MySQL 9.7 reached as a least-privileged user, MariaDB 10.11 with performance_schema OFF."""

from typing import Any

import pymysql
import pytest

from tests.targets.existing_servers import ExistingServer, mariadb_existing, mysql_existing
from upgradelab.experiments.preflight import capability_refusal
from upgradelab.experiments.variants import ResolvedVariant, resolve_variant
from upgradelab.settings import get_settings
from upgradelab.targets.capabilities import Capabilities, detect
from upgradelab.targets.provisioners import ExistingProvisioner, ProvisionError
from upgradelab.workloads import WORKLOADS

__all__ = ["mariadb_existing", "mysql_existing"]  # fixtures


def _provisioner(server: ExistingServer, **overrides: object) -> ExistingProvisioner:
    return ExistingProvisioner(
        "existing-unit", server.flavor, {**server.settings, **overrides}, get_settings()
    )


def _variant(preset: str = "default", **fields: Any) -> ResolvedVariant:
    return resolve_variant("existing-unit", preset, **fields)


def _refusal(
    capabilities: Capabilities, variant: ResolvedVariant, policy: str = "warm", slug: str = "insert-truncate"
) -> str | None:
    workload = WORKLOADS[slug]()
    return capability_refusal(variant, policy, workload, capabilities, disposable=True, database="labdb")


def test_least_privileged_mysql_user_can_neither_restart_nor_set_global(
    mysql_existing: ExistingServer,
) -> None:
    capabilities = detect(_provisioner(mysql_existing).endpoint)
    assert capabilities.flavor == "mysql" and capabilities.version.startswith("9.7")
    assert capabilities.user.startswith("labuser@")
    assert not capabilities.has("restart") and "SHUTDOWN" in capabilities.get("restart").detail
    assert not capabilities.has("set_global") and "1227" in capabilities.get("set_global").detail
    assert not capabilities.has("alter_instance") and "1227" in capabilities.get("alter_instance").detail
    assert not capabilities.has("file")
    assert capabilities.has("performance_schema")
    # started without the probes' startup options: the mutex instruments are off, as on many servers
    assert not capabilities.has("mutex_instruments")
    assert capabilities.has("lab_database")
    assert capabilities.log_bin and not capabilities.read_only and capabilities.super_read_only is False


def test_full_mysql_user_tries_restart_and_reports_the_missing_supervisor(
    mysql_existing: ExistingServer,
) -> None:
    endpoint = mysql_existing.provisioner.endpoint
    full = _provisioner(mysql_existing, user=endpoint.user, password=endpoint.password)
    capabilities = detect(full.endpoint, try_restart=True)
    assert capabilities.has("set_global") and capabilities.has("alter_instance") and capabilities.has("file")
    restart = capabilities.get("restart")
    assert not restart.available and "RESTART tried" in restart.detail and "supervisor" in restart.detail
    with pytest.raises(ProvisionError, match="restart capability"):
        full.restart()


def test_mariadb_with_performance_schema_off(mariadb_existing: ExistingServer) -> None:
    capabilities = detect(_provisioner(mariadb_existing).endpoint)
    assert capabilities.flavor == "mariadb" and "MariaDB" in capabilities.version
    for name in ("performance_schema", "mutex_instruments", "waits_consumer"):
        assert not capabilities.has(name) and "OFF" in capabilities.get(name).detail
    assert "no RESTART" in capabilities.get("restart").detail
    assert not capabilities.has("alter_instance")
    assert capabilities.has("set_global")


def test_refusals_name_the_missing_capability(mysql_existing: ExistingServer) -> None:
    capabilities = detect(_provisioner(mysql_existing).endpoint)
    assert _refusal(capabilities, _variant()) is None
    cold = _refusal(capabilities, _variant(), policy="cold_first")
    assert cold is not None and "capability restart" in cold and "warm only" in cold
    options = _refusal(capabilities, _variant(options={"innodb_log_writer_threads": "OFF"}))
    assert (
        options is not None
        and "capability startup_options" in options
        and "innodb-log-writer-threads" in options
    )
    redo = _refusal(capabilities, _variant("redo-off"))
    assert redo is not None and "capability alter_instance" in redo
    set_global = _refusal(capabilities, _variant(set_global={"innodb_flush_log_at_trx_commit": "2"}))
    assert set_global is not None and "capability set_global" in set_global
    assert "makes databases of its own" in (_refusal(capabilities, _variant(), slug="charset-oltp") or "")


def test_writing_templates_need_a_disposable_target(mysql_existing: ExistingServer) -> None:
    capabilities = detect(_provisioner(mysql_existing).endpoint)
    workload = WORKLOADS["insert-truncate"]()
    refusal = capability_refusal(
        _variant(), "warm", workload, capabilities, disposable=False, database="labdb"
    )
    assert refusal is not None and "not marked disposable" in refusal


def test_stop_puts_back_the_globals_a_variant_changed(mysql_existing: ExistingServer) -> None:
    endpoint = mysql_existing.provisioner.endpoint
    full = _provisioner(mysql_existing, user=endpoint.user, password=endpoint.password)
    [(before,)] = mysql_existing.admin_sql("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    full.remember(["innodb_flush_log_at_trx_commit"], redo_log_off=True)
    full.start([])
    mysql_existing.admin_sql(
        f"SET GLOBAL innodb_flush_log_at_trx_commit = {2 if int(before) != 2 else 0}",
        "ALTER INSTANCE DISABLE INNODB REDO_LOG",
    )
    full.stop()
    assert mysql_existing.admin_sql("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == [(before,)]
    assert mysql_existing.admin_sql("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")[0][1] == "ON"
    assert mysql_existing.lab_connections() == 0


def test_wrong_password_is_a_provision_error_naming_the_server(mysql_existing: ExistingServer) -> None:
    with pytest.raises(ProvisionError, match=r"127\.0\.0\.1:\d+.*labuser"):
        _provisioner(mysql_existing, password="wrong").ensure_initialized()
    with pytest.raises(pymysql.MySQLError):
        detect(_provisioner(mysql_existing, password="wrong").endpoint)


def test_without_a_ca_the_lab_connects_without_tls_to_a_server_that_offers_it(
    mysql_existing: ExistingServer,
) -> None:
    """MySQL 9.7 makes its certificates at start and offers TLS; the lab's connection without ssl_ca
    stays plain TCP (base.Endpoint.connect), caching_sha2_password included."""
    assert (mysql_existing.provisioner._host("data/ca.pem")).exists()  # the server offers TLS
    with mysql_existing.provisioner.endpoint.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
        assert cursor.fetchone() == ("Ssl_cipher", "")
        cursor.execute(
            "SELECT plugin FROM mysql.user WHERE user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1) LIMIT 1"
        )
        assert cursor.fetchone() == ("caching_sha2_password",)


def test_tls_with_the_servers_ca_and_identity_verification(mysql_existing: ExistingServer) -> None:
    local = mysql_existing.provisioner
    ca = str(local._host("data/ca.pem"))  # MySQL's auto-generated CA, as this process sees it
    tls = _provisioner(mysql_existing, ssl_ca=ca)
    with tls.session() as connection, connection.cursor() as cursor:
        cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
        row = cursor.fetchone()
    assert row is not None and row[1]  # encrypted
    # the auto-generated certificate names no host: identity verification must refuse it
    verified = _provisioner(mysql_existing, ssl_ca=ca, ssl_verify_identity=True)
    with pytest.raises(ProvisionError, match=r"CERTIFICATE_VERIFY_FAILED.*not valid for '127\.0\.0\.1'"):
        verified.ensure_initialized()
