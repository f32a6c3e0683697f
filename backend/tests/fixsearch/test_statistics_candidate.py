"""Statistics as a candidate: the columns a statement filters on (WHERE and JOIN ... ON, read with
sqlparse), resolved to the dataset's tables; the ANALYZE TABLE per flavor; scope "global"; and the
search lists it "not measured" (it needs a second instance of the variant), costing no round."""

from upgradelab.cli.fix import summary
from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.histograms import (
    NOT_MEASURED,
    Column,
    filtered_columns,
    resolved,
    statistics_candidate,
)
from upgradelab.fixsearch.search import Budget, Trial, search

COLUMNS = {"orders": {"id", "customer_id", "status", "placed"}, "customers": {"id", "country", "name"},
           "items": {"id", "order_id", "sku"}}  # fmt: skip
JOINED = (
    "SELECT o.id, c.name FROM orders o JOIN customers AS c ON c.id = o.customer_id "
    "WHERE o.status = 'open' AND country IN ('DE', 'FR') AND o.placed > NOW() - INTERVAL 1 DAY ORDER BY o.id"
)


def test_the_columns_named_in_where_and_on_in_order_once_each() -> None:
    assert filtered_columns(JOINED) == [
        Column("c", "id"), Column("o", "customer_id"), Column("o", "status"), Column(None, "country"),
        Column("o", "placed"),
    ]  # fmt: skip
    # a subquery's own WHERE filters; its select list and the outer select list do not
    nested = "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = 'x')"
    assert filtered_columns(nested) == [Column(None, "id"), Column(None, "status")]
    assert filtered_columns("SELECT COUNT(*) FROM orders") == []


def test_columns_are_resolved_to_the_datasets_tables_through_aliases_and_bare_names() -> None:
    assert resolved(JOINED, COLUMNS) == {
        "customers": ["id", "country"],
        "orders": ["customer_id", "status", "placed"],
    }
    # `id` is in both referenced tables: ambiguous bare name, left out; `nope` is no column
    ambiguous = "SELECT 1 FROM orders JOIN customers ON customer_id = customers.id WHERE id = 3 AND nope = 1"
    assert resolved(ambiguous, COLUMNS) == {"orders": ["customer_id"], "customers": ["id"]}


def test_the_candidate_is_global_and_says_what_to_apply_and_undo_per_flavor() -> None:
    mysql = statistics_candidate("mysql", JOINED, COLUMNS)
    assert mysql is not None and mysql.source == "statistics" and mysql.scope == "global"
    assert mysql.settings == {} and mysql.subquery_hint == "" and mysql.indexes == {}
    assert mysql.extra["analyze"] == [
        "ANALYZE TABLE `customers` UPDATE HISTOGRAM ON `id`, `country`",
        "ANALYZE TABLE `orders` UPDATE HISTOGRAM ON `customer_id`, `status`, `placed`",
    ]
    assert mysql.extra["undo"][0] == "ANALYZE TABLE `customers` DROP HISTOGRAM ON `id`, `country`"
    mariadb = statistics_candidate("mariadb", JOINED, COLUMNS)
    assert mariadb is not None
    assert mariadb.extra["analyze"][1] == (
        "ANALYZE TABLE `orders` PERSISTENT FOR COLUMNS (`customer_id`, `status`, `placed`) INDEXES ()"
    )
    assert "use_stat_tables" in mariadb.note
    assert mariadb.extra["undo"][1].startswith("DELETE FROM mysql.column_stats WHERE db_name = DATABASE()")
    assert statistics_candidate("mysql", "SELECT COUNT(*) FROM orders", COLUMNS) is None


def test_the_search_lists_it_not_measured_at_no_cost_and_goes_on() -> None:
    statistics = statistics_candidate("mysql", JOINED, COLUMNS)
    assert statistics is not None
    measured: list[str] = []

    def oracle(candidate: Candidate, rounds: int) -> Trial:
        measured.append(candidate.name)
        if candidate.source == "statistics":  # as measure.PairOracle answers it
            return Trial(candidate.name, "not measured", NOT_MEASURED)
        return Trial(candidate.name, "does not restore", "still slower", rounds=rounds)

    outcome = search([statistics], oracle, rounds=5, budget=Budget(rounds=100, minutes=60))
    assert outcome.outcome == "no remedy found" and outcome.rounds == 0
    trial = outcome.trials[0]
    assert trial.status == "not measured" and trial.scope == "global"
    assert trial.reason.startswith("not measured: needs a second instance of the variant")
    assert trial.apply == statistics.apply and trial.side_effects is None


def test_the_cli_summary_says_why_it_was_not_measured_and_what_to_apply_by_hand() -> None:
    statistics = statistics_candidate("mysql", JOINED, COLUMNS)
    assert statistics is not None
    trial = Trial(statistics.name, "not measured", NOT_MEASURED, scope="global", apply=statistics.apply)
    found = {"id": 9, "status": "succeeded", "candidates": [statistics.as_dict()], "tried": [trial.as_dict()],
             "result": {"outcome": "no remedy found", "remedy": None, "not_tried": []}}  # fmt: skip
    text = summary(found).splitlines()
    assert text[1].startswith(f"  {statistics.name} [global]: not measured")
    assert text[2] == f"    {NOT_MEASURED}"
    assert text[3:6] == [
        "    to try by hand:",
        "      ANALYZE TABLE `customers` UPDATE HISTOGRAM ON `id`, `country`;",
        "      ANALYZE TABLE `orders` UPDATE HISTOGRAM ON `customer_id`, `status`, `placed`;",
    ]
