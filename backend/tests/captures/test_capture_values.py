"""How a capture reads what a server says, without a server: the defaults table of a binary's help,
a variable against its default in the spellings the servers use, the host facts, and the digests
made into a query set a replay takes (texts chosen, weights, what is left out)."""

from typing import Any

from upgradelab.captures import configuration
from upgradelab.captures.account_check import plugin_findings
from upgradelab.captures.defaults import BinaryDefaults, parse_defaults, same_value, series
from upgradelab.captures.digests import Workload, build, query_set
from upgradelab.captures.option_check import refused, warnings_of
from upgradelab.measurement.sources import parse_source

HELP = """/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)

  --max-connections=# The number of simultaneous clients allowed

Variables (--variable-name=value)
and boolean options {FALSE|TRUE}                             Value (after reading options)
------------------------------------------------------------ -------------
datadir                                                      /var/lib/mysql/
init-file                                                    (No default value)
innodb-adaptive-hash-index                                   FALSE
log-error
max-connections                                              151
sql-mode                                                     STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION
thread-pool-size                                             2

To see what variables a running server is using, type
'SELECT * FROM INFORMATION_SCHEMA.GLOBAL_VARIABLES' instead of 'mysqld --verbose --help'.
"""


def test_the_help_table_gives_each_default_by_its_underscored_name_none_for_no_default() -> None:
    found = parse_defaults(HELP)
    assert (
        found.server == "mariadbd 10.11.19-MariaDB-0+deb12u1"
        and found.version == "10.11.19-MariaDB-0+deb12u1"
    )
    assert found.values == {
        "datadir": "/var/lib/mysql/",
        "init_file": None,
        "innodb_adaptive_hash_index": "FALSE",
        "log_error": "",
        "max_connections": "151",
        "sql_mode": "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
        "thread_pool_size": "2",
    }  # the closing words after the table are not variables


def test_spellings_of_one_value_are_the_same_and_other_values_differ() -> None:
    assert same_value("innodb_adaptive_hash_index", "OFF", "FALSE")
    assert same_value("datadir", "/var/lib/mysql", "/var/lib/mysql/")
    assert same_value(
        "sql_mode", "NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
    )
    assert not same_value("sql_mode", "STRICT_TRANS_TABLES", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION")
    assert not same_value("max_connections", "77", "151")
    assert series("10.11.19-MariaDB-log") == "10.11" and series("9.7.0") == "9.7" and series("x") == ""


def test_a_variable_is_marked_only_against_a_known_default_and_host_dependent_ones_say_so() -> None:
    defaults = parse_defaults(HELP)
    variables = {
        "max_connections": "77",
        "innodb_adaptive_hash_index": "OFF",
        "init_file": "",
        "hostname": "db1; rm -rf /",  # a value is text, whatever it says
        "thread_pool_size": "64",
    }
    config = configuration.build("mariadb", "10.11.19-MariaDB", "", variables, defaults, None)
    marked = {v.name: (v.comparison, v.default, v.host_dependent) for v in config.variables}
    assert marked == {
        "hostname": ("unknown", None, True),
        "init_file": ("unknown", None, False),
        "innodb_adaptive_hash_index": ("default", "FALSE", False),
        "max_connections": ("differs", "151", False),
        "thread_pool_size": ("differs", "2", True),
    }
    assert config.differs == 2 and config.host.hostname == "db1; rm -rf /"
    assert config.host.cpus == 64 and "differs from the lab host" in config.host.cpus_from
    unknown = configuration.build("mysql", "8.0.36", "", {"max_connections": "77"}, None, None)
    assert [v.comparison for v in unknown.variables] == ["unknown"] and unknown.host.cpus is None


def _row(digest: str, count: int, **more: Any) -> dict[str, Any]:
    return {
        "SCHEMA_NAME": "app",
        "DIGEST": digest,
        "DIGEST_TEXT": f"SELECT ? /* {digest} */",
        "COUNT_STAR": count,
        "SUM_TIMER_WAIT": count * 2_000_000_000,
        "AVG_TIMER_WAIT": 2_000_000_000,
        "MAX_TIMER_WAIT": 5_000_000_000,
        "SUM_ROWS_SENT": count,
        "SUM_ROWS_EXAMINED": count,
        **more,
    }


def test_digest_texts_come_from_the_sample_then_the_history_then_the_digest_text_marked() -> None:
    rows = [
        _row(
            "a",
            6,
            QUERY_SAMPLE_TEXT="SELECT 1 FROM t WHERE id = 5",
            QUANTILE_95=3_000_000_000,
            QUANTILE_99=None,
        ),
        _row("b", 3, QUERY_SAMPLE_TEXT="", QUANTILE_95=None, QUANTILE_99=None),
        _row("c", 1, QUERY_SAMPLE_TEXT=None, QUANTILE_95=None, QUANTILE_99=None),
    ]
    workload = build(rows, {"b": "SELECT name FROM t WHERE id = 9"}, limit=1000)
    assert [(d.digest, d.text_source, d.executions) for d in workload.digests] == [
        ("a", "sample", 6), ("b", "history", 3), ("c", "digest_text", 1)
    ]  # fmt: skip
    assert workload.executions == 10 and workload.quantiles and workload.samples
    first = workload.digests[0]
    assert (first.weight, first.avg_s, first.max_s, first.p95_s, first.p99_s) == (
        0.6,
        0.002,
        0.005,
        0.003,
        None,
    )


def test_the_query_set_holds_replayable_texts_most_executed_first_and_a_replay_reads_it() -> None:
    hostile = "SELECT 1; DROP TABLE t"  # two statements in one sample: never split into a replay's set
    rows = [
        _row("low", 2, QUERY_SAMPLE_TEXT="SELECT 2 FROM t"),
        _row("high", 9, QUERY_SAMPLE_TEXT="SELECT 9 FROM t;"),
        _row("cut", 5, QUERY_SAMPLE_TEXT=hostile),
        _row("none", 7, QUERY_SAMPLE_TEXT=None),
    ]
    text = query_set(build(rows, {}, limit=1000))
    assert "DROP" not in text and "SELECT ?" not in text
    parsed = parse_source(text, fmt="sql")
    assert [(s.sql, s.database) for s in parsed.statements] == [
        ("SELECT 9 FROM t", "app"),
        ("SELECT 2 FROM t", "app"),
    ]
    assert "-- digest high executions 9 weight 0.391304" in text
    assert query_set(Workload(digests=[], executions=0, quantiles=False, samples=False, limit=1)) == ""


def test_defaults_of_another_binary_are_kept_with_where_they_came_from() -> None:
    origin = configuration.DefaultsFrom(target="mariadb-10.11", server="mariadbd 10.11.19", match="series")
    config = configuration.build(
        "mariadb",
        "10.11.6-MariaDB",
        "",
        {"max_connections": "151"},
        BinaryDefaults("m", "10.11.19", {"max_connections": "151"}),
        origin,
    )
    assert config.defaults_from == origin and config.variables[0].comparison == "default"


def test_numbers_compare_by_value_and_optimizer_switch_by_the_flags_the_default_names() -> None:
    assert same_value("long_query_time", "10.000000", "10") and not same_value("long_query_time", "2", "10")
    assert same_value("optimizer_switch", "mrr=off,new_flag=on,index_merge=on", "index_merge=on,mrr=off")
    assert not same_value("optimizer_switch", "mrr=on,index_merge=on", "index_merge=on,mrr=off")
    row = "thread-pool-size" + " " * 45 + "2"
    autosized = parse_defaults(HELP.replace(row, "performance-schema-digests-size" + " " * 30 + "-1"))
    assert autosized.values["performance_schema_digests_size"] == "-1"
    config = configuration.build(
        "mariadb", "10.11.19", "", {"performance_schema_digests_size": "5000"}, autosized, None
    )
    assert config.variables[0].comparison == "unknown"  # -1: autosized at start, no default to compare


def test_each_refusal_takes_out_the_option_it_names_and_the_rest_are_asked_again() -> None:
    words = {"max-tmp-tables": "[ERROR] mariadbd: unknown variable 'max-tmp-tables=40'",
             "old-alter-table": "[ERROR] mariadbd: unknown variable 'old-alter-table=COPY'"}  # fmt: skip
    asked: list[list[str]] = []

    def ask(lines: list[str]) -> str | None:
        asked.append(lines)
        return next((words[line.split("=")[0]] for line in lines if line.split("=")[0] in words), None)

    lines = [("max_tmp_tables", "max-tmp-tables=40"), ("max_connections", "max-connections=77"),
             ("old_alter_table", "old-alter-table=COPY")]  # fmt: skip
    found, taken = refused(ask, lines)
    assert [(f.name, f.outcome, f.words) for f in found] == [
        ("max_tmp_tables", "refused", words["max-tmp-tables"]),
        ("old_alter_table", "refused", words["old-alter-table"]),
    ]
    assert taken == [("max_connections", "max-connections=77")] and len(asked) == 3
    # words that name no line: what is left is refused together, never taken
    found, taken = refused(lambda _: "[ERROR] Aborting: out of memory", lines[:1])
    assert taken == [] and found[0].words.startswith("refused together")


def test_warnings_are_tied_to_the_option_they_name_whole() -> None:
    log = (
        "[Warning] 'innodb-change-buffering' was removed. It does nothing now\n"
        "[Note] InnoDB: innodb_change_buffering_debug is off\n"
        "[Warning] something else entirely\n"
    )
    lines = [
        ("innodb_change_buffering", "innodb-change-buffering=all"),
        ("max_connections", "max-connections=77"),
    ]
    assert warnings_of(log, lines) == {
        "innodb_change_buffering": "[Warning] 'innodb-change-buffering' was removed. It does nothing now"
    }


def test_accounts_are_grouped_by_plugin_and_one_the_new_server_lacks_locks_them_out() -> None:
    accounts = [
        {"user": "app", "host": "%", "plugin": "mysql_native_password"},
        {"user": "ops", "host": "10.%", "plugin": "ed25519"},
        {"user": "new", "host": "%", "plugin": "caching_sha2_password"},
        {"user": "old", "host": "localhost", "plugin": "mysql_native_password"},
    ]
    found = plugin_findings(
        accounts, {"caching_sha2_password"}, {"ed25519": "auth_ed25519.so"}, "mysqld 9.7.0"
    )
    assert [(f.plugin, f.outcome, f.accounts) for f in found] == [
        ("mysql_native_password", "missing", ["'app'@'%'", "'old'@'localhost'"]),
        ("ed25519", "not_loaded", ["'ops'@'10.%'"]),
        ("caching_sha2_password", "available", ["'new'@'%'"]),
    ]
    assert "mysqld 9.7.0 has no authentication plugin 'mysql_native_password'" in found[0].words
