"""Variants' SET GLOBAL, SET SESSION and instance statements: refused early, tried on the server, applied."""

import httpx
import pytest

from tests.runs.helpers import submit, wait_final
from upgradelab.experiments.variants import VariantError, resolve_variant
from upgradelab.runs.executor.preflight import apply_variant
from upgradelab.targets.provisioners import LocalProvisioner


def test_settings_are_normalized_and_instance_statements_canonical() -> None:
    variant = resolve_variant(
        "mysql-9.7",
        set_global={"innodb-flush-log-at-trx-commit": "2"},
        set_session={"SQL_MODE": "STRICT_TRANS_TABLES"},
        instance=["alter  instance disable innodb redo_log;"],
    )
    assert variant.set_global == {"innodb_flush_log_at_trx_commit": "2"}
    assert variant.set_session == {"sql_mode": "STRICT_TRANS_TABLES"}
    assert variant.instance == ["ALTER INSTANCE DISABLE INNODB REDO_LOG"]


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"set_global": {"x; DROP DATABASE mysql": "1"}}, "SET GLOBAL 'x; DROP DATABASE mysql'"),
        ({"set_global": {"general_log_file": "/etc/passwd"}}, "SET GLOBAL 'general_log_file'"),
        ({"set_session": {"sql_mode": "'; DROP TABLE t; --"}}, "SET SESSION 'sql_mode'"),
        ({"instance": ["ALTER INSTANCE DISABLE INNODB REDO_LOG; DROP DATABASE mysql"]}, "instance statement"),
        ({"instance": ["SHUTDOWN"]}, "instance statement 'SHUTDOWN' is not allowed"),
    ],
)
def test_unsafe_settings_are_refused_naming_the_variant_and_setting(
    settings: dict[str, object], named: str
) -> None:
    with pytest.raises(VariantError, match=r"variant 'v'") as refused:
        resolve_variant("mysql-9.7", name="v", **settings)  # type: ignore[arg-type]
    assert named in str(refused.value)


def test_api_refuses_an_unsafe_setting_with_the_field_named(client: httpx.Client) -> None:
    body = {
        "workload": "insert-truncate",
        "variants": [{"target": "mysql-9.7", "name": "bad", "set_global": {"init_connect": "DROP"}}],
    }
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"][:3] == ["body", "variants", 0]
    assert "variant 'bad'" in error["msg"] and "init_connect" in error["msg"]


def test_settings_are_applied_to_the_server_and_the_workload_session(provisioner: LocalProvisioner) -> None:
    variant = resolve_variant(
        provisioner.target_name,
        set_global={"innodb_flush_log_at_trx_commit": "2", "innodb_io_capacity": "DEFAULT"},
        set_session={"sql_mode": "STRICT_TRANS_TABLES", "autocommit": "ON"},
    )
    connection = provisioner.start([]).connect()
    try:
        apply_variant(connection, variant)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit, @@SESSION.sql_mode, @@GLOBAL.sql_mode"
            )
            row = cursor.fetchone()
    finally:
        connection.close()
        provisioner.stop()
    assert row is not None
    assert int(row[0]) == 2
    assert row[1] == "STRICT_TRANS_TABLES"
    assert row[2] != "STRICT_TRANS_TABLES"  # SESSION stays on the workload connection


def test_run_with_accepted_settings_succeeds(client: httpx.Client) -> None:
    run_id = submit(
        client,
        [
            {
                "target": "mysql-9.7",
                "name": "mysql tuned",
                "set_global": {"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0"},
                "set_session": {"unique_checks": "OFF"},
                "instance": ["ALTER INSTANCE DISABLE INNODB REDO_LOG"],
            },
            {
                "target": "mariadb-10.11",
                "name": "mariadb tuned",
                "set_global": {"innodb_flush_log_at_trx_commit": "0"},
            },
        ],
        iterations=1,  # the claim is that the settings are accepted, applied and the run ends well
    )
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    assert run["iterations_done"] == 2  # one per variant


# Each refused setting as its own variant of one run: the pre-flight tries every variant's settings on
# a scratch start of its own instance and fails each that the server refuses, so one run checks them all.
REFUSED: list[tuple[dict[str, object], str]] = [
    (
        {"target": "mysql-9.7", "set_global": {"innodb_no_such_thing": "1"}},
        "SET GLOBAL innodb_no_such_thing = 1: SHOW GLOBAL VARIABLES has no variable 'innodb_no_such_thing'",
    ),
    (
        {"target": "mysql-9.7", "set_global": {"innodb_log_writer_threads": "maybe"}},
        "SET GLOBAL innodb_log_writer_threads = maybe: (1231) Variable 'innodb_log_writer_threads' "
        "can't be set to the value of 'maybe'",
    ),
    (
        {"target": "mysql-9.7", "set_session": {"innodb_buffer_pool_size": "1"}},
        "SET SESSION innodb_buffer_pool_size = 1: (1229)",
    ),
    (
        {"target": "mariadb-10.11", "instance": ["ALTER INSTANCE DISABLE INNODB REDO_LOG"]},
        "instance statement 'ALTER INSTANCE DISABLE INNODB REDO_LOG': (1064)",
    ),
]


def test_run_with_settings_the_server_refuses_fails_before_any_iteration_naming_each(
    client: httpx.Client,
) -> None:
    variants = [{**variant, "name": f"refused {n}"} for n, (variant, _) in enumerate(REFUSED)]
    run_id = submit(client, variants, iterations=2)
    run = wait_final(client, run_id)
    assert run["status"] == "failed"
    assert run["iterations_done"] == 0
    states = {v["name"]: v for v in run["variant_states"]}
    for n, (_, answer) in enumerate(REFUSED):
        state = states[f"refused {n}"]
        assert state["status"] == "failed", state
        assert state["error"].startswith(f"variant 'refused {n}': "), state["error"]
        assert answer in state["error"]
        assert answer in run["error"]  # the run's error joins its variants' errors
