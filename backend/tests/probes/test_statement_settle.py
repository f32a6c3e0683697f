"""The statement probe reads its summary only once the workload thread's last statement was summed
(probes/statement_time.py `idle`): on MySQL the threads table shows 'Sleep' before the statement's
event ends and its text is cleared after; on MariaDB the text is cleared before and 'Sleep' set after.
Scripted threads-table rows stand in for the server's states between the client's OK and the event's
end; the real servers' idle and busy rows are checked in test_probes_on_servers.py."""

from typing import Any

import pytest

from upgradelab.probes import statement_time
from upgradelab.probes.statement_time import StatementTimeProbe, idle


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (("Sleep", None), True),  # both servers, the event summed
        (("Sleep", b""), True),
        ((None, None), True),
        (("Sleep", "TRUNCATE probes.settle4"), False),  # MySQL: Sleep set, event not yet ended
        (("Query", None), False),  # MariaDB: text cleared, event not yet ended
        (("Query", "SELECT SLEEP(1)"), False),  # running
    ],
)
def test_a_thread_is_idle_only_with_its_command_sleep_and_its_text_gone(
    row: tuple[Any, Any], expected: bool
) -> None:
    assert idle([row]) is expected


def test_a_thread_that_is_gone_is_idle() -> None:
    assert idle([]) is True


class _Cursor:
    def __init__(self, connection: "_Scripted") -> None:
        self.connection = connection
        self.rows: list[tuple[Any, ...]] = []

    def __enter__(self) -> "_Cursor":
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def execute(self, sql: str, args: Any = None) -> None:
        del args
        self.rows = self.connection.answer(sql)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


class _Scripted:
    """A probe connection whose threads row goes through `states`, one per read; the summary counts
    the statement only once the last state (the event summed) was reached."""

    def __init__(self, states: list[tuple[Any, Any]]) -> None:
        self.states = states
        self.reads = 0

    def cursor(self) -> _Cursor:
        return _Cursor(self)

    def answer(self, sql: str) -> list[tuple[Any, ...]]:
        if "performance_schema.threads" in sql:
            state = self.states[min(self.reads, len(self.states) - 1)]
            self.reads += 1
            return [state]
        summed = self.reads >= len(self.states)
        return [(10 if summed else 9, 1000 if summed else 900)]


@pytest.mark.parametrize(
    "states",
    [
        [("Sleep", "TRUNCATE t4"), ("Sleep", "TRUNCATE t4"), ("Sleep", None)],  # MySQL
        [("Query", None), ("Query", None), ("Sleep", None)],  # MariaDB
    ],
)
def test_the_reading_waits_past_the_state_between_the_ok_and_the_events_end(
    states: list[tuple[Any, Any]],
) -> None:
    probe = StatementTimeProbe()
    probe.thread_id = 42
    connection = _Scripted(states)
    assert probe.read(connection) == (10, 1000)  # type: ignore[arg-type]  # a scripted stand-in
    assert connection.reads == len(states)


def test_a_thread_never_idle_is_read_after_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statement_time, "SETTLE_TIMEOUT_S", 0.01)
    probe = StatementTimeProbe()
    probe.thread_id = 42
    connection = _Scripted([("Query", "SELECT SLEEP(5)")] * 10_000 + [("Sleep", None)])
    assert probe.read(connection) == (9, 900)  # type: ignore[arg-type]  # a scripted stand-in
    assert 1 < connection.reads < 10_000
