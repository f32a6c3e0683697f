"""The statistics candidate's second instance of the variant (fixsearch/second.py), its lifecycle
without a server: opened only when asked, the ANALYZE run as the admin on it (never on the variant's
own instance) after its datadir was marked to be thrown away, ended by `close` on every path, stopped
by a cancel while it starts, and "not measured" where there can be none. The servers are fakes that
record what is done to them; the real-server case is test_fix_statistics_on_mariadb.py."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from upgradelab.fixsearch import second as second_module
from upgradelab.fixsearch.histograms import Refused, Unavailable
from upgradelab.fixsearch.search import SearchCancelled
from upgradelab.fixsearch.second import SecondInstance
from upgradelab.measurement import openers as openers_module
from upgradelab.measurement.dataset_load import DumpDataset
from upgradelab.measurement.interrupt import Interrupt
from upgradelab.measurement.opening import ReplayVariant

ANALYZE = ["ANALYZE TABLE `o` PERSISTENT FOR COLUMNS (`k`) INDEXES ()"]


class Cursor:
    def __init__(self, server: "Server", rows: list[tuple[Any, ...]]) -> None:
        self.server, self.rows = server, rows

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute(self, sql: str) -> None:
        self.server.events.append(f"execute {sql}")

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


class Connection:
    def __init__(self, server: "Server", database: str | None) -> None:
        self.server, self.database = server, database

    def cursor(self) -> Cursor:
        return Cursor(self.server, self.server.analyze_rows)

    def close(self) -> None:
        self.server.events.append(f"close {self.database}")


class Server:
    """A provisioner of one slot: what is done to it, in order (`events`)."""

    kind, instances, target_name, flavor = "local", True, "mariadb-11.8", "mariadb"

    def __init__(self, slot: int) -> None:
        self.slot = slot
        self.events: list[str] = []
        self.analyze_rows: list[tuple[Any, ...]] = [("db.o", "analyze", "status", "OK")]

    @property
    def endpoint(self) -> Any:
        return SimpleNamespace(connect=lambda database=None: self._admin(database))

    def _admin(self, database: str | None) -> Connection:
        self.events.append(f"admin {database}")
        return Connection(self, database)

    def thaw(self) -> None:
        self.events.append("thaw")

    def freeze(self) -> None:
        self.events.append("freeze")

    def discard(self) -> None:
        self.events.append("discard")

    def forget_data(self) -> None:
        self.events.append("forget data")


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Server]:
    """open_variant and statement_runner faked: each start is recorded on its server."""
    started: list[Server] = []

    def open_variant(variant: ReplayVariant, *args: Any, **kwargs: Any) -> Any:
        server = variant.provisioner
        server.events.append("start")  # type: ignore[attr-defined]
        started.append(server)  # type: ignore[arg-type]
        connection = Connection(server, "replay")  # type: ignore[arg-type]
        return SimpleNamespace(variant=variant, connection=connection, clock=None, replay=SimpleNamespace())

    monkeypatch.setattr(openers_module, "open_variant", open_variant)
    monkeypatch.setattr(openers_module, "statement_runner", lambda *args: SimpleNamespace())
    monkeypatch.setattr(second_module, "forget_record", lambda p: p.events.append("forget record"))
    return started


def _second(server: Server | None, interrupt: Interrupt | None = None, others: Any = None) -> SecondInstance:
    variant = ReplayVariant("as is (second instance)", server, []) if server is not None else None  # type: ignore[arg-type]
    return SecondInstance(
        variant, DumpDataset(Path("/dev/null"), "0" * 64, "db"), timeout_s=5,
        interrupt=interrupt or Interrupt(), others=others or [[], []], allowance_mb=1,
        what="fix search 1", why_not="target t is one server only",
    )  # fmt: skip


def test_a_search_that_never_reaches_the_statistics_candidate_starts_nothing(opened: list[Server]) -> None:
    server = Server(2)
    second = _second(server)
    second.close()
    assert opened == [] and server.events == []


def test_a_later_change_first_undoes_the_one_before_and_a_failed_undo_leaves_it_unavailable(
    opened: list[Server],
) -> None:
    server = Server(2)
    second = _second(server)
    create, drop = "CREATE INDEX `fix_o_k` ON `db`.`o` (`k`)", "DROP INDEX `fix_o_k` ON `db`.`o`"
    second.with_change("index fix_o_k on o (k)", [create], [drop], "db")
    second.with_change("statistics: histograms on o.k", ANALYZE, [], "db")
    executed = [e for e in server.events if e.startswith("execute")]
    # the index dropped before the statistics are made: each arm sees its own change only
    assert executed == [f"execute {create}", f"execute {drop}", f"execute {ANALYZE[0]}"]
    assert server.events.count("forget data") == 1  # forgotten once, before the first change
    second.with_change("index again", [create], ["ANALYZE TABLE o DROP HISTOGRAM ON k"], "db")
    server.analyze_rows = [("db.o", "analyze", "error", "no such histogram")]  # its undo refused
    with pytest.raises(Unavailable, match="whose undo failed"):
        second.with_change("statistics once more", ANALYZE, [], "db")
    second.close()


def test_the_analyze_runs_as_the_admin_on_the_second_instance_once_after_its_datadir_is_forgotten(
    opened: list[Server],
) -> None:
    variant_own, server = Server(1), Server(2)
    second = _second(server)
    side = second.with_change("statistics: histograms on o.k", ANALYZE, [], "db")
    assert opened == [server] and variant_own.events == []  # the variant's own instance untouched
    assert side.one.variant.provisioner is server  # type: ignore[comparison-overlap]
    # forgotten first (a search ending after the ANALYZE leaves no reusable datadir), then the
    # ANALYZE in the statement's database as the admin, the instance thawed for it only
    after_start = server.events[server.events.index("freeze") + 1 :]  # frozen once started
    assert after_start == ["forget record", "forget data", "thaw", "admin db", f"execute {ANALYZE[0]}",
                           "close db", "freeze"]  # fmt: skip
    # the same candidate again: no second ANALYZE
    assert second.with_change("statistics: histograms on o.k", ANALYZE, [], "db") is side
    assert server.events.count(f"execute {ANALYZE[0]}") == 1
    second.close()
    assert server.events[-2:] == ["close replay", "discard"]  # its connection closed, then ended
    second.close()
    assert server.events.count("discard") == 1


def test_an_error_row_of_analyze_is_the_server_refusing_the_candidate(opened: list[Server]) -> None:
    server = Server(2)
    server.analyze_rows = [("db.o", "analyze", "Error", "Unknown column 'k'")]
    second = _second(server)
    with pytest.raises(Refused, match="Unknown column 'k'"):
        second.with_change("statistics", ANALYZE, [], "db")
    second.close()
    assert "discard" in server.events


def test_a_cancel_while_it_starts_ends_it_and_the_search(
    opened: list[Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = Server(2)
    interrupt = Interrupt()
    stopped: list[list[Any]] = []
    monkeypatch.setattr(
        "upgradelab.measurement.interrupt.stop_servers", lambda what, servers: stopped.append(servers)
    )
    second = _second(server, interrupt)
    real_open = openers_module.open_variant  # type: ignore[attr-defined]

    def open_then_cancel(variant: ReplayVariant, *args: Any, **kwargs: Any) -> Any:
        assert server in interrupt.servers  # type: ignore[comparison-overlap]  # a cancel from here on stops it through its own handle
        interrupt.set()
        return real_open(variant, *args, **kwargs)

    monkeypatch.setattr(openers_module, "open_variant", open_then_cancel)
    with pytest.raises(SearchCancelled):
        second.with_change("statistics", ANALYZE, [], "db")
    assert stopped == [[server]]  # no statement bound attached yet: its server stopped
    assert not any(e.startswith("execute") for e in server.events)
    second.close()
    assert server.events.count("discard") == 1


def test_none_where_the_target_has_one_server_or_the_memory_no_room(opened: list[Server]) -> None:
    with pytest.raises(Unavailable, match="target t is one server only"):
        _second(None).with_change("statistics", ANALYZE, [], "db")
    huge = [["innodb_buffer_pool_size=1000T"], []]
    with pytest.raises(Unavailable, match="no memory for a second instance of the variant"):
        _second(Server(2), others=huge).with_change("statistics", ANALYZE, [], "db")
    assert opened == []
