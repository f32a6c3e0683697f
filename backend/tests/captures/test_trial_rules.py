"""The schema trial's rules without a server (issue 45, Deliver 5-7): a dump split as the client
splits it, what a statement defines, where a word stands unquoted; the load's grouping and what is
no finding (the lab's reasons, an object the dump lacks, a dependent of a refused object); the
statements only ever PREPAREd; a workload's problems each with its fix; every finding with its
action, in one order, and a CSV that names what it is about."""

import csv
import io
from typing import Any

import pymysql
import pytest

from upgradelab.captures.body_calls import calls
from upgradelab.captures.digests import Digest, Workload
from upgradelab.captures.findings import CHECK_COLUMNS, CSV_COLUMNS, check_about, csv_text, ordered
from upgradelab.captures.quoting import NewServer
from upgradelab.captures.refusals import action_for, classify
from upgradelab.captures.schema_load import Loaded, definer_free, load
from upgradelab.captures.sql_text import bare_places, object_of, quoted, split_dump
from upgradelab.captures.statement_parse import parse_statements, parse_text
from upgradelab.captures.workload_problems import Instrumentation, problems

DUMP = """/*M!999999\\- enable the sandbox mode */
-- MariaDB dump 10.19
/*!40101 SET NAMES utf8mb4 */;
CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop`;
USE `shop`;
CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `s` varchar(10) DEFAULT 'a;b'
) ENGINE=InnoDB;
/*!50001 CREATE VIEW `v` AS SELECT 1 AS `id` */;
INSERT INTO `t` VALUES (1,'x;y');
DELIMITER ;;
CREATE DEFINER=`root`@`localhost` PROCEDURE `p`()
BEGIN
  SELECT qualify, t.qualify, rank() FROM t; -- qualify;
  SELECT 'qualify';
END ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t
FOR EACH ROW SET NEW.id = 1 */;;
DELIMITER ;
SET @@GLOBAL.GTID_PURGED='x';
"""


def test_a_dump_is_split_where_the_client_splits_it_with_the_line_each_starts_on() -> None:
    found = [(one.line, object_of(one.text)) for one in split_dump(DUMP)]
    assert [line for line, _ in found] == [1, 4, 5, 6, 10, 11, 13, 18, 21]
    kinds = [(what.verb, what.kind, what.name) if what else None for _, what in found]
    assert kinds == [
        None,  # the sandbox line and SET NAMES: one statement, no object
        ("create", "database", "shop"),
        None,
        ("create", "table", "t"),
        ("create", "view", "v"),
        None,
        ("create", "procedure", "p"),
        ("create", "trigger", "tr"),
        None,
    ]


def test_a_word_is_quoted_only_where_it_stands_as_a_name() -> None:
    [procedure] = [one.text for one in split_dump(DUMP) if "PROCEDURE" in one.text]
    # not after a dot, not as a call, not in a string or a comment
    assert [(t.text, t.line) for t in bare_places(procedure, "qualify")] == [("qualify", 3)]
    assert "SELECT `qualify`, t.qualify, rank() FROM t; -- qualify;" in quoted(procedure, "qualify")
    assert bare_places(procedure, "rank") == []


def test_definer_clauses_before_a_body_become_the_loading_account() -> None:
    statement = (
        "/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */ VIEW v AS SELECT 'DEFINER=`x`@`y`'"
    )
    assert definer_free(statement) == (
        "/*!50013 DEFINER=CURRENT_USER SQL SECURITY DEFINER */ VIEW v AS SELECT 'DEFINER=`x`@`y`'"
    )


def test_refusals_by_the_lab_or_by_a_missing_object_are_never_findings() -> None:
    assert classify(1064, "near 'qualify'") == "parse"
    assert classify(1142, "SELECT command denied") == "lab"
    assert classify(1146, "Table 'shop.x' doesn't exist") == "missing"
    assert classify(1305, "FUNCTION shop.f does not exist", frozenset({"f"})) == "missing"
    assert classify(1305, "FUNCTION shop.MD5 does not exist", frozenset({"f"})) == "refused"
    assert classify(1286, "Unknown storage engine 'Aria'") == "refused"


class _Server:
    """A new server that refuses what `refuses` maps (a text fragment -> (code, message)) and
    records what it was sent."""

    def __init__(self, refuses: dict[str, tuple[int, str]]) -> None:
        self.refuses = refuses
        self.sent: list[str] = []

    def __call__(self, sql: str) -> None:
        self.sent.append(sql)
        for fragment, (code, message) in self.refuses.items():
            if fragment in sql:
                raise pymysql.err.ProgrammingError(code, message)


NEW = NewServer("mysql-9.7", "mysql", lambda word: word.lower() == "qualify", frozenset({"qualify"}))


def test_each_refused_object_is_one_finding_its_dependents_under_it_and_the_rows_never_sent() -> None:
    dump = (
        "USE `shop`;\nDROP TABLE IF EXISTS `h`;\nCREATE TABLE `h` (a INT) WITH SYSTEM VERSIONING;\n"
        "CREATE VIEW `hv` AS SELECT a FROM h;\nINSERT INTO `h` VALUES (1);\nCREATE TABLE `x` (a INT);\n"
        "CREATE VIEW `gone` AS SELECT * FROM other.y;\nSET GLOBAL event_scheduler = OFF;\n"
    )
    server = _Server(
        {
            "SYSTEM VERSIONING": (1064, "near 'SYSTEM VERSIONING' at line 1"),
            "hv": (1146, "Table 'shop.h' doesn't exist"),
            "other.y": (1146, "Table 'other.y' doesn't exist"),
        }
    )
    loaded = load(server, split_dump(dump), NEW)
    [table] = loaded.findings
    assert (table.kind, table.name, table.outcome) == ("table", "shop.h", "no_longer_loads")
    assert table.quoted == [] and "system-versioned" in table.action
    assert table.also == ["needs it, not loaded: CREATE VIEW hv AS SELECT a FROM h (line 4): ERROR 1146: "
                          "Table 'shop.h' doesn't exist"]  # fmt: skip
    [gone] = loaded.summary.not_loaded
    assert "needs other.y, which the dump does not hold" in gone.reason
    assert not any(sql.startswith(("INSERT", "SET GLOBAL")) for sql in server.sent)
    assert loaded.summary.skipped == 2 and loaded.summary.refused == 1


def test_a_reserved_name_is_quoted_until_the_server_takes_it_and_a_keyword_never() -> None:
    body = "CREATE PROCEDURE p()\nBEGIN\n  SELECT qualify FROM t;\nEND"
    server = _Server({"SELECT qualify": (1064, "near 'qualify FROM t;' at line 3")})
    [finding] = load(server, split_dump(f"DELIMITER ;;\n{body} ;;\n"), NEW).findings
    assert finding.loads_quoted and finding.quoted[0].word == "qualify" and finding.quoted[0].lines == [3]
    assert server.sent[-1] == body.replace("SELECT qualify", "SELECT `qualify`")
    assert finding.action == (
        "quote `qualify` in this place (line 3 of the statement) in procedure p: "
        "mysql-9.7 then takes it (tried)"
    )
    # a word the server reserves but the schema does not name: quoted, still refused, forgotten
    system = NewServer("mysql-9.7", "mysql", lambda word: True, frozenset())
    refusing = _Server({"VERSIONING": (1064, "near 'SYSTEM VERSIONING' at line 1")})
    [table] = load(refusing, split_dump("CREATE TABLE h (a INT) WITH SYSTEM VERSIONING;"), system).findings
    assert table.quoted == [] and not table.loads_quoted and "system-versioned" in table.action


class _Bound:
    """A StatementBound that answers PREPARE by `answers` (a text -> error) and records every statement."""

    def __init__(self, answers: dict[str, tuple[int, str]]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, Any]] = []
        self.connection = self

    def select_db(self, name: str) -> None:
        self.sent.append(("USE", name))

    def run(self, sql: str, args: Any = None) -> tuple[list[Any], float]:
        self.sent.append((sql, args))
        text = args[0] if args else sql
        for fragment, (code, message) in self.answers.items():
            if fragment in text:
                raise pymysql.err.ProgrammingError(code, message)
        return [], 0.0


def _digest(text: str, source: str = "history", old: str | None = "prepared", **more: Any) -> Digest:
    return Digest(
        digest="d" + str(abs(hash(text)))[:8], schema_name="shop", text=text, text_source=source,
        digest_text=None, executions=5, weight=0.1, total_s=None, avg_s=None, max_s=None, p95_s=None,
        p99_s=None, rows_sent=None, rows_examined=None, old_parse=old, **more,
    )  # fmt: skip


def test_a_captured_statement_is_only_ever_prepared_and_judged_against_its_own_server() -> None:
    hostile = "SELECT 1; DROP DATABASE shop"
    digests = [
        _digest("SELECT qualify FROM t"),  # parses on the old one: a finding
        _digest("SELECT MD5(a) FROM t", old="parses", errors=0),  # ran whole: a finding
        _digest("INSERT INTO t SELECT MD5(a) FROM t", old="parses", errors=None),  # not known to have run
        _digest("SELECT * FROM t WHERE a IN (...)", source="digest_text", old="fails"),  # its own fails
        _digest("SELECT * FROM tmp_1"),  # a temporary table: not in the dump
        _digest(hostile),
    ]
    bound = _Bound(
        {
            "SELECT qualify": (1064, "near 'qualify FROM t' at line 1"),
            "MD5": (1305, "FUNCTION shop.MD5 does not exist"),
            "tmp_1": (1146, "Table 'shop.tmp_1' doesn't exist"),
            hostile: (1064, "near 'DROP DATABASE shop' at line 1"),
        }
    )
    workload = Workload(digests=digests, executions=30, quantiles=False, samples=False, limit=10)
    found, summary = parse_statements(bound, workload, Loaded(), NEW)  # type: ignore[arg-type]
    assert [f.sample for f in found] == ["SELECT qualify FROM t", "SELECT MD5(a) FROM t", hostile]
    assert found[0].parses_quoted and "SHA2" in found[1].action
    assert summary.asked == 5 and summary.refused == 3 and summary.parses == 0
    assert {one.reason.split(" (")[0] for one in summary.not_asked} == {
        "refused by the new version, not known to have run whole on its own server",
        "its own server did not parse or prepare this text",
        "needs shop.tmp_1 which the dump does not hold",
    }
    statements = [sql for sql, _ in bound.sent if sql != "USE"]
    assert set(statements) <= {"PREPARE upgradelab_parse FROM %s", "DEALLOCATE PREPARE upgradelab_parse"}
    assert (
        "PREPARE upgradelab_parse FROM %s",
        (hostile,),
    ) in bound.sent  # the text a bound parameter: data


def test_a_digest_texts_lists_are_asked_as_one_placeholder() -> None:
    assert parse_text(_digest("SELECT * FROM t WHERE a IN (...) ;", source="digest_text")) == (
        "SELECT * FROM t WHERE a IN(?)"  # its call joined as well: the keyword reads the same
    )
    assert parse_text(_digest("x", truncated=True)) is None


def test_a_digest_texts_calls_are_asked_joined_as_the_client_sent_them() -> None:
    # as printed, `SUM ( k )` calls a stored function shop.SUM (ERROR 1630 on both servers: a
    # false "no longer parses") and `COUNT ( * )` does not parse; a client's own text keeps its spaces
    printed = "SELECT SUM ( `k` ) , COUNT ( * ) FROM `t` WHERE `a` IN (...) AND `b` = ? ;"
    assert parse_text(_digest(printed, source="digest_text")) == (
        "SELECT SUM( `k` ) , COUNT( * ) FROM `t` WHERE `a` IN(?) AND `b` = ?"
    )
    assert parse_text(_digest("SELECT SUM (k) FROM t", source="history")) == "SELECT SUM (k) FROM t"
    # a quoted name before `(` (a column list) and a string keep theirs
    insert = "INSERT INTO `t` ( `a` ) VALUES (...) , ( 'x ( y )' )"
    assert parse_text(_digest(insert, source="digest_text")) == (
        "INSERT INTO `t` ( `a` ) VALUES(?) , ( 'x ( y )' )"
    )


@pytest.mark.parametrize(
    ("variables", "seen", "counts", "code"),
    [
        ({"performance_schema": "OFF"}, Instrumentation(), (0, 0, 0), "performance_schema_off"),
        ({}, Instrumentation(consumers={"statements_digest": "NO"}), (0, 0, 0), "consumer_off"),
        ({}, Instrumentation(statement_instruments=0), (0, 0, 0), "instruments_off"),
        ({}, Instrumentation(statement_instruments=10), (0, 0, 0), "nothing_ran"),
        ({}, Instrumentation(consumers={"events_statements_history_long": "NO"}), (4, 1, 0), "consumer_off"),
        (
            {"performance_schema_events_statements_history_long_size": "10"},
            Instrumentation(
                consumers={"events_statements_current": "YES", "events_statements_history_long": "YES"}
            ),
            (4, 1, 0),
            "history_too_small",
        ),
        ({"performance_schema_digests_size": "200"}, Instrumentation(), (4, 4, 1), "digests_full"),
    ],
)
def test_each_reason_a_workload_is_empty_or_not_replayable_comes_with_its_fix(
    variables: dict[str, str], seen: Instrumentation, counts: tuple[int, int, int], code: str
) -> None:
    digests, with_text, lost = counts
    [found] = problems(
        variables, seen, digests=digests, with_text=with_text, lost_rows=lost, samples=False, error=None
    )
    assert found.code == code and found.fix and found.words
    seen = Instrumentation(user="c@%")
    [unreadable] = problems({}, seen, digests=0, with_text=0, lost_rows=0, samples=False, error="denied")
    # a statement run once, long ago, gone from the history: no gap in what a replay runs
    on = Instrumentation(
        consumers={"events_statements_current": "YES", "events_statements_history_long": "YES"}
    )
    for share, codes in ((0.0001, []), (0.2, ["history_too_small"])):
        said = problems(
            {}, on, digests=22, with_text=21, lost_rows=0, samples=False, error=None, without_share=share
        )
        assert [one.code for one in said] == codes
    assert unreadable.fix == "GRANT SELECT ON performance_schema.* TO c@%, then capture again"
    # MySQL keeps a sample per digest: no history is needed there
    assert (
        problems({}, Instrumentation(), digests=4, with_text=0, lost_rows=0, samples=True, error=None) == []
    )


def test_every_kind_in_one_order_with_its_action_and_a_csv_about_its_capture() -> None:
    load = {
        "kind": "sequence", "name": "shop.s", "outcome": "no_longer_loads", "statement": "CREATE SEQUENCE s",
        "line": 3, "words": "ERROR 1064", "also": ["also refused: DROP SEQUENCE s (line 2): ERROR 1064"],
        "action": "replace it",
    }  # fmt: skip
    parse = {
        "digest": "abc", "schema_name": "shop", "sample": "SELECT MD5(a) FROM t", "text_source": "sample",
        "executions": 9, "asked": "prepare", "words": "ERROR 1305", "action": "use SHA2",
    }  # fmt: skip
    trial = {"statements": {"empty": True, "workload_problems": [{"code": "c", "words": "w", "fix": "f"}]}}
    found = ordered(
        [{"name": "a", "line": "a=1", "outcome": "refused", "words": "w"}],
        [],
        [],
        [],
        [],
        [],
        [load],
        [parse],
        trial,
    )
    assert [(f.severity, f.kind) for f in found] == [
        ("does_not_start", "option"),
        ("does_not_load", "schema"),
        ("does_not_load", "statement"),
        ("note", "workload"),
    ]
    assert [f.action for f in found[1:]] == ["replace it", "use SHA2", "f"]
    assert "DROP SEQUENCE" in found[1].evidence and found[2].subject.startswith(
        "SELECT MD5(a) FROM t (digest abc"
    )
    about = check_about(7, "staging", "10.11.19-MariaDB", "mysql-9.7", "mysqld 9.7.4")
    rows = list(csv.reader(io.StringIO(csv_text(found, about))))
    assert rows[0] == [*CSV_COLUMNS, *CHECK_COLUMNS]
    assert rows[2][-5:] == ["7", "staging", "10.11.19-MariaDB", "mysql-9.7", "mysqld 9.7.4"]


def test_a_digest_texts_row_of_values_is_asked_with_one_placeholder_a_column() -> None:
    # sysbench's INSERT on 10.11: asked as `VALUES (?)` 11.8 and 9.7 said ERROR 1136 (a false finding)
    printed = "INSERT INTO `sbtest1` ( ID , `k` , `c` , `pad` ) VALUES (...) "
    assert parse_text(_digest(printed, source="digest_text")) == (
        "INSERT INTO `sbtest1` ( ID , `k` , `c` , `pad` ) VALUES(?, ?, ?, ?)"
    )
    rows = "INSERT INTO `t` ( `a` , `b` ) VALUES (...) , (...) ON DUPLICATE KEY UPDATE `a` = VALUES ( `a` )"
    assert parse_text(_digest(rows, source="digest_text")) == (
        "INSERT INTO `t` ( `a` , `b` ) VALUES(?, ?) , (?, ?) ON DUPLICATE KEY UPDATE `a` = VALUES( `a` )"
    )
    # no column list (or a partition's): its count is not known here, and the refusal for it no finding
    unsized = [
        _digest(text, source="digest_text", old="parses", errors=0)
        for text in ("INSERT INTO `t` VALUES (...) ", "INSERT INTO `t` PARTITION ( `p1` ) VALUES (...)")
    ]
    assert [parse_text(one) for one in unsized] == [
        "INSERT INTO `t` VALUES(?)",
        "INSERT INTO `t` PARTITION( `p1` ) VALUES(?)",
    ]
    bound = _Bound({"VALUES(?)": (1136, "Column count doesn't match value count at row 1")})
    workload = Workload(digests=unsized, executions=10, quantiles=False, samples=False, limit=10)
    found, summary = parse_statements(bound, workload, Loaded(), NEW)  # type: ignore[arg-type]
    assert found == [] and summary.refused == 0
    assert [(one.reason.split(":")[0], one.count) for one in summary.not_asked] == [
        ("a digest text's row of values `(...)` with no column list", 2)
    ]


def test_a_workload_note_says_partly_not_replayable_only_when_a_digest_is_left_out_of_the_replay() -> None:
    problem = {"code": "consumer_off", "words": "2 of 2 digests have only their digest text", "fix": "f"}

    def note(**statements: Any) -> str:
        trial = {"statements": {"digests": 2, "workload_problems": [problem], **statements}}
        [found] = ordered([], [], [], [], [], [], trial=trial)
        assert (found.severity, found.kind, found.action) == ("note", "workload", "f")
        return found.outcome

    # every digest text bound: each runs in the replay, the note keeps its fix (the texts as sent)
    assert note(replayable=2) == "all digests replayable"
    assert note(replayable=1) == "partly not replayable"
    assert note(replayable=0, empty=True) == "empty"
    assert note() == "partly not replayable"  # a check made before `replayable` was kept


def test_a_view_of_a_refused_table_and_a_statement_reading_it_are_listed_under_the_table() -> None:
    dump = "USE `crm`;\nCREATE TABLE `a` (u uuid);\nCREATE VIEW `v` AS SELECT u FROM a;\n"
    server = _Server(
        {"uuid": (1064, "near 'uuid)' at line 1"), "FROM a": (1146, "Table 'crm.a' doesn't exist")}
    )
    loaded = load(server, split_dump(dump), NEW)
    [table] = loaded.findings
    assert table.action == (
        "mysql-9.7 has no UUID column type: change it in table crm.a to BINARY(16) with UUID_TO_BIN() "
        "(or CHAR(36)) before the move"
    )
    bound = _Bound({"crm.v": (1146, "Table 'crm.v' doesn't exist")})
    digests = [_digest("SELECT u FROM crm.v")]
    workload = Workload(digests=digests, executions=5, quantiles=False, samples=False, limit=10)
    found, summary = parse_statements(bound, workload, loaded, NEW)  # type: ignore[arg-type]
    assert found == [] and summary.folded == 1 and summary.not_asked == []
    assert table.also[-1].startswith("needed by captured statement")


def test_a_refusal_no_rule_knows_says_where_the_parser_stopped() -> None:
    words = "ERROR 1064: You have an error ... near 'PERSISTENT,\n  x INT' at line 3"
    assert action_for(words, "CREATE TABLE t", "mysql-9.7", "mysql", "table s.t") == (
        "rewrite table s.t where mysql-9.7's parser stops: near `PERSISTENT, x INT`"
    )


def test_the_calls_of_a_body_are_the_words_before_a_parenthesis_that_name_no_table_or_routine() -> None:
    body = (
        "CREATE DEFINER=x PROCEDURE `p`(IN n INT)\nBEGIN\n  INSERT INTO t(a, b) VALUES (MD5(n), x.f(1));\n"
        "  CALL other(1);\n  SELECT COUNT(*) FROM t JOIN u USING (id) WHERE md5(n) > '';\nEND"
    )
    found = {call.name.lower(): call.lines for call in calls(body)}
    assert found == {"values": [3], "md5": [3, 5], "count": [5], "using": [5]}  # t, x.f, other: not calls
