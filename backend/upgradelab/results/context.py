"""What produced a run's results (Conbench's context): per variant the server's version, option file,
provisioner and SHOW GLOBAL VARIABLES; per run the host facts, Upgrade Lab's version and the schedule.

Captured by the runner at run time (run.context, run.schedule, run_variant); read here, never written.
"""

from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.runs.models import Run, RunVariant


class VariantContext(BaseModel):
    """One variant's instance: version (SELECT VERSION()), version_comment, provisioner kind ("local",
    "docker", "tarball"), image or binary, the effective option file text and its global variables."""

    variant_index: int
    name: str
    target: str
    status: str
    error: str | None
    is_aa_control: bool
    provisioner: str | None
    image_or_binary: str | None
    version: str | None
    version_comment: str | None
    option_file: str | None
    variables: dict[str, Any] | None


class VariableDiff(BaseModel):
    """A global variable whose value differs between variants: values in variant order (None: the
    variant's instance did not report it)."""

    name: str
    values: list[str | None]


class RunContext(BaseModel):
    """GET /api/runs/{id}/context. schedule: {"kind", "seed", "rounds", "block", "order": [[variant
    index, ...] per round]}; context: {"host": {cpu_model, cores, memory_bytes, kernel, storage},
    "upgradelab_version"}; both None for a run from before they were recorded."""

    run_id: int
    schedule: dict[str, Any] | None
    context: dict[str, Any] | None
    variants: list[VariantContext]
    variables_diff: list[VariableDiff]


def variables_diff(variants: list[VariantContext]) -> list[VariableDiff]:
    """Variables whose values are not the same in every variant that reported variables, by name.

    Variants without captured variables (failed before start, older runs) are left out of the test
    (their column is None) so a missing capture does not list every variable as different.
    """
    captured = [v.variables for v in variants if v.variables is not None]
    if len(captured) < 2:
        return []
    names = sorted({name for one in captured for name in one})
    out = []
    for name in names:
        seen = {None if name not in one else str(one[name]) for one in captured}
        if len(seen) > 1:
            values = [
                None if v.variables is None or name not in v.variables else str(v.variables[name])
                for v in variants
            ]
            out.append(VariableDiff(name=name, values=values))
    return out


async def run_context(session: AsyncSession, run: Run) -> RunContext:
    """The run's context and its variants' (experiment order; a variant without a run_variant row,
    e.g. of a run from before issue 12, is listed by name with everything else None)."""
    stored = {
        row.variant_index: row
        for row in await session.scalars(select(RunVariant).where(RunVariant.run_id == run.id))
    }
    variants = []
    for index, spec in enumerate(run.experiment.variants):
        row = stored.get(index)
        variants.append(
            VariantContext(
                variant_index=index,
                name=row.name if row else spec["name"],
                target=row.target if row else spec.get("target", ""),
                status=str(row.status) if row else "unknown",
                error=row.error if row else None,
                is_aa_control=bool(row and row.is_aa_control),
                provisioner=row and row.provisioner,
                image_or_binary=row and row.image_or_binary,
                version=row and row.version,
                version_comment=row and row.version_comment,
                option_file=row and row.option_file,
                variables=row and row.variables,
            )
        )
    return RunContext(
        run_id=run.id,
        schedule=run.schedule,
        context=run.context,
        variants=variants,
        variables_diff=variables_diff(variants),
    )
