"""A statement's passes select its default database only where the connection's differs (issue 51:
a COM_INIT_DB before every statement's passes was 6 % of the replay thread's time): measurement/
passes.py use_database, on a fake connection counting select_db. Every time where writes are allowed
(a DROP DATABASE could change it), after a pass that erred, and with passes.SELECT_DB_EVERY_PASS."""

from typing import Any, cast

import pymysql
import pytest

from upgradelab.measurement import passes
from upgradelab.measurement.outcomes import Statements
from upgradelab.measurement.passes import use_database


class _Connection:
    def __init__(self) -> None:
        self.selected: list[str] = []

    def select_db(self, database: str) -> None:
        if database == "absent":
            raise pymysql.err.OperationalError(1049, f"Unknown database '{database}'")
        self.selected.append(database)


class _Bound:
    def __init__(self) -> None:
        self.connection = _Connection()


def _statements(read_only: bool = True) -> tuple[Statements, _Connection]:
    bound = _Bound()
    return Statements(cast(Any, bound), read_only), bound.connection


def test_the_database_is_selected_only_where_it_differs_from_the_last_one() -> None:
    statements, connection = _statements()
    for database in ("shop", "shop", "shop", "other", "shop", "shop"):
        use_database(statements, database)
    assert connection.selected == ["shop", "other", "shop"]
    statements.database = None  # a pass that erred or timed out (statement_passes)
    use_database(statements, "shop")
    assert connection.selected == ["shop", "other", "shop", "shop"]


def test_a_refused_database_is_forgotten_and_selected_again() -> None:
    statements, connection = _statements()
    use_database(statements, "shop")
    with pytest.raises(pymysql.MySQLError):
        use_database(statements, "absent")
    use_database(statements, "shop")  # the server's default after a refusal is not assumed
    assert connection.selected == ["shop", "shop"]


def test_every_time_where_writes_are_allowed_or_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    statements, connection = _statements(read_only=False)
    use_database(statements, "shop")
    use_database(statements, "shop")
    assert connection.selected == ["shop", "shop"]
    monkeypatch.setattr(passes, "SELECT_DB_EVERY_PASS", True)
    statements, connection = _statements()
    use_database(statements, "shop")
    use_database(statements, "shop")
    assert connection.selected == ["shop", "shop"]
