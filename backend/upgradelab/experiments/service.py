"""Experiment verbs: create (variants resolved and checked against the targets table), get_or_raise."""

from dataclasses import asdict

from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error, not_found
from upgradelab.experiments.models import Experiment
from upgradelab.experiments.schemas import ExperimentCreate
from upgradelab.experiments.variants import unsupported_reason
from upgradelab.targets import service as targets
from upgradelab.workloads import WORKLOADS


async def create(session: AsyncSession, spec: ExperimentCreate) -> Experiment:
    """Store an experiment. 422 naming variants.N.target for an unknown target, or variants.N.preset
    for a preset the target's flavor cannot take (e.g. redo-off on MariaDB)."""
    known = await targets.get_by_names(session, {v.target for v in spec.variants})
    resolved = []
    for index, variant_spec in enumerate(spec.variants):
        target = known.get(variant_spec.target)
        if target is None:
            raise field_error(
                ["body", "variants", index, "target"], f"unknown target {variant_spec.target!r}"
            )
        variant = variant_spec.resolve()
        reason = unsupported_reason(variant, target.flavor, target.version)
        if reason:
            raise field_error(["body", "variants", index, "preset"], f"variant {variant.name!r}: {reason}")
        resolved.append(asdict(variant))
    workload = WORKLOADS[spec.workload].info
    iterations = spec.iterations or workload.default_iterations
    experiment = Experiment(
        name=spec.name or f"{workload.title}: {', '.join(v['name'] for v in resolved)}",
        workload=spec.workload,
        iterations=iterations,
        parameters={"iterations": iterations},
        variants=resolved,
    )
    session.add(experiment)
    await session.commit()
    return experiment


async def get_or_raise(session: AsyncSession, experiment_id: int) -> Experiment:
    """The experiment, or 404."""
    experiment = await session.get(Experiment, experiment_id)
    if experiment is None:
        raise not_found("experiment", experiment_id)
    return experiment
