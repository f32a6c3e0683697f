"""The baseline's semijoin / subquery strategy as a plan candidate, from the lab servers' own EXPLAIN
FORMAT=JSON (tests/fixsearch/plans/, taken once from MySQL 9.7 and MariaDB 11.8 on
`SELECT o.id FROM o WHERE o.k IN (SELECT i.c FROM i WHERE i.d < 50)` (o.k indexed, i.c not) and its
reverse `SELECT i.id FROM i WHERE i.d < 3 AND i.c IN (SELECT o.k FROM o)` under optimizer_switch
settings that leave one strategy each: `none` is semijoin=off,materialization=off, the dependent
subquery the issue plants); the hint's spelling and the candidates' order and deduplication."""

import json
from pathlib import Path
from typing import Any

import pytest

from upgradelab.fixsearch.candidates import build
from upgradelab.fixsearch.evidence import gathered, scoped
from upgradelab.fixsearch.indexes import Schema
from upgradelab.fixsearch.rewrite import RewriteError, apply_remedy, subquery_hint
from upgradelab.fixsearch.strategies import SUBQUERY_MATERIALIZATION, strategies, strategy_candidate
from upgradelab.measurement.outcomes import Outcome

PLANS = Path(__file__).parent / "plans"
QUERY = "SELECT o.id FROM o WHERE o.k IN (SELECT i.c FROM i WHERE i.d < 50)"
ON = {"optimizer_switch": "semijoin=on,materialization=on,firstmatch=on,loosescan=on"}
OFF = {"optimizer_switch": "semijoin=off,materialization=off,firstmatch=on,loosescan=on"}


def plan(name: str) -> Any:
    return json.loads((PLANS / f"{name}.json").read_text())


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mysql-materialization", {"materialization"}),
        ("mysql-firstmatch", {"firstmatch"}),
        ("mysql-loosescan", {"loosescan"}),
        ("mysql-duplicateweedout", {"duplicateweedout"}),
        ("mysql-subquery-materialization", {SUBQUERY_MATERIALIZATION}),
        ("mysql-none", set()),
        ("mariadb-materialization", {"materialization"}),
        ("mariadb-firstmatch", {"firstmatch"}),
        ("mariadb-duplicateweedout", {"duplicateweedout"}),
        ("mariadb-subquery-materialization", {SUBQUERY_MATERIALIZATION}),
        ("mariadb-none", set()),
    ],
)
def test_each_servers_plan_names_its_strategy(name: str, expected: set[str]) -> None:
    assert strategies(plan(name)) == expected


def test_mysql_asks_for_the_baselines_semijoin_strategy_in_the_subquerys_block() -> None:
    found = strategy_candidate("mysql", plan("mysql-materialization"), plan("mysql-none"), OFF)
    assert found is not None and found.source == "plan" and found.settings == {}
    assert found.subquery_hint == "SEMIJOIN(MATERIALIZATION)"
    assert "materialization" in found.note and "none" in found.note
    assert apply_remedy(QUERY, "mysql", {}, {}, None, found.subquery_hint) == (
        "SELECT o.id FROM o WHERE o.k IN (SELECT /*+ SEMIJOIN(MATERIALIZATION) */ i.c FROM i WHERE i.d < 50)"
    )
    weedout = strategy_candidate("mysql", plan("mysql-duplicateweedout"), plan("mysql-firstmatch"), ON)
    assert weedout is not None and weedout.subquery_hint == "SEMIJOIN(DUPSWEEDOUT)"
    subquery = strategy_candidate("mysql", plan("mysql-subquery-materialization"), plan("mysql-none"), OFF)
    assert subquery is not None and subquery.subquery_hint == "SUBQUERY(MATERIALIZATION)"


def test_no_candidate_when_the_variant_uses_the_baselines_strategy_or_the_baseline_none() -> None:
    assert strategy_candidate("mysql", plan("mysql-firstmatch"), plan("mysql-firstmatch"), ON) is None
    assert strategy_candidate("mysql", plan("mysql-none"), plan("mysql-materialization"), ON) is None
    assert strategy_candidate("mysql", None, None, ON) is None


def test_mariadb_sets_back_only_the_strategys_flags_the_variant_has_off() -> None:
    found = strategy_candidate("mariadb", plan("mariadb-materialization"), plan("mariadb-none"), OFF)
    assert found is not None and found.subquery_hint == ""
    assert found.settings == {"optimizer_switch": "materialization=on,semijoin=on"}
    assert found.apply == "SET STATEMENT optimizer_switch='materialization=on,semijoin=on' FOR <statement>"
    own = {"optimizer_switch": "semijoin=on,firstmatch=off,materialization=on"}
    first = strategy_candidate("mariadb", plan("mariadb-firstmatch"), plan("mariadb-none"), own)
    assert first is not None and first.settings == {"optimizer_switch": "firstmatch=on"}
    # every flag on already: the optimizer chose otherwise by cost, MariaDB has no hint to force it
    assert (
        strategy_candidate("mariadb", plan("mariadb-materialization"), plan("mariadb-firstmatch"), ON) is None
    )


def _schema(columns: dict[str, set[str]]) -> Schema:
    """The dataset's columns, with no view, no index and no type known."""
    return Schema(columns, {}, {}, {})


def _outcome(name: str) -> Outcome:
    return Outcome(None, None, plan_json=plan(name))


def test_the_strategy_is_tried_with_the_plan_hints_before_the_settings_and_not_twice() -> None:
    mysql = gathered(
        "mysql",
        QUERY,
        (_outcome("mysql-materialization"), _outcome("mysql-none")),
        (ON, OFF),
        _schema({}),
        "db",
    )
    assert [c.source for c in mysql][:2] == ["plan", "differs"]
    assert mysql[0].subquery_hint == "SEMIJOIN(MATERIALIZATION)"
    # MariaDB: both flags differ, so "materialization=on,semijoin=on" is a differs candidate already
    mariadb = gathered("mariadb", QUERY, (_outcome("mariadb-materialization"), _outcome("mariadb-none")),
                       (ON, OFF), _schema({}), "db")  # fmt: skip
    assert [c for c in mariadb if c.source == "plan"] == []
    assert mariadb == build("mariadb", ON, OFF)
    # a third flag differs too: the strategy's two flags together are new evidence, tried first
    more = {"optimizer_switch": OFF["optimizer_switch"] + ",rowid_filter=off"}
    base = {"optimizer_switch": ON["optimizer_switch"] + ",rowid_filter=on"}
    outcomes = (_outcome("mariadb-materialization"), _outcome("mariadb-none"))
    first = gathered("mariadb", QUERY, outcomes, (base, more), _schema({}), "db")
    assert first[0].source == "plan"
    assert first[0].settings == {"optimizer_switch": "materialization=on,semijoin=on"}
    assert [c.settings for c in first if c.source == "differs"][-1] == {
        "optimizer_switch": "materialization=on,rowid_filter=on,semijoin=on"
    }


def test_the_strategy_hint_goes_into_every_in_or_exists_subquery_and_joins_an_existing_hint() -> None:
    two = "SELECT a FROM t WHERE b IN (select c FROM u) AND EXISTS ( SELECT /*+ NO_ICP(v) */ 1 FROM v)"
    assert subquery_hint(two, "SEMIJOIN(FIRSTMATCH)") == (
        "SELECT a FROM t WHERE b IN (select /*+ SEMIJOIN(FIRSTMATCH) */ c FROM u) AND EXISTS "
        "( SELECT /*+ SEMIJOIN(FIRSTMATCH) NO_ICP(v) */ 1 FROM v)"
    )
    with pytest.raises(RewriteError, match="no IN or EXISTS subquery"):
        subquery_hint("SELECT a FROM t WHERE b IN (1, 2)", "SEMIJOIN(FIRSTMATCH)")
    with pytest.raises(RewriteError, match="mariadb"):
        apply_remedy(QUERY, "mariadb", {}, {}, None, "SEMIJOIN(FIRSTMATCH)")


def test_a_scope_takes_its_candidates() -> None:
    found = gathered("mysql", QUERY, (_outcome("mysql-materialization"), _outcome("mysql-none")), (ON, OFF),
                     _schema({"o": {"id", "k"}, "i": {"id", "c", "d"}}), "db")  # fmt: skip
    assert found[-1].source == "statistics" and found[-1].scope == "global"
    assert "statistics" not in {c.source for c in scoped(found, "statement")}
    global_only = scoped(found, "global")
    assert all(c.scope == "global" for c in global_only) and global_only[-1].source == "statistics"
    assert not any(c.subquery_hint for c in global_only)  # a hint has no global twin
    assert scoped(found, "both") == found
