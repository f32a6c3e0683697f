"""CSV and JSON exports of a run's iterations (with their context and variables) and of a comparison table."""

import csv
import io
import json
from typing import Any

from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.experiments.models import Run
from upgradelab.results.comparison_schemas import Comparison
from upgradelab.results.context import variables_diff
from upgradelab.results.models import Iteration
from upgradelab.runs import service as runs

_ITERATION_COLUMNS = [
    "run_id", "variant_index", "variant", "iteration", "group", "round", "block", "position", "elapsed_s",
    "metrics",
]  # fmt: skip
_CONTEXT_COLUMNS = ["version", "version_comment", "provisioner", "image_or_binary", "is_aa_control"]
RUN_COLUMNS = [*_ITERATION_COLUMNS, *_CONTEXT_COLUMNS, "variables_diff", "schedule_seed", "host"]
_ROW_COLUMNS = [
    "key", "run_id", "variant", "is_baseline", "is_aa_control", "group", "metric", "unit", "iterations",
    "rounds", "median_s", "p95_s", "mean_s", "median", "p95",
]  # fmt: skip
COMPARISON_COLUMNS = [
    *_ROW_COLUMNS, "ratio", "ratio_low", "ratio_high", "method", "verdict", "mde", "reason",
    "aa_ratio", "aa_low", "aa_high",
]  # fmt: skip


async def run_export(session: AsyncSession, run: Run, fmt: str) -> Response:
    """Every iteration of the run (`iteration` table) with what produced it (runs.service.context).

    JSON: {"run_id", "schedule", "context", "variants": [runs.schemas.VariantContext with its
    variables], "variables_diff": [{"name", "values"}] (results/context.py), "iterations": [{run_id,
    variant_index, variant, iteration, group, round, block, position, elapsed_s, metrics}]}.
    CSV: one line per iteration, RUN_COLUMNS: the variant's context on every line, variables_diff as
    JSON {name: value} of the variables that differ between variants, host as JSON.
    elapsed_s: seconds, the sum of the iteration's statements (client-side).
    """
    context = await runs.context(session, run)
    diff = variables_diff(context.variants)
    names = [spec["name"] for spec in run.experiment.variants]
    iterations: list[dict[str, Any]] = [
        {
            "run_id": run.id,
            "variant_index": row.variant_index,
            "variant": names[row.variant_index] if row.variant_index < len(names) else "",
            "iteration": row.iteration,
            "group": row.group,
            "round": row.round,
            "block": row.block,
            "position": row.position,
            "elapsed_s": row.elapsed_s,
            "metrics": row.metrics,
        }
        for row in await session.scalars(
            select(Iteration)
            .where(Iteration.run_id == run.id)
            .order_by(Iteration.variant_index, Iteration.iteration)
        )
    ]
    filename = f"run-{run.id}"
    if fmt == "json":
        body = {
            **context.model_dump(mode="json"),
            "variables_diff": [d.model_dump() for d in diff],
            "iterations": iterations,
        }
        return _download(json.dumps(body), "application/json", f"{filename}.json")
    host = json.dumps(context.context.host.model_dump() if context.context else None)
    seed = context.schedule.seed if context.schedule else None
    per_variant = {
        v.variant_index: {
            **{k: getattr(v, k) for k in _CONTEXT_COLUMNS},
            "variables_diff": json.dumps({d.name: d.values[position] for d in diff}),
            "schedule_seed": seed,
            "host": host,
        }
        for position, v in enumerate(context.variants)
    }
    rows = [
        {**row, "metrics": json.dumps(row["metrics"]), **per_variant.get(row["variant_index"], {})}
        for row in iterations
    ]
    return respond(rows, RUN_COLUMNS, "csv", filename)


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


def _download(body: str, media_type: str, filename: str) -> Response:
    disposition = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(body, media_type=media_type, headers=disposition)


def respond(rows: list[dict[str, Any]], columns: list[str], fmt: str, filename: str) -> Response:
    """A download: text/csv with a header row, or application/json (a list of objects)."""
    if fmt == "json":
        return _download(json.dumps(rows), "application/json", f"{filename}.json")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    return _download(buffer.getvalue(), "text/csv", f"{filename}.csv")
