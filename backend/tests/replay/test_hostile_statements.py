"""Hostile replayed statements, one by one on the three lab servers (outcomes.py `capture`): a write
hidden in a stored function (InnoDB, MyISAM, MEMORY) or in DDL is refused by the server's read-only
transaction and nothing is written; `INTO OUTFILE` in a version comment is refused to a read-only
account (the replay's, made here as the dataset's read-only user is: SELECT, SHOW VIEW, EXECUTE on
the dataset's database) and no file appears; `SLEEP` past the bound is "timed out after 2 s".
The same function replayed with writes allowed does write: the refusal is the server's."""

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.measurement import timing
from upgradelab.measurement.outcomes import REFUSED_TEXT, Outcome, Statements, capture, routines_callable
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.targets.statement_timeout import StatementBound
from upgradelab.workloads.base import execute, scalar

SERVERS = ["mysql-9.7", "mariadb-10.11", "mariadb-11.8"]
ENGINES = ["InnoDB", "MyISAM", "MEMORY"]
READER, READER_PASSWORD = "hostile_reader", "Reader-pw-1"
TIMEOUT_S = 2.0
# A procedure that makes the session read-write on one call and writes on the next: the second call
# alone, in a read-only transaction of its own, is refused; only a session made read-only once for
# both writes. (A function cannot: the tables it may write are locked for writing when the statement
# calling it starts, refused in a read-only transaction before its first line runs.)
FLIP = (
    "CREATE PROCEDURE flip() BEGIN SET @flips = COALESCE(@flips, 0) + 1; "
    "IF @flips % 2 = 1 THEN SET SESSION TRANSACTION READ WRITE; "
    "ELSE INSERT INTO t_InnoDB VALUES (@flips); END IF; END"
)


@dataclass
class Server:
    provisioner: LocalProvisioner
    endpoint: Endpoint
    admin: ServerConnection
    files: Path  # the server's secure-file-priv directory, as the host sees it

    def statements(self, *, reader: bool = False, read_only: bool = True) -> Statements:
        user = (READER, READER_PASSWORD) if reader else (self.endpoint.user, self.endpoint.password)
        endpoint = Endpoint(self.endpoint.host, self.endpoint.port, *user)
        bound = StatementBound(
            endpoint.connect(database="hostile"), TIMEOUT_S, self.provisioner.flavor, self.endpoint.connect
        )
        bound.apply()
        return Statements(bound, read_only)

    def rows(self, engine: str) -> int:
        return int(scalar(self.admin, f"SELECT COUNT(*) FROM hostile.t_{engine}"))


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, database: None) -> Iterator[Server]:
    provisioner = lab_provisioner(request.param, ports.UNIT_TARGETS[request.param], suffix="hostile")
    endpoint = provisioner.start([], keep_data=False)
    admin = endpoint.connect()
    execute(admin, "CREATE DATABASE hostile")
    admin.select_db("hostile")
    for engine in ENGINES:
        execute(
            admin,
            f"CREATE TABLE t_{engine} (id INT) ENGINE={engine}",
            f"CREATE FUNCTION f_{engine}() RETURNS INT DETERMINISTIC MODIFIES SQL DATA "
            f"BEGIN INSERT INTO t_{engine} VALUES (42); RETURN 1; END",
        )
    execute(admin, FLIP)
    for host in ("127.0.0.1", "localhost"):
        execute(
            admin,
            f"CREATE USER '{READER}'@'{host}' IDENTIFIED BY '{READER_PASSWORD}'",
            f"GRANT SELECT, SHOW VIEW, EXECUTE ON hostile.* TO '{READER}'@'{host}'",
        )
    inner = str(scalar(admin, "SELECT @@secure_file_priv"))
    yield Server(provisioner, endpoint, admin, provisioner.root / inner.lstrip("/"))
    admin.close()
    provisioner.stop()


def _assert_refused(outcome: Outcome, codes: set[int]) -> None:
    assert outcome.kind == "refused" and outcome.note == REFUSED_TEXT, outcome
    assert outcome.error_code in codes and outcome.row_count is None, outcome


@pytest.mark.parametrize("engine", ENGINES)
def test_a_write_in_a_stored_function_is_refused_and_nothing_is_written(server: Server, engine: str) -> None:
    outcome = capture(server.statements(), f"SELECT f_{engine}()")
    _assert_refused(outcome, {1792})
    assert "READ ONLY transaction" in (outcome.error_message or "")
    assert server.rows(engine) == 0


@pytest.mark.parametrize(
    "sql", ["CREATE TABLE made_here (id INT)", "DROP TABLE t_MEMORY", "TRUNCATE TABLE t_MyISAM"]
)
def test_ddl_is_refused_although_its_implicit_commit_ends_the_transaction(server: Server, sql: str) -> None:
    _assert_refused(capture(server.statements(), sql), {1792})
    names = [str(r[0]) for r in _rows(server.admin, "SHOW TABLES FROM hostile")]
    assert sorted(names) == sorted(f"t_{engine}" for engine in ENGINES)


def _rows(connection: ServerConnection, sql: str) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return list(cursor.fetchall())


def test_into_outfile_in_a_version_comment_is_refused_to_the_read_only_account(server: Server) -> None:
    target = server.files / "hostile-out.txt"
    inner = f"{server.files.relative_to(server.provisioner.root)}/hostile-out.txt"
    outcome = capture(
        server.statements(reader=True), f"SELECT id FROM t_InnoDB /*! INTO OUTFILE '/{inner}' */"
    )
    _assert_refused(outcome, {1045, 1227})  # "you need the FILE privilege"
    assert not target.exists() and not any(server.files.iterdir())


def test_sleep_past_the_bound_is_timed_out_and_the_connection_goes_on(server: Server) -> None:
    statements = server.statements()
    started = time.monotonic()
    outcome = capture(statements, "SELECT SLEEP(60)")
    assert time.monotonic() - started < TIMEOUT_S + 3
    assert outcome.kind == "timed out" and outcome.note == "timed out after 2 s", outcome
    assert capture(statements, "SELECT COUNT(*) FROM t_InnoDB").row_count == 1


def test_the_same_function_with_writes_allowed_writes(server: Server) -> None:
    outcome = capture(server.statements(read_only=False), "SELECT f_InnoDB()")
    try:
        assert outcome.kind == "ran" and outcome.row_count == 1, outcome
        assert server.rows("InnoDB") == 1
    finally:
        execute(server.admin, "DELETE FROM hostile.t_InnoDB")


@pytest.mark.parametrize("every", [None, "pass"])
def test_a_pass_of_a_procedure_that_makes_the_session_read_write_writes_nothing(
    server: Server, monkeypatch: pytest.MonkeyPatch, every: str | None
) -> None:
    """A timed pass (timing.timed_runs) of `CALL flip()`: its first run makes the session read-write,
    its second writes. With the SET before every run, or once a pass (timing.READ_ONLY_EVERY "pass",
    issue 51) where the session can call a routine (made read-only before every run there:
    outcomes.routines_callable), the second run is refused and the pass errs: nothing written."""
    monkeypatch.setattr(timing, "READ_ONLY_EVERY", every)
    statements = server.statements(reader=True)
    statements.routines = routines_callable(statements.connection)
    assert statements.routines  # the reader may EXECUTE flip()
    try:
        runs = timing.timed_runs(statements, "CALL flip()", None, min_measured_s=1.0, max_repeats=4)
        assert runs is None and server.rows("InnoDB") == 0, runs
    finally:
        execute(server.admin, "DELETE FROM hostile.t_InnoDB")


def test_the_procedure_writes_where_the_session_is_made_read_only_once_for_its_pass(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why a session that may call a routine is made read-only before every run: made so once for
    the pass (Statements.routines False, as for a dataset without routines), flip()'s second and
    fourth runs write (the server's behaviour the test above depends on)."""
    monkeypatch.setattr(timing, "READ_ONLY_EVERY", "pass")
    statements = server.statements(reader=True)
    statements.routines = False
    try:
        runs = timing.timed_runs(statements, "CALL flip()", None, min_measured_s=1.0, max_repeats=4)
        assert runs is not None and len(runs) == 4 and server.rows("InnoDB") == 2, runs
    finally:
        execute(server.admin, "DELETE FROM hostile.t_InnoDB")
