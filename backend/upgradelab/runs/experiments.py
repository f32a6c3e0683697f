"""Experiment verbs: create (variants resolved and checked against the targets table), get_or_raise."""

from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error, not_found
from upgradelab.experiments.preflight import stored_refusal
from upgradelab.experiments.schedule import ScheduleError, check_extension, resolve_schedule
from upgradelab.experiments.schemas import ExperimentCreate
from upgradelab.experiments.variants import ResolvedVariant, unsupported_reason
from upgradelab.runs.models import Experiment
from upgradelab.targets import option_lists
from upgradelab.targets import service as targets
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import ServerNames
from upgradelab.targets.options import OptionError, validate_option
from upgradelab.workloads import WORKLOADS, TargetFacts


async def create(session: AsyncSession, spec: ExperimentCreate) -> Experiment:
    """Store an experiment. 422 naming variants.N.target for an unknown target, variants.N.preset
    for a preset the target's flavor cannot take (e.g. redo-off on MariaDB), or
    variants.N.options.<name> for a refused option (_check_options: by category and against the
    target's option list, built now when it is not cached); 503 naming the target when its list
    cannot be built (targets/option_lists.py)."""
    workload_type = WORKLOADS[spec.workload]
    parameters = validate_parameters(spec.workload, spec.parameters)
    workload_instance = workload_type(parameters)
    known = await targets.get_by_names(session, {v.target for v in spec.variants})
    lists: dict[str, ServerNames | None] = {}
    resolved: list[ResolvedVariant] = []
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
        _check_options(index, variant, target, await _names(lists, target) if variant.options else None)
        resolved.append(variant)
    workload = workload_type.info
    try:
        schedule = resolve_schedule(
            spec.schedule, spec.iterations, spec.rounds, spec.block, spec.seed, workload.default_iterations
        )
        check_extension(schedule, spec.max_rounds, spec.max_minutes)
    except ScheduleError as error:
        raise field_error(["body", error.field], str(error)) from error
    name = spec.name or f"{workload.title}: {', '.join(v.name for v in resolved)}"
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


async def _names(lists: dict[str, ServerNames | None], target: Target) -> ServerNames | None:
    """The target's option names, read once per request (built when not cached; 503 naming the
    target when they cannot be read: targets/option_lists.py)."""
    if target.name not in lists:
        lists[target.name] = await option_lists.names_or_503(target)
    return lists[target.name]


def _check_options(index: int, variant: ResolvedVariant, target: Target, names: ServerNames | None) -> None:
    """422 at ["body", "variants", index, "options", <name>] for an option in a refused category (the
    target's admin-listed `allowed_options` excepted) or not listed in full by the target's binary
    (`names`; None only for an existing target, whose startup options pre-flight refuses by capability)."""
    refused = _refused_option(variant.options, target, names)
    if refused is not None:
        option, error = refused
        raise field_error(
            ["body", "variants", index, "options", option[:80]], f"variant {variant.name!r}: {error}"
        ) from error


def _refused_option(
    options: dict[str, str | None], target: Target, names: ServerNames | None
) -> tuple[str, OptionError] | None:
    """The first option refused by category or by name, with the error naming it; None when all pass."""
    allowed = target.settings.allowed_options or []
    for option, value in options.items():
        try:
            validate_option(option, value, allowed)
            if names is not None:
                names.canonical(option)
        except OptionError as error:
            return option, error
    return None


async def check_runnable(session: AsyncSession, experiment: Experiment) -> None:
    """Check a stored experiment's startup options again before a run of it is queued (a new run or
    a re-run): its targets' binaries may have changed, or it was stored before their lists were
    built. 409 naming the variant and the option; 422 for a target that no longer exists; 503 when
    a target's option list cannot be built (targets/option_lists.py)."""
    known = await targets.get_by_names(session, {variant.target for variant in experiment.variants})
    lists: dict[str, ServerNames | None] = {}
    for variant in experiment.variants:
        target = known.get(variant.target)
        if target is None:
            raise field_error(["experiment", "variants"], f"target {variant.target!r} no longer exists")
        if not variant.options:
            continue
        refused = _refused_option(variant.options, target, await _names(lists, target))
        if refused is not None:
            from fastapi import HTTPException, status  # the worker imports this module too (issue 31)

            raise HTTPException(
                status.HTTP_409_CONFLICT,
                f"experiment {experiment.id}, variant {variant.name!r}: {refused[1]}; "
                "create the experiment again without it",
            )


def aa_copy(variants: list[ResolvedVariant]) -> ResolvedVariant:
    """The A/A control: the baseline (variant 0), same target and configuration, named
    "<baseline> (A/A)"; it runs on an instance of its own and is always the last variant."""
    baseline = variants[0]
    name = f"{baseline.name} (A/A)"
    if any(v.name == name for v in variants):
        raise field_error(["body", "aa_control"], f"a variant is already named {name!r}")
    return baseline.model_copy(update={"name": name})


def is_aa_control(experiment: Experiment, variant_index: int) -> bool:
    """Whether this variant is the experiment's A/A control (the last variant when aa_control)."""
    return experiment.aa_control and variant_index == len(experiment.variants) - 1


def validate_parameters(slug: str, raw: dict[str, Any]) -> BaseModel:
    """The template's parameters model from `raw`; 422 naming each bad field
    (loc ["body", "parameters", "rows"]) with pydantic's message."""
    try:
        return WORKLOADS[slug].Parameters.model_validate(raw)
    except ValidationError as error:
        from fastapi import HTTPException

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
