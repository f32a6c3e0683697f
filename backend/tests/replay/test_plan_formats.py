"""A plan's table accesses in both JSON formats: MySQL 9.x answers EXPLAIN FORMAT=JSON in format 2
(explain_json_format_version=2, its default: iterator nodes), which the replay read as no table at all
until the fix search's MySQL test showed empty plans on both sides. The documents are the servers' own
(MySQL 9.7.4 and the same join in format 1's shape)."""

from typing import Any

from upgradelab.measurement.outcomes import PlanStep, _steps

# EXPLAIN FORMAT=JSON SELECT * FROM s.t JOIN s.u ON u.id = t.k WHERE t.k > 3, MySQL 9.7.4 (trimmed of
# used_columns and costs)
FORMAT_2: dict[str, Any] = {
    "query_plan": {
        "inputs": [
            {
                "inputs": [
                    {
                        "operation": "Covering index scan on t using k",
                        "index_name": "k",
                        "table_name": "t",
                        "access_type": "index",
                        "estimated_rows": 1.0,
                        "index_access_type": "index_scan",
                    }
                ],
                "operation": "Filter: ((s.t.k > 3) and (s.t.k is not null))",
                "access_type": "filter",
                "estimated_rows": 1.0,
            },
            {
                "operation": "Single-row index lookup on u using PRIMARY (id = s.t.k)",
                "index_name": "PRIMARY",
                "table_name": "u",
                "access_type": "index",
                "estimated_rows": 1.0,
                "index_access_type": "index_lookup",
            },
        ],
        "operation": "Nested loop inner join",
        "access_type": "join",
        "estimated_rows": 1.0,
    },
    "json_schema_version": "2.0",
}
FORMAT_1: dict[str, Any] = {
    "query_block": {
        "nested_loop": [
            {"table": {"table_name": "t", "access_type": "index", "key": "k", "rows_examined_per_scan": 1}},
            {
                "table": {
                    "table_name": "u",
                    "access_type": "eq_ref",
                    "key": "PRIMARY",
                    "rows_examined_per_scan": 1,
                }
            },
        ]
    }
}


def _read(document: dict[str, Any]) -> list[PlanStep]:
    out: list[PlanStep] = []
    _steps(document, out)
    return out


def test_format_2_gives_the_table_accesses_in_join_order_in_format_1s_words() -> None:
    assert _read(FORMAT_2) == [PlanStep("t", "index", "k", 1.0), PlanStep("u", "eq_ref", "PRIMARY", 1.0)]
    assert _read(FORMAT_2) == _read(FORMAT_1)  # 8.0 (format 1) against 9.x compares like with like


def test_format_2_access_words() -> None:
    def access(**node: Any) -> str | None:
        (step,) = _read({"table_name": "t", **node})
        return step.access_type

    assert access(operation="Table scan on t", access_type="table") == "ALL"
    assert (
        access(
            operation="Index range scan on t using k",
            access_type="index",
            index_access_type="index_range_scan",
        )
        == "range"
    )
    assert (
        access(
            operation="Index lookup on t using k (k = 3)",
            access_type="index",
            index_access_type="index_lookup",
        )
        == "ref"
    )
    assert access(operation="Constant row from t", access_type="constant_row") == "const"
