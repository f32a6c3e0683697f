"""Experiment verbs: create (variants resolved and checked against the targets table), get_or_raise."""

from dataclasses import asdict
from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error, not_found
from upgradelab.experiments.models import Experiment
from upgradelab.experiments.schedule import ScheduleError, check_extension, resolve_schedule
from upgradelab.experiments.schemas import ExperimentCreate
from upgradelab.experiments.variants import ResolvedVariant, unsupported_reason
from upgradelab.targets import service as targets
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import cached_names
from upgradelab.targets.options import OptionError, validate_option
from upgradelab.targets.preflight import stored_refusal
from upgradelab.workloads import WORKLOADS, TargetFacts


async def create(session: AsyncSession, spec: ExperimentCreate) -> Experiment:
    """Store an experiment. 422 naming variants.N.target for an unknown target, variants.N.preset
    for a preset the target's flavor cannot take (e.g. redo-off on MariaDB), or
    variants.N.options.<name> for a refused option (_check_options)."""
    workload_type = WORKLOADS[spec.workload]
    parameters = validate_parameters(spec.workload, spec.parameters)
    workload_instance = workload_type(parameters)
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
        facts = TargetFacts(target.name, target.flavor, target.version or "", target.disposable)
        refusal = workload_instance.refusal(facts) or stored_refusal(
            target, variant, spec.policy or workload_type.info.default_policy, workload_instance
        )
        if refusal:
            raise field_error(
                ["body", "variants", index, "target"],
                f"variant {variant.name!r}: {spec.workload} cannot run on {target.name}: {refusal}",
            )
        _check_options(index, variant, target)
        resolved.append(asdict(variant))
    workload = workload_type.info
    try:
        schedule = resolve_schedule(
            spec.schedule, spec.iterations, spec.rounds, spec.block, spec.seed, workload.default_iterations
        )
        check_extension(schedule, spec.max_rounds, spec.max_minutes)
    except ScheduleError as error:
        raise field_error(["body", error.field], str(error)) from error
    name = spec.name or f"{workload.title}: {', '.join(v['name'] for v in resolved)}"
    if spec.aa_control:
        resolved.append(aa_copy(resolved))
    experiment = Experiment(
        name=name,
        workload=spec.workload,
        iterations=schedule.iterations,
        parameters=parameters.model_dump(mode="json"),
        policy=spec.policy or workload.default_policy,
        variants=resolved,
        schedule=schedule.kind,
        rounds=schedule.rounds,
        block=schedule.block,
        aa_control=spec.aa_control,
        seed=schedule.seed,
        max_rounds=spec.max_rounds,
        max_minutes=spec.max_minutes,
    )
    session.add(experiment)
    await session.commit()
    return experiment


def _check_options(index: int, variant: ResolvedVariant, target: Target) -> None:
    """422 at ["body", "variants", index, "options", <name>] for an option in a refused category (the
    target's admin-listed `allowed_options` excepted) or, once the target's binary has been asked
    (targets/option_names.py cache), for a name it does not list in full."""
    allowed = target.settings.get("allowed_options") or []
    names = cached_names(target.name)
    for option, value in variant.options.items():
        try:
            validate_option(option, value, allowed)
            if names is not None:
                names.canonical(option)
        except OptionError as error:
            raise field_error(
                ["body", "variants", index, "options", option[:80]], f"variant {variant.name!r}: {error}"
            ) from error


def aa_copy(variants: list[dict[str, Any]]) -> dict[str, Any]:
    """The A/A control: the baseline (variant 0), same target and configuration, named
    "<baseline> (A/A)"; it runs on an instance of its own and is always the last variant."""
    baseline = variants[0]
    name = f"{baseline['name']} (A/A)"
    if any(v["name"] == name for v in variants):
        raise field_error(["body", "aa_control"], f"a variant is already named {name!r}")
    return {**baseline, "name": name}


def is_aa_control(experiment: Experiment, variant_index: int) -> bool:
    """Whether this variant is the experiment's A/A control (the last variant when aa_control)."""
    return experiment.aa_control and variant_index == len(experiment.variants) - 1


def validate_parameters(slug: str, raw: dict[str, Any]) -> BaseModel:
    """The template's parameters model from `raw`; 422 naming each bad field
    (loc ["body", "parameters", "rows"]) with pydantic's message."""
    try:
        return WORKLOADS[slug].Parameters.model_validate(raw)
    except ValidationError as error:
        raise HTTPException(
            422,
            [
                {"loc": ["body", "parameters", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                for e in error.errors(include_url=False, include_context=False)
            ],
        ) from error


async def get_or_raise(session: AsyncSession, experiment_id: int) -> Experiment:
    """The experiment, or 404."""
    experiment = await session.get(Experiment, experiment_id)
    if experiment is None:
        raise not_found("experiment", experiment_id)
    return experiment
