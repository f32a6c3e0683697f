"""Every entry of the known-causes table (measurement/causes.py) names the difference it was made for, and
not an unrelated one: each with the outcomes the servers give (codes and messages as MariaDB 10.11,
MariaDB 11.8 and MySQL 9.7 answer them)."""

import pytest

from upgradelab.measurement import diff
from upgradelab.measurement.causes import KNOWN_CAUSES, Difference, known_cause
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.sources import parse_source

RAN = Outcome(None, None, row_count=2, checksum_ordered="o", checksum_unordered="u")
OTHER_ROWS = Outcome(None, None, row_count=2, checksum_ordered="p", checksum_unordered="v")
OTHER_ORDER = Outcome(None, None, row_count=2, checksum_ordered="p", checksum_unordered="u")


def _error(code: int, message: str) -> Outcome:
    return Outcome(code, message)


CASES = [
    (
        "removed function",
        "SELECT MD5(email) FROM customers",
        _error(1305, "FUNCTION shop.MD5 does not exist"),
    ),
    (
        "removed function",
        "SELECT PASSWORD('secret')",
        _error(1064, "You have an error in your SQL syntax; ... near '('secret')' at line 1"),
    ),
    (
        "reserved word",
        "SELECT 1 AS rank",
        _error(1064, "You have an error in your SQL syntax; ... near 'rank' at line 1"),
    ),
    (
        "ONLY_FULL_GROUP_BY",
        "SELECT region, email FROM customers GROUP BY region",
        _error(1055, "Expression #2 of SELECT list is not in GROUP BY clause"),
    ),
    ("PAD SPACE / NO PAD", "SELECT name FROM customers WHERE name = 'ann '", OTHER_ROWS),
    ("GROUP BY no longer sorts", "SELECT region, COUNT(*) FROM customers GROUP BY region", OTHER_ORDER),
    (
        "utf8mb3 names",
        "SELECT CHARACTER_SET_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 't'",
        OTHER_ROWS,
    ),
    ("JSON output", "SELECT JSON_ARRAYAGG(id) FROM customers", OTHER_ROWS),
]


@pytest.mark.parametrize(("cause", "sql", "other"), CASES, ids=[c[0] for c in CASES])
def test_each_known_cause_names_its_break(cause: str, sql: str, other: Outcome) -> None:
    (statement,) = parse_source(sql + ";").statements
    found = diff(RAN, other, statement, "new")
    assert found.breaks and found.cause is not None and found.cause.id == cause, found


def test_every_entry_has_a_case_and_the_upgrade_checker_names_where_one_fits() -> None:
    assert {entry.id for entry in KNOWN_CAUSES} == {case[0] for case in CASES}
    checks = {entry.id: entry.check for entry in KNOWN_CAUSES}
    assert checks["removed function"] == "removedFunctions" and checks["reserved word"] == "reservedKeywords"
    assert checks["utf8mb3 names"] == "utf8mb3"


@pytest.mark.parametrize(
    ("sql", "other"),
    [
        ("SELECT COUNT(*) FROM customers", OTHER_ROWS),  # a result change with no known shape
        ("SELECT missing FROM customers", _error(1054, "Unknown column 'missing' in 'field list'")),
        ("SELECT 1 AS total", _error(1064, "You have an error in your SQL syntax; near 'total' at line 1")),
        ("SELECT region FROM customers GROUP BY region ORDER BY region", OTHER_ORDER),
    ],
)
def test_an_unrelated_difference_has_no_cause(sql: str, other: Outcome) -> None:
    (statement,) = parse_source(sql + ";").statements
    assert (
        known_cause(
            Difference(sql, statement.fingerprint, RAN, other, other is OTHER_ROWS, other is OTHER_ORDER)
        )
        is None
    )


def test_errors_split_new_resolved_changed_same() -> None:
    (statement,) = parse_source("SELECT MD5(1);").statements
    e1, e2 = _error(1305, "FUNCTION MD5 does not exist"), _error(1064, "syntax")
    assert [
        diff(a, b, statement, "n").error_change
        for a, b in [(RAN, e1), (e1, RAN), (e1, e2), (e1, e1), (RAN, RAN)]
    ] == [
        "new",
        "resolved",
        "changed",
        "same",
        None,
    ]
