"""Issue 46, Deliver 5 and 6 on real servers: a Sakila-like customer_list view (customer, address,
city, country; `WHERE country = ?`) that MariaDB 10.11 joins from country (a scan of 109 rows, then
lookups by the foreign keys) and 11.8 from customer (599 rows, then eq_ref lookups), several times
slower. The statement names no table of its plan, so the baseline's order and indexes go into the
view: the view's body inlined into the statement (11.8 merges the view), the view rewritten
(CREATE OR REPLACE VIEW with STRAIGHT_JOIN and FORCE INDEX, on the variant's second instance, with its
undo), and an index on the column the baseline's plan started from, which no index covers (its size
read there). Each gives 11.8 the baseline's join order back: asserted on its plan, which is
mechanical. The gap is large (several x), so the search's tolerance is 50 % (the package's real-server
rule for a planted large effect) and whether each restores is read, not required: the plans are the
claim."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.execution.cancel_helpers import servers, target_dir
from tests.fixsearch.planted import fix_json, planted_replay
from tests.fixsearch.planted_data import VIEW_QUERY as QUERY
from tests.fixsearch.planted_data import sakila_like

DATASET = "fix-views"
BASELINE, VARIANT = "mariadb-10.11", "mariadb-11.8"


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    with planted_replay(http, DATASET, sakila_like(), f"{QUERY};\n", [BASELINE, VARIANT]) as found:
        yield found


def _order(steps: list[dict[str, Any]]) -> list[str]:
    return [s["table"] for s in steps]


def test_a_view_query_gets_the_baseline_order_inlined_rewritten_and_an_index(
    api: str, replay: dict[str, Any]
) -> None:
    fingerprint = replay["report"]["fingerprints"][0]["fingerprint_id"]
    options = (
        "--rounds",
        "5",
        "--tolerance",
        "0.5",
        "--all",
        "--only",
        "plan",
        "--only",
        "view",
        "--only",
        "index",
    )
    found = fix_json(api, replay["id"], fingerprint, VARIANT, *options)
    names = [c["name"] for c in found["candidates"]]
    assert names == [
        "view customer_list inlined in the baseline's join order",
        "view customer_list rewritten in the baseline's join order",
        "index fix_country_country on country (country)",
    ], names  # the hints the statement cannot carry are left out: the view carries them
    tried = {t["name"]: t for t in found["tried"]}
    assert set(tried) == set(names) and found["result"]["not_tried"] == []
    before = tried[names[0]]["plan_before"]
    assert _order(before)[0] == "cu" and before[0]["access_type"] == "ALL"  # 11.8 starts from customer

    inlined = tried[names[0]]
    assert "straight_join" in inlined["statements"][0] and "AS `customer_list`" in inlined["statements"][0]
    assert _order(inlined["plan_after"]) == ["country", "city", "a", "cu"], inlined["plan_after"]
    assert inlined["results_equal"] is True and inlined["wrapper"] is None  # a hint: no wrapper

    rewritten = tried[names[1]]
    assert rewritten["change"]["apply"][0].startswith("CREATE OR REPLACE ")
    assert " VIEW `customer_list` AS select " in rewritten["change"]["apply"][0]
    assert rewritten["change"]["undo"][0].startswith("CREATE OR REPLACE ")
    assert rewritten["statements"] == [QUERY]  # the statement unchanged: the view is the remedy
    assert _order(rewritten["plan_after"]) == ["country", "city", "a", "cu"], rewritten["plan_after"]
    assert "its arm ran on a second instance of the variant" in rewritten["reason"]

    index = tried[names[2]]
    assert index["change"]["apply"] == [
        "CREATE INDEX `fix_country_country` ON `fix_views`.`country` (`country`)"
    ] or (index["change"]["apply"][0].startswith("CREATE INDEX `fix_country_country` ON "))
    assert index["change"]["undo"][0].startswith("DROP INDEX `fix_country_country` ON ")
    assert (
        index["change"]["size_bytes"] and index["change"]["size_bytes"] >= 16384
    )  # one InnoDB page at least
    first = index["plan_after"][0]
    assert (first["table"], first["access_type"], first["key"]) == ("country", "ref", "fix_country_country")
    for trial in tried.values():
        assert trial["status"] in ("restores", "does not restore", "undecided"), trial["reason"]
        assert trial["results_equal"] is True
    assert servers(target_dir(VARIANT)) == []  # the second instance ended with the search
