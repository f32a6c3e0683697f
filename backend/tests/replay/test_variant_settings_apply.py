"""How a replay variant's settings reach its server (measurement/variant_settings.py), on a recording
connection: the instance statements before SET GLOBAL, each checked as a run's pre-flight checks it
(a variable the server does not list, a value it adjusts: SettingRefused naming it), and an instance
statement makes the kept datadir one the next replay does not reuse."""

import uuid
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest

from upgradelab.measurement.dataset_records import record_path
from upgradelab.measurement.variant_settings import (
    SettingRefused,
    VariantSettings,
    apply_server_settings,
    apply_session_settings,
)
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import ServerConnection


class _Server:
    """A connection that records every statement; `variables` are the ones SHOW VARIABLES lists,
    `warns` the variables whose SET leaves a warning."""

    def __init__(self, variables: set[str], warns: frozenset[str] = frozenset()) -> None:
        self.executed: list[str] = []
        self.variables, self.warns = variables, warns
        self._last: tuple[str, Any] = ("", None)

    def cursor(self) -> "_Server":
        return self

    def __enter__(self) -> "_Server":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute(self, sql: str, params: Any = None) -> None:
        self.executed.append(sql)
        self._last = (sql, params)

    def fetchone(self) -> tuple[str, str] | None:
        name = self._last[1][0]
        return (name, "x") if name in self.variables else None

    def fetchall(self) -> list[tuple[str, int, str]]:
        setting = self.executed[-2]
        warned = any(f" {name} = " in setting for name in self.warns)
        return [("Warning", 1292, "Truncated incorrect value")] if warned else []


@pytest.fixture
def provisioner() -> Iterator[Provisioner]:
    """An instance (of a made-up target) whose kept datadir has a dataset record."""
    one = cast(
        Provisioner, SimpleNamespace(kind="local", target_name=f"rv-unit-{uuid.uuid4().hex[:8]}", slot=0)
    )
    record = record_path(one)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("{}")
    yield one
    record.unlink(missing_ok=True)


def test_instance_statements_run_before_set_global_and_the_datadir_is_not_reused(
    provisioner: Provisioner,
) -> None:
    server = _Server({"max_connect_errors"})
    settings = VariantSettings(
        set_global={"max_connect_errors": "4242"}, instance=["ALTER INSTANCE DISABLE INNODB REDO_LOG"]
    )
    apply_server_settings(cast(ServerConnection, server), "tuned", settings, provisioner)
    assert server.executed[0] == "ALTER INSTANCE DISABLE INNODB REDO_LOG"
    assert "SET GLOBAL max_connect_errors = %s" in server.executed
    assert not record_path(provisioner).exists()


def test_set_global_alone_keeps_the_datadir_reusable_and_session_settings_wait_for_the_account(
    provisioner: Provisioner,
) -> None:
    server = _Server({"max_connect_errors", "div_precision_increment"})
    settings = VariantSettings(
        set_global={"max_connect_errors": "4242"}, set_session={"div_precision_increment": "7"}
    )
    apply_server_settings(cast(ServerConnection, server), "tuned", settings, provisioner)
    assert not any("SESSION" in sql and sql.startswith("SET") for sql in server.executed)
    assert record_path(provisioner).exists()
    apply_session_settings(cast(ServerConnection, server), "tuned", settings)
    assert server.executed[-2] == "SET SESSION div_precision_increment = %s"


@pytest.mark.parametrize(
    ("variables", "warns", "said"),
    [
        (set(), frozenset(), "SET GLOBAL max_connect_errors = 4242: SHOW GLOBAL VARIABLES has no variable"),
        ({"max_connect_errors"}, frozenset({"max_connect_errors"}), "the server adjusted the value"),
    ],
)
def test_a_setting_the_server_does_not_take_refuses_the_variant_naming_it(
    provisioner: Provisioner, variables: set[str], warns: frozenset[str], said: str
) -> None:
    server = _Server(variables, warns)
    with pytest.raises(SettingRefused, match="variant 'tuned': the server refuses") as refused:
        apply_server_settings(
            cast(ServerConnection, server),
            "tuned",
            VariantSettings(set_global={"max_connect_errors": "4242"}),
            provisioner,
        )
    assert said in str(refused.value)
