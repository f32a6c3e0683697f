"""CSV and JSON downloads, and the comparison table as flat rows (a run's iterations with their context:
api/results.py run_export)."""

import csv
import io
import json
from typing import Any

from fastapi.responses import Response

from upgradelab.results.views.comparison_schemas import Comparison

_ROW_COLUMNS = [
    "key", "run_id", "variant", "is_baseline", "is_aa_control", "group", "metric", "unit", "iterations",
    "rounds", "median_s", "p95_s", "mean_s", "median", "p95",
]  # fmt: skip
COMPARISON_COLUMNS = [
    *_ROW_COLUMNS, "ratio", "ratio_low", "ratio_high", "method", "verdict", "mde", "reason",
    "aa_ratio", "aa_low", "aa_high",
]  # fmt: skip


def comparison_rows(comparison: Comparison) -> list[dict[str, Any]]:
    """One row per compared variant, group and metric; ratios unitless, *_s seconds, median/p95 in `unit`."""
    rows = []
    for row in comparison.rows:
        flat: dict[str, Any] = {k: getattr(row, k) for k in _ROW_COLUMNS}
        ratio, floor = row.ratio, row.aa_floor
        flat.update(
            ratio=ratio and ratio.ratio,
            ratio_low=ratio and ratio.low,
            ratio_high=ratio and ratio.high,
            method=ratio and ratio.method,
            verdict=ratio and ratio.verdict,
            mde=ratio and ratio.mde,
            reason=ratio and ratio.reason,
            aa_ratio=floor and floor.ratio,
            aa_low=floor and floor.low,
            aa_high=floor and floor.high,
        )
        rows.append(flat)
    return rows


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
