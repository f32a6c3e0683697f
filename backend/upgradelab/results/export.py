"""CSV and JSON exports of a run's iterations and of a comparison table."""

import csv
import io
import json
from typing import Any

from fastapi.responses import Response

from upgradelab.results.comparison_schemas import Comparison
from upgradelab.results.schemas import Series

RUN_COLUMNS = ["run_id", "variant_index", "variant", "iteration", "elapsed_s"]
COMPARISON_COLUMNS = [
    "key", "run_id", "variant", "is_baseline", "iterations", "median_s", "p95_s", "mean_s",
    "median_ratio", "median_ratio_low", "median_ratio_high", "median_verdict",
    "p95_ratio", "p95_ratio_low", "p95_ratio_high", "p95_verdict",
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
    """One row per compared variant; ratios unitless, times seconds."""
    rows = []
    for row in comparison.rows:
        flat: dict[str, Any] = {k: getattr(row, k) for k in COMPARISON_COLUMNS[:8]}
        for stat in ("median", "p95"):
            ratio = getattr(row, stat)
            flat[f"{stat}_ratio"] = ratio and ratio.ratio
            flat[f"{stat}_ratio_low"] = ratio and ratio.low
            flat[f"{stat}_ratio_high"] = ratio and ratio.high
            flat[f"{stat}_verdict"] = ratio and ratio.verdict
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
