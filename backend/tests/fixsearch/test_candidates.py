"""Candidates from both servers' variables and the known levers, and their statement-level spelling
per flavor (no server: the variables are given as SHOW VARIABLES would)."""

import pytest

from upgradelab.fixsearch.candidates import build, plan_candidates
from upgradelab.fixsearch.effects import global_twin
from upgradelab.fixsearch.rewrite import RewriteError, apply_remedy, rewrite
from upgradelab.measurement.outcomes import PlanStep

BASE = {"optimizer_switch": "semijoin=on,materialization=on,rowid_filter=on,index_merge=on",
        "optimizer_prune_level": "1", "optimizer_search_depth": "62", "optimizer_trace": "enabled=off",
        "sort_buffer_size": "262144", "optimizer_only_on_baseline": "1"}  # fmt: skip
VARIANT = {"optimizer_switch": "semijoin=off,materialization=off,rowid_filter=on,index_merge=on",
           "optimizer_prune_level": "2", "optimizer_search_depth": "62", "optimizer_trace": "enabled=on",
           "sort_buffer_size": "2097152"}  # fmt: skip


def test_the_differing_flags_and_optimizer_variables_come_first_set_back_to_the_baselines_values() -> None:
    found = build("mariadb", BASE, VARIANT)
    differs = [c for c in found if c.source == "differs"]
    assert [c.settings for c in differs] == [
        {"optimizer_switch": "materialization=on"},
        {"optimizer_switch": "semijoin=on"},
        {"optimizer_switch": "materialization=on,semijoin=on"},
        {"optimizer_prune_level": "1"},
    ]  # not the trace (it records, it does not plan), not a non-optimizer variable, not one side's own
    assert differs[1].baseline == "on" and differs[1].variant == "off"
    assert differs[1].apply == "SET STATEMENT optimizer_switch='semijoin=on' FOR <statement>"
    assert found[: len(differs)] == differs


def test_the_known_levers_follow_flipped_from_the_variants_values_without_repeating_a_differing_one() -> None:
    levers = [c for c in build("mariadb", BASE, VARIANT) if c.source == "lever"]
    settings = [c.settings for c in levers]
    assert {"optimizer_switch": "rowid_filter=off"} in settings  # on on the variant: flipped
    assert {"optimizer_use_condition_selectivity": "1"} in settings
    assert {"optimizer_prune_level": "1"} not in settings  # already a `differs` candidate
    mysql = build(
        "mysql",
        {"optimizer_switch": "prefer_ordering_index=on"},
        {"optimizer_switch": "prefer_ordering_index=on"},
    )
    assert [c.settings for c in mysql][:2] == [
        {"optimizer_switch": "hypergraph_optimizer=on"},  # absent on the variant: tried, the server decides
        {"optimizer_switch": "prefer_ordering_index=off"},
    ]
    assert mysql[1].apply == "/*+ SET_VAR(optimizer_switch='prefer_ordering_index=off') */"


def test_a_remedy_is_written_into_the_statement_in_each_flavors_syntax() -> None:
    settings = {"optimizer_switch": "semijoin=on", "eq_range_index_dive_limit": "0"}
    sql = "SELECT a FROM t WHERE b IN (SELECT c FROM u)"
    assert rewrite(sql, "mariadb", settings) == (
        "SET STATEMENT optimizer_switch='semijoin=on', eq_range_index_dive_limit=0 FOR " + sql
    )
    assert rewrite(sql, "mysql", settings) == (
        "SELECT /*+ SET_VAR(optimizer_switch='semijoin=on') SET_VAR(eq_range_index_dive_limit=0) */ a "
        "FROM t WHERE b IN (SELECT c FROM u)"
    )
    # an existing hint comment takes the hints inside it (MySQL reads the first comment only)
    assert rewrite("select /*+ NO_ICP(t) */ a from t", "mysql", {"x": "1"}) == (
        "select /*+ SET_VAR(x=1) NO_ICP(t) */ a from t"
    )
    assert (
        rewrite("SELECT 'it''s'", "mariadb", {"v": "a'b\\c"})
        == "SET STATEMENT v='a''b\\\\c' FOR SELECT 'it''s'"
    )


def test_what_cannot_carry_a_remedy_is_refused_with_the_reason() -> None:
    with pytest.raises(RewriteError, match="starts 'WITH'"):
        rewrite("WITH x AS (SELECT 1) SELECT * FROM x", "mysql", {"optimizer_switch": "semijoin=on"})
    with pytest.raises(RewriteError, match="not a variable name"):
        rewrite("SELECT 1", "mariadb", {"a=1; DROP": "1"})


def _plan(*steps: tuple[str, str | None]) -> list[PlanStep]:
    return [PlanStep(table, "ref" if key else "ALL", key, 10.0) for table, key in steps]


def test_the_baselines_index_becomes_a_plan_hint_where_the_variant_uses_another() -> None:
    base = _plan(("c", "PRIMARY"), ("o", "k_customer"), ("<subquery2>", "distinct_key"))
    var = _plan(("o", None), ("c", "PRIMARY"), ("<subquery2>", None))
    found, order = plan_candidates("mysql", base, var)  # the variant joins in another order too: after it
    assert found.source == "plan" and found.indexes == {"o": "k_customer"} and order.join_order == ["c", "o"]
    assert found.apply == "/*+ INDEX(o k_customer) */"
    assert "k_customer on the baseline, none on the variant" in found.note
    assert plan_candidates("mysql", base, base) == []
    sql = "SELECT o.id FROM orders AS o JOIN customers c ON c.id = o.customer_id WHERE o.total > 5"
    assert apply_remedy(sql, "mysql", {}, found.indexes) == (
        "SELECT /*+ INDEX(o k_customer) */ o.id FROM orders AS o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.total > 5"
    )
    assert apply_remedy(sql, "mariadb", {}, found.indexes) == (
        "SELECT o.id FROM orders AS o FORCE INDEX (`k_customer`) JOIN customers c ON c.id = o.customer_id "
        "WHERE o.total > 5"
    )
    # a table named, not aliased, and a statement that names the table twice
    assert apply_remedy("SELECT * FROM o WHERE k = 1", "mariadb", {}, {"o": "k"}) == (
        "SELECT * FROM o FORCE INDEX (`k`) WHERE k = 1"
    )
    with pytest.raises(RewriteError, match="referenced 2 times"):
        apply_remedy("SELECT * FROM o WHERE k IN (SELECT k FROM o)", "mariadb", {}, {"o": "k"})


def test_the_baselines_join_order_becomes_a_plan_hint_where_the_variant_joins_in_another() -> None:
    base = _plan(("c", "PRIMARY"), ("o", "k_customer"), ("<subquery2>", None))
    var = _plan(("o", "k_customer"), ("<subquery2>", None), ("c", "PRIMARY"))
    (mysql,) = plan_candidates("mysql", base, var)
    assert mysql.source == "plan" and mysql.join_order == ["c", "o"] and mysql.settings == {}
    assert mysql.apply == "/*+ JOIN_ORDER(c, o) */" and mysql.extra == {"join_order": ["c", "o"]}
    assert mysql.note == "the baseline joins c, o; the variant o, c"
    (mariadb,) = plan_candidates("mariadb", base, var)
    assert mariadb.apply == "SELECT STRAIGHT_JOIN ... FROM c, o (the FROM list in this order)"
    # the same order, other tables, one table, a self-join under one name: nothing to write
    assert plan_candidates("mysql", base, base) == []
    assert plan_candidates("mysql", base, _plan(("o", "k_customer"), ("x", None))) == []
    assert plan_candidates("mysql", _plan(("o", None)), _plan(("o", None))) == []
    assert plan_candidates("mysql", _plan(("o", None), ("o", None)), _plan(("o", None), ("o", None))) == []
    # another index and another order: both candidates, the index first
    both = plan_candidates("mysql", base, _plan(("o", None), ("c", "PRIMARY")))
    assert [c.name for c in both] == ["the baseline's index o.k_customer", "the baseline's join order c, o"]
    # it is not a setting: no global twin
    assert global_twin(mysql) is None


def test_a_join_order_is_written_as_the_flavors_hint_or_refused_where_unsafe() -> None:
    sql = "SELECT o.id FROM orders AS o, customers c WHERE c.id = o.customer_id ORDER BY o.id LIMIT 5"
    assert apply_remedy(sql, "mysql", {}, {}, ["c", "o"]) == (
        "SELECT /*+ JOIN_ORDER(c, o) */ o.id FROM orders AS o, customers c WHERE c.id = o.customer_id "
        "ORDER BY o.id LIMIT 5"
    )
    assert apply_remedy(sql, "mariadb", {}, {}, ["c", "o"]) == (
        "SELECT STRAIGHT_JOIN o.id FROM customers c, orders AS o WHERE c.id = o.customer_id "
        "ORDER BY o.id LIMIT 5"
    )
    # with settings too: the hint and SET_VAR in one comment; SET STATEMENT around the reordered SELECT
    assert apply_remedy("SELECT * FROM a, b", "mysql", {"x": "1"}, {}, ["b", "a"]) == (
        "SELECT /*+ SET_VAR(x=1) JOIN_ORDER(b, a) */ * FROM a, b"
    )
    assert apply_remedy("SELECT * FROM db.a, b;", "mariadb", {"x": "1"}, {}, ["b", "a"]) == (
        "SET STATEMENT x=1 FOR SELECT STRAIGHT_JOIN * FROM b, db.a;"
    )
    # MariaDB: where moving a reference is not safe, the statement cannot carry it, saying why
    refused = {
        "SELECT * FROM a JOIN b ON a.id = b.id": "joins with JOIN",
        "SELECT * FROM a LEFT JOIN b USING (id)": "joins with JOIN",
        "SELECT * FROM a, b WHERE a.k IN (SELECT k FROM c)": "subquery",
        "SELECT * FROM a, b UNION SELECT * FROM a, b": "subquery or a UNION",
        "SELECT * FROM a FORCE INDEX (k), b": "not a plain table reference",
        "SELECT * FROM a, b, c": "the plan joins",
        "UPDATE a, b SET a.x = b.x": "not one",
    }
    for statement, reason in refused.items():
        with pytest.raises(RewriteError, match=reason):
            apply_remedy(statement, "mariadb", {}, {}, ["b", "a"])
    with pytest.raises(RewriteError, match="not a table name"):
        apply_remedy("SELECT * FROM a, b", "mysql", {}, {}, ["b", "a) */ DROP"])
