"""CSV and JSON downloads, and the comparison table as flat rows (a run's iterations with their context:
api/results.py run_export)."""

import csv
import io
import json
from typing import Any

from fastapi.responses import Response

from upgradelab.results.stats import verdicts
from upgradelab.results.views.comparison_schemas import Comparison

_ROW_COLUMNS = [
    "key", "run_id", "variant", "is_baseline", "is_aa_control", "group", "metric", "unit", "iterations",
    "rounds", "median_s", "p95_s", "mean_s", "median", "p95",
]  # fmt: skip
_FLOOR_COLUMNS = ("ratio", "ratio_low", "ratio_high")
COMPARISON_COLUMNS = [
    *_ROW_COLUMNS, *verdicts.VERDICT_COLUMNS, *(f"aa_{key}" for key in _FLOOR_COLUMNS),
]  # fmt: skip


def comparison_rows(comparison: Comparison) -> list[dict[str, Any]]:
    """One row per compared variant, group and metric; ratios unitless, *_s seconds, median/p95 in `unit`;
    the verdict in the one flat spelling (results/stats/verdicts.py `columns`), the A/A floor's as
    aa_ratio, aa_ratio_low, aa_ratio_high."""
    return [
        {k: getattr(row, k) for k in _ROW_COLUMNS}
        | verdicts.columns(row.ratio)
        | verdicts.columns(row.aa_floor, "aa_", _FLOOR_COLUMNS)
        for row in comparison.rows
    ]


def download(body: str, media_type: str, filename: str) -> Response:
    disposition = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(body, media_type=media_type, headers=disposition)


def respond(rows: list[dict[str, Any]], columns: list[str], fmt: str, filename: str) -> Response:
    """A download: text/csv with a header row, or application/json (a list of objects)."""
    if fmt == "json":
        return download(json.dumps(rows), "application/json", f"{filename}.json")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    return download(buffer.getvalue(), "text/csv", f"{filename}.csv")
