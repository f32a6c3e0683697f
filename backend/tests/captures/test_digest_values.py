"""A digest text bound to values of its columns (captures/digest_values.py), without a server: where
each placeholder stands (a comparison, a list, a range, LIMIT/OFFSET), which table its column is
read in (its qualifier's table or alias first), what leaves a digest unbound, and the query set a
replay takes from a MariaDB capture whose history was off (every digest a digest text)."""

from upgradelab.captures.digest_values import bind, slots, tables
from upgradelab.captures.digests import Digest, Workload, count_replayable, query_set
from upgradelab.captures.own_statements import is_own

VALUES = {("app", "qualify", "id"): "1", ("db", "o", "k"): "602", ("app", "i", "d"): "'x'"}
ASKED: list[tuple[str, str, str]] = []


def _value_of(schema: str, table: str, column: str) -> str | None:
    ASKED.append((schema, table, column))
    return VALUES.get((schema, table, column))


def _digest(text: str, source: str = "digest_text", schema: str | None = "db") -> Digest:
    return Digest.model_validate(
        {"digest": "d1", "schema_name": schema, "text": text, "text_source": source, "digest_text": text,
         "executions": 3, "weight": 1.0, "total_s": None, "avg_s": None, "max_s": None, "p95_s": None,
         "p99_s": None, "rows_sent": None, "rows_examined": None}
    )  # fmt: skip


def test_a_comparison_a_list_a_range_and_a_limit_are_bound_in_the_tables_the_statement_names() -> None:
    text = (
        "SELECT * FROM `o` AS `x` JOIN `app` . `i` `y` ON `x` . `k` = `y` . `c` WHERE `x` . `k` IN (...) "
        "AND `y` . `d` NOT BETWEEN ? AND ? ORDER BY `x` . `id` LIMIT ? , ?"
    )
    assert [(s.qualifier, s.column, s.listed, s.text) for s in slots(text) or []] == [
        ("x", "k", True, ""), ("y", "d", False, ""), ("y", "d", False, ""), (None, None, False, "0"),
        (None, None, False, "10"),
    ]  # fmt: skip
    assert [(t.schema, t.name, t.alias) for t in tables(text)] == [(None, "o", "x"), ("app", "i", "y")]
    assert bind(_digest(text), _value_of, None) == (
        "SELECT * FROM `o` AS `x` JOIN `app` . `i` `y` ON `x` . `k` = `y` . `c` WHERE `x` . `k` IN(602) "
        "AND `y` . `d` NOT BETWEEN 'x' AND 'x' ORDER BY `x` . `id` LIMIT 0 , 10"
    )


def test_an_unqualified_column_is_read_in_each_table_until_one_has_a_value() -> None:
    ASKED.clear()
    text = "SELECT `vector` FROM `app` . `other` , `app` . `qualify` WHERE `id` = ? LIMIT ? OFFSET ?"
    assert bind(_digest(text), _value_of, None) == (
        "SELECT `vector` FROM `app` . `other` , `app` . `qualify` WHERE `id` = 1 LIMIT 10 OFFSET 0"
    )
    assert ASKED == [("app", "other", "id"), ("app", "qualify", "id")]


def test_what_cannot_be_bound_leaves_the_digest_out_of_the_replay() -> None:
    unbound = [
        "SELECT `a` FROM `t` WHERE ? = `a`",  # a placeholder before its column
        "SELECT `a` FROM `t` WHERE `a` = ? + ?",  # an expression
        "SELECT `a` FROM `t` WHERE `missing` = ?",  # no value read (no table has it)
        "SELECT `a` FROM `t` WHERE `a` = ?",  # no schema: none given, none known
        "SELECT `a` FROM `t` WHERE `a` = `b` AND `c` IN ( ? , ...",  # cut by the server
    ]
    for text in unbound:
        assert bind(_digest(text, schema=None), _value_of, None) is None, text
    assert (
        bind(_digest("SELECT `id` FROM `app` . `qualify` WHERE `id` = ?", source="history"), _value_of, None)
        is None
    )
    # a digest text without placeholders runs as it is, but for its calls
    plain = "SELECT `o` . `id` FROM `o` WHERE `o` . `k` IN ( SELECT `i` . `c` FROM `i` )"
    assert bind(_digest(plain), _value_of, None) == plain.replace("IN (", "IN(")


def test_a_function_call_is_joined_to_its_parenthesis_as_the_server_reads_a_built_in() -> None:
    # sysbench's digest on 10.11: `SUM ( k )` runs as a call of a stored function sbtest.SUM
    text = "SELECT SUM ( `k` ) , COUNT ( * ) FROM `sbtest1` WHERE ID BETWEEN ? AND ? AND `f ( x )` = ?"
    assert (
        bind(_digest(text, schema="sbtest"), lambda s, t, c: {"ID": "7", "f ( x )": None}.get(c), None)
        is None
    )
    values = {"ID": "7", "c": "'a ( b )'"}
    text = "SELECT SUM ( `k` ) , COUNT ( * ) FROM `sbtest1` WHERE ID BETWEEN ? AND ? AND `c` = ?"
    assert bind(_digest(text, schema="sbtest"), lambda s, t, c: values.get(c), None) == (
        "SELECT SUM( `k` ) , COUNT( * ) FROM `sbtest1` WHERE ID BETWEEN 7 AND 7 AND `c` = 'a ( b )'"
    )


def test_a_capture_without_statement_history_gives_the_replay_its_bound_digests() -> None:
    bound, unbound = (
        _digest("SELECT `vector` FROM `app` . `qualify` WHERE `id` = ?"),
        _digest("SELECT `a` FROM `t` WHERE ? = `a`"),
    )
    unbound.digest, unbound.executions, unbound.weight = "d2", 1, 0.25
    bound.bound_text = bind(bound, _value_of, None)
    workload = Workload(digests=[bound, unbound], executions=4, quantiles=False, samples=False, limit=1000)
    count_replayable(workload)
    assert (workload.replayable, workload.empty) == (1, False)
    assert query_set(workload) == (
        "-- digest d1 executions 3 weight 1.000000 (digest text, values read from its columns)\n"
        "USE `db`;\n"
        "SELECT `vector` FROM `app` . `qualify` WHERE `id` = 1;\n"
    )


def test_the_value_read_is_one_of_the_labs_own_statements_in_the_next_capture() -> None:
    assert is_own("SELECT `id` FROM `app` . `qualify` WHERE `id` IS NOT NULL LIMIT ?")
    assert not is_own("SELECT `id` FROM `app` . `qualify` WHERE `id` = ?")
