"""CSV and JSON exports of a run's iterations and of a comparison table."""

import csv
import io
import json
from typing import Any

from fastapi.responses import Response

from upgradelab.results.comparison_schemas import Comparison
from upgradelab.results.schemas import Series

RUN_COLUMNS = ["run_id", "variant_index", "variant", "iteration", "elapsed_s"]
_ROW_COLUMNS = [
    "key", "run_id", "variant", "is_baseline", "is_aa_control", "group", "metric", "unit", "iterations",
    "rounds", "median_s", "p95_s", "mean_s", "median", "p95",
]  # fmt: skip
COMPARISON_COLUMNS = [
    *_ROW_COLUMNS, "ratio", "ratio_low", "ratio_high", "method", "verdict", "mde", "reason",
    "aa_ratio", "aa_low", "aa_high",
]  # fmt: skip


def run_rows(run_id: int, series: list[Series]) -> list[dict[str, Any]]:
    """One row per iteration: elapsed_s is seconds (sum of the iteration's statements, client-side)."""
    return [
        {
            "run_id": run_id,
            "variant_index": s.variant_index,
            "variant": s.variant,
            "iteration": p.iteration,
            "elapsed_s": p.elapsed_s,
        }
        for s in series
        for p in s.points
    ]


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


def respond(rows: list[dict[str, Any]], columns: list[str], fmt: str, filename: str) -> Response:
    """A download: text/csv with a header row, or application/json (a list of objects)."""
    disposition = {"Content-Disposition": f'attachment; filename="{filename}.{fmt}"'}
    if fmt == "json":
        return Response(json.dumps(rows), media_type="application/json", headers=disposition)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    return Response(buffer.getvalue(), media_type="text/csv", headers=disposition)
