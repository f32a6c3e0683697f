"""The statement bound on the three lab servers: a statement past its bound is ended (MySQL's SLEEP
interrupted returns 1 without an error: still a timeout), also one MySQL's max_execution_time would
not cover (DO); an interrupt ends the statement running at once and refuses the next; the
connection stays usable; one timer thread serves every bound."""

import threading
import time
from collections.abc import Iterator

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.statement_timeout import (
    StatementBound,
    StatementInterrupted,
    StatementTimedOut,
    timed_out_text,
)

SERVERS = ["mysql-9.7", "mariadb-10.11", "mariadb-11.8"]


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, database: None) -> Iterator[tuple[LocalProvisioner, Endpoint]]:
    provisioner = lab_provisioner(request.param, ports.UNIT_TARGETS[request.param], suffix="bound")
    endpoint = provisioner.start([])
    yield provisioner, endpoint
    provisioner.stop()


def _bound(server: tuple[LocalProvisioner, Endpoint], seconds: float) -> StatementBound:
    provisioner, endpoint = server
    bound = StatementBound(endpoint.connect(), seconds, provisioner.flavor, endpoint.connect)
    bound.apply()
    return bound


@pytest.mark.parametrize(
    "sql", ["SELECT SLEEP(60)", "DO SLEEP(60)", "SELECT BENCHMARK(10000000000, SHA2('x', 256))"]
)
def test_a_statement_past_its_bound_is_ended_and_the_connection_still_works(
    server: tuple[LocalProvisioner, Endpoint], sql: str
) -> None:
    bound = _bound(server, 1.0)
    started = time.monotonic()
    with pytest.raises(StatementTimedOut) as ended:
        bound.run(sql)
    elapsed = time.monotonic() - started
    assert 0.9 < elapsed < 4.0, elapsed
    assert str(ended.value) == f"statement timed out after 1 s: {sql}"
    assert timed_out_text(ended.value.seconds) == "timed out after 1 s"
    assert bound.run("SELECT 41 + 1")[0] == [(42,)]  # the next statement is not hit by the kill
    bound.connection.close()


def test_statements_within_the_bound_run_as_before(server: tuple[LocalProvisioner, Endpoint]) -> None:
    bound = _bound(server, 2.0)
    rows, seconds = bound.run("SELECT SLEEP(0.3), 7")
    assert rows == [(0, 7)] and 0.25 < seconds < 1.5
    bound.connection.close()


def test_an_interrupt_kills_the_statement_running_and_refuses_the_next(
    server: tuple[LocalProvisioner, Endpoint],
) -> None:
    bound = _bound(server, 120.0)
    threading.Timer(0.5, bound.interrupt).start()
    started = time.monotonic()
    with pytest.raises(StatementInterrupted):
        bound.run("SELECT SLEEP(60)")
    assert time.monotonic() - started < 3.0
    with pytest.raises(StatementInterrupted):
        bound.run("SELECT 1")
    bound.connection.close()


def test_many_short_statements_share_one_timer_thread(server: tuple[LocalProvisioner, Endpoint]) -> None:
    bounds = [_bound(server, 30.0) for _ in range(3)]
    before = threading.active_count()
    for _ in range(300):
        for bound in bounds:
            assert bound.run("SELECT 1")[0] == [(1,)]
    assert threading.active_count() == before  # no thread per statement
    assert sum(t.name == "statement-watchdog" for t in threading.enumerate()) == 1
    for bound in bounds:
        bound.connection.close()


def test_a_bound_outside_the_range_is_refused(server: tuple[LocalProvisioner, Endpoint]) -> None:
    _, endpoint = server
    connection = endpoint.connect()
    for seconds in (0.05, 3601):
        with pytest.raises(ValueError, match=r"between 0\.1 and 3600"):
            StatementBound(connection, seconds, "mysql", endpoint.connect)
    connection.close()
