"""A check's findings beyond the settings, without a server: which names a probe may send, the
sql_mode loop against a server's refusals, the changed defaults under settings left unset, the
character set defaults, one severity order across every kind, and the CSV export."""

import csv
import io
from typing import Any

import pymysql
import pytest

from upgradelab.captures import configuration
from upgradelab.captures.default_check import default_findings
from upgradelab.captures.defaults import BinaryDefaults
from upgradelab.captures.findings import SEVERITIES, csv_text, ordered
from upgradelab.captures.identifiers import Identifier, bare, probe_sql
from upgradelab.captures.schema_check import charset_findings, identifier_findings, sql_mode_findings

OLD = BinaryDefaults(
    "mariadbd 10.11.19",
    "10.11.19",
    {
        "sql_mode": "STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER",
        "character_set_server": "latin1",
        "innodb_snapshot_isolation": "OFF",
        "histogram_type": "DOUBLE_PREC_HB",
        "max_connections": "151",
        "innodb_purge_threads": "4",
        "thread_cache_size": "0",
        "general_log_file": "old-host.log",
        "version": "10.11.19-MariaDB",
        "performance_schema_max_statement_classes": "222",
    },
)
NEW = BinaryDefaults(
    "mariadbd 11.8.9",
    "11.8.9",
    {
        "sql_mode": "STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER",
        "character_set_server": "utf8mb4",
        "innodb_snapshot_isolation": "ON",
        "histogram_type": "JSON_HB",
        "max_connections": "151",
        "innodb_purge_threads": "8",
        "thread_cache_size": "9",
        "general_log_file": "/var/lib/mysql/new-host.log",
        "version": "11.8.9-MariaDB",
        "performance_schema_max_statement_classes": "231",
    },
)


def _config(**values: str) -> configuration.Configuration:
    captured = {
        "sql_mode": "STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER",
        "character_set_server": "latin1",
        "innodb_snapshot_isolation": "OFF",
        "histogram_type": "DOUBLE_PREC_HB",
        "max_connections": "151",
        "innodb_purge_threads": "4",
        "thread_cache_size": "0",
        "general_log_file": "old-host.log",
        "version": "10.11.19-MariaDB",
        "performance_schema_max_statement_classes": "222",
        **values,
    }
    return configuration.build("mariadb", "10.11.19", "", captured, OLD, None)


class _Server:
    """A connection whose server refuses the sql_mode values in `refuses`, naming the first, as
    MySQL does (ERROR 1231), and records every statement and parameter it is sent."""

    def __init__(self, refuses: set[str]) -> None:
        self.refuses = refuses
        self.sent: list[tuple[str, Any]] = []

    def cursor(self) -> "_Server":
        return self

    def __enter__(self) -> "_Server":
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def execute(self, sql: str, args: Any = None) -> None:
        self.sent.append((sql, args))
        modes = [mode for mode in str(args[0]).split(",") if mode in self.refuses]
        if modes:
            raise pymysql.err.ProgrammingError(
                1231, f"Variable 'sql_mode' can't be set to the value of '{modes[0]}'"
            )


def test_only_a_bare_word_is_ever_put_into_a_probe() -> None:
    assert bare("qualify") and bare("_x1") and not bare("123") and not bare("x`; DROP TABLE t; --")
    assert probe_sql("table", "qualify") == "SELECT 1 FROM qualify WHERE 1 = 0"
    assert probe_sql("column", "vector") == "SELECT vector FROM DUAL WHERE 1 = 0"
    with pytest.raises(ValueError, match="never sent unquoted"):
        probe_sql("table", "a b")


def test_only_names_that_parsed_on_the_old_server_are_asked_of_the_new_one() -> None:
    names = [
        Identifier(kind="table", schema_name="app", name="quoted one", old="quoted"),
        Identifier(kind="table", schema_name="app", name="offset", old="fails", words="ERROR 1064"),
    ]
    assert identifier_findings(_Server(set()), names) == []  # type: ignore[arg-type]


def test_each_refused_sql_mode_value_is_named_with_the_servers_words_and_the_rest_set_again() -> None:
    server = _Server({"NO_AUTO_CREATE_USER", "TIME_ROUND_FRACTIONAL"})
    config = _config(sql_mode="STRICT_TRANS_TABLES,TIME_ROUND_FRACTIONAL,NO_AUTO_CREATE_USER")
    found = sql_mode_findings(server, config)  # type: ignore[arg-type]
    assert [(f.mode, f.team_sets) for f in found] == [
        ("TIME_ROUND_FRACTIONAL", True),
        ("NO_AUTO_CREATE_USER", True),
    ]
    assert "can't be set to the value of 'TIME_ROUND_FRACTIONAL'" in found[0].words
    assert server.sent[-1] == ("SET SESSION sql_mode = %s", ("STRICT_TRANS_TABLES",))  # bound, never spliced
    assert sql_mode_findings(_Server(set()), _config()) == []  # type: ignore[arg-type]


def test_defaults_changed_under_settings_left_unset_results_first_host_dependent_marked() -> None:
    config = _config(max_connections="77", histogram_type="JSON_HB")  # the team sets these two
    found = default_findings(config, NEW, {"innodb_purge_threads": "2"})
    assert [(f.name, f.affects) for f in found] == [
        ("innodb_snapshot_isolation", "results"),
        ("innodb_purge_threads", "performance"),
    ]  # histogram_type set by the team, thread_cache_size resolved at start, character set: its own
    # kind, general_log_file a path of the host, version and the instrument class count the binary's own
    purge = found[1]
    assert purge.host_dependent and purge.lab_host_value == "2" and purge.new_default == "8"


def test_a_character_set_default_that_changes_is_named_with_both_values() -> None:
    [found] = charset_findings(_config(), {"character_set_server": "utf8mb4"}, "mariadbd 11.8.9", NEW)
    assert (found.name, found.old, found.new, found.team_sets) == (
        "character_set_server",
        "latin1",
        "utf8mb4",
        False,
    )
    assert "binaries' defaults: old latin1, new utf8mb4" in found.words
    assert charset_findings(_config(), {"character_set_server": "latin1"}, "x") == []


def test_one_severity_order_across_every_kind_and_a_csv_that_holds_no_formula() -> None:
    found = ordered(
        [
            {"name": "a", "line": "a=1", "outcome": "deprecated", "words": "w"},
            {"name": "b", "line": "b=1", "outcome": "refused", "words": "=cmd()"},
            {"name": "c", "line": "c=1", "outcome": "accepted", "words": ""},
        ],
        [
            {"plugin": "mysql_native_password", "accounts": ["'l'@'%'"], "outcome": "missing", "words": "w"},
            {"plugin": "ed25519", "accounts": ["'e'@'%'"], "outcome": "available", "words": ""},
        ],
        [
            {
                "kind": "table",
                "schema_name": "app",
                "table": None,
                "name": "qualify",
                "probe": "SELECT 1 FROM qualify WHERE 1 = 0",
                "words": "ERROR 1064",
            }
        ],
        [{"mode": "NO_AUTO_CREATE_USER", "team_sets": False, "words": "ERROR 1231"}],
        [
            {
                "name": "character_set_server",
                "old": "latin1",
                "new": "utf8mb4",
                "team_sets": False,
                "words": "w",
            }
        ],
        [
            {
                "name": "histogram_type",
                "old_default": "DOUBLE_PREC_HB",
                "new_default": "JSON_HB",
                "lab_host_value": None,
                "host_dependent": False,
                "affects": "performance",
            }
        ],
    )
    assert [(f.severity, f.kind) for f in found] == [
        ("does_not_start", "option"),
        ("locks_out", "account"),
        ("changes_results", "identifier"),
        ("changes_results", "sql_mode"),
        ("changes_results", "charset"),
        ("changes_performance", "default"),
        ("note", "option"),
    ]  # accepted settings and available plugins are no findings; a deprecated setting still works: a note
    assert [f.severity for f in found] == sorted((f.severity for f in found), key=SEVERITIES.index)
    rows = list(csv.DictReader(io.StringIO(csv_text(found))))
    assert rows[0]["evidence"] == "'=cmd()" and rows[2]["subject"] == "table qualify (app)"
