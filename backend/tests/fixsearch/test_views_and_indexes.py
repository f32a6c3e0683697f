"""Issue 46, Deliver 5 and 6, apart from a server: a statement over a view gets the view's body (as
MariaDB 11.8 and MySQL print it in information_schema.VIEWS) rewritten with the baseline's join order
and indexes, and inlined where the variant merges it; the columns it filters on are followed through
the view to an index candidate where none covers the column the baseline's plan started from; the
candidates come in evidence order, and a body that cannot carry the order says why. The real-server
case is test_fix_views_on_mariadb.py."""

import pytest

from upgradelab.fixsearch.evidence import gathered
from upgradelab.fixsearch.indexes import Schema, filtered_through_views, index_candidates, view_columns
from upgradelab.fixsearch.rewrite import RewriteError, literal
from upgradelab.fixsearch.views import View, inline, inlined_candidate, parse_body, view_candidate
from upgradelab.measurement.outcomes import Outcome, PlanStep

# MariaDB 11.8's VIEW_DEFINITION of a Sakila-like customer_list
MARIADB = (
    "select `cu`.`customer_id` AS `ID`,concat(`cu`.`first_name`,' ',`cu`.`last_name`) AS `name`,"
    "`a`.`address` AS `address`,`sak`.`city`.`city` AS `city`,`sak`.`country`.`country` AS `country` "
    "from (((`sak`.`customer` `cu` join `sak`.`address` `a` on(`cu`.`address_id` = `a`.`address_id`)) "
    "join `sak`.`city` on(`a`.`city_id` = `sak`.`city`.`city_id`)) join `sak`.`country` "
    "on(`sak`.`city`.`country_id` = `sak`.`country`.`country_id`))"
)
# MySQL's spelling of a view with an outer join: ON((...)), LEFT JOIN
MYSQL_OUTER = (
    "select `cu`.`customer_id` AS `ID` from (`sak`.`customer` `cu` left join `sak`.`address` `a` "
    "on((`cu`.`address_id` = `a`.`address_id`)))"
)
COLUMNS = ["ID", "name", "address", "city", "country"]
CREATE = (
    "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `customer_list` AS "
    + MARIADB
)
VIEW = View("sak", "customer_list", MARIADB, COLUMNS, CREATE)
BASELINE = [
    PlanStep("country", "ALL", None, 109),
    PlanStep("city", "ref", "idx_fk_country_id", 5),
    PlanStep("a", "ref", "idx_fk_city_id", 1),
    PlanStep("cu", "ref", "idx_fk_address_id", 1),
]
VARIANT = [
    PlanStep("cu", "ALL", None, 599),
    PlanStep("a", "eq_ref", "PRIMARY", 1),
    PlanStep("city", "eq_ref", "PRIMARY", 1),
    PlanStep("country", "eq_ref", "PRIMARY", 1),
]
QUERY = "SELECT * FROM customer_list WHERE country = 'Country007'"
SCHEMA = Schema(
    columns={
        "customer_list": set(COLUMNS),
        "customer": {"customer_id", "first_name", "last_name", "address_id"},
        "address": {"address_id", "address", "city_id"},
        "city": {"city_id", "city", "country_id"},
        "country": {"country_id", "country"},
    },
    views={"customer_list": VIEW},
    indexes={
        "customer": [["customer_id"], ["address_id"]],
        "address": [["address_id"], ["city_id"]],
        "city": [["city_id"], ["country_id"]],
        "country": [["country_id"]],
    },
    types={("country", "country"): "varchar"},
)


def test_the_view_body_is_read_with_its_tables_conditions_and_items() -> None:
    body = parse_body(MARIADB)
    assert [(t.name, t.alias) for t in body.tables] == [
        ("customer", "cu"),
        ("address", "a"),
        ("city", None),
        ("country", None),
    ]
    assert body.conditions[0] == "(`cu`.`address_id` = `a`.`address_id`)"
    assert body.items[1] == "concat(`cu`.`first_name`,' ',`cu`.`last_name`) AS `name`"  # as written
    assert view_columns(VIEW)["country"] == ("country", "country")
    assert "name" not in view_columns(VIEW)  # an expression: no column to follow
    with pytest.raises(RewriteError, match="LEFT"):
        parse_body(MYSQL_OUTER)


def test_the_view_is_rewritten_in_the_baseline_join_order_with_its_undo() -> None:
    candidate = view_candidate(VIEW, BASELINE, VARIANT)
    assert candidate is not None and candidate.source == "view" and candidate.scope == "global"
    apply = candidate.extra["statements"][0]
    assert apply.startswith(
        "CREATE OR REPLACE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW "
        "`customer_list` AS select `cu`.`customer_id` AS `ID`, concat("
    )
    assert (
        " from `sak`.`country` straight_join `sak`.`city` FORCE INDEX (`idx_fk_country_id`) straight_join "
        "`sak`.`address` `a` FORCE INDEX (`idx_fk_city_id`) straight_join `sak`.`customer` `cu` "
        "FORCE INDEX (`idx_fk_address_id`) where ((`cu`.`address_id` = `a`.`address_id`)) and "
    ) in apply
    assert candidate.extra["undo"] == [f"CREATE OR REPLACE {CREATE.removeprefix('CREATE ')}"]
    assert view_candidate(VIEW, VARIANT, VARIANT) is None  # the plans agree: nothing to rewrite
    outer = view_candidate(View("sak", "v", MYSQL_OUTER, ["ID"], "CREATE VIEW v AS x"), BASELINE, VARIANT)
    assert outer is not None and outer.extra["refused"] and "LEFT" in outer.note


def test_a_merged_view_is_inlined_into_the_statement() -> None:
    candidate = inlined_candidate(VIEW, QUERY, BASELINE, VARIANT)
    assert candidate is not None and candidate.source == "plan" and candidate.scope == "statement"
    body = candidate.extra["inline"]["body"]
    assert (
        inline(QUERY, "customer_list", body)
        == f"SELECT * FROM ({body}) AS `customer_list` WHERE country = 'Country007'"
    )
    assert inline("SELECT cl.ID FROM sak.customer_list AS cl", "customer_list", "select 1") == (
        "SELECT cl.ID FROM (select 1) AS cl"
    )
    with pytest.raises(RewriteError, match="referenced 2 times"):
        inline("SELECT 1 FROM customer_list x JOIN customer_list y", "customer_list", "select 1")
    materialized = [PlanStep("<derived2>", "ALL", None, 599), *VARIANT[1:]]
    assert inlined_candidate(VIEW, QUERY, BASELINE, materialized) is None  # not merged: no inlining


def test_an_index_on_the_column_the_baseline_started_from_is_a_candidate_through_the_view() -> None:
    filtered = filtered_through_views(QUERY, SCHEMA)
    assert filtered["country"][0] == "country"  # the view's `country`, followed to its table
    assert "customer_list" not in filtered  # a view has no index nor histogram
    found = index_candidates("sak", QUERY, SCHEMA, BASELINE, VARIANT)
    assert [c.name for c in found] == ["index fix_country_country on country (country)"]
    assert found[0].extra["statements"] == [
        "CREATE INDEX `fix_country_country` ON `sak`.`country` (`country`)"
    ]
    assert found[0].extra["undo"] == ["DROP INDEX `fix_country_country` ON `sak`.`country`"]
    covered = Schema(SCHEMA.columns, SCHEMA.views, {**SCHEMA.indexes, "country": [["country"]]}, SCHEMA.types)
    assert index_candidates("sak", QUERY, covered, BASELINE, VARIANT) == []


def test_a_statement_over_a_view_gets_the_view_candidates_instead_of_hints_it_cannot_carry() -> None:
    plans = (Outcome(None, None, plan=BASELINE), Outcome(None, None, plan=VARIANT))
    found = gathered("mariadb", QUERY, plans, ({}, {}), SCHEMA, "sak")
    assert [(c.source, c.name) for c in found if c.source != "lever"] == [
        ("plan", "view customer_list inlined in the baseline's join order"),
        ("view", "view customer_list rewritten in the baseline's join order"),
        ("index", "index fix_country_country on country (country)"),
        ("statistics", "statistics: histograms on country.country"),  # the view's column, its table's
    ]  # fmt: skip


def test_a_decimal_value_is_written_bare() -> None:
    assert literal("10.000000") == "10.000000" and literal("-1") == "-1" and literal("1.2.3") == "'1.2.3'"
