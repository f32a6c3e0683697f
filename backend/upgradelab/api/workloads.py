"""/api/workloads: the templates a form can pick, with their parameter schemas, the article's set-up
and published figures, the cold/warm policies and the variant presets."""

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.db import SessionDep
from upgradelab.errors import not_found
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.variants import PRESETS
from upgradelab.results.views.contrasts import ContrastRead, run_contrasts
from upgradelab.runs.models import Experiment, Run
from upgradelab.workloads import POLICIES, WORKLOADS, Policy
from upgradelab.workloads.base import Workload, WorkloadInfo


class PresetRead(BaseModel):
    """A named configuration; `flavors` are the server flavors that support it."""

    name: str
    description: str
    flavors: list[str]


class PublishedFigureRead(BaseModel):
    """A series the article published: values in `unit` ("s", "tps", "ms") at `points`."""

    case: str
    unit: str
    points: list[str]
    values: list[float]


class PolicyRead(BaseModel):
    """A cold/warm policy."""

    name: Policy
    description: str


class ArticleCaseRead(BaseModel):
    """A case of the article as a ratio to its baseline point (both from the first published figure,
    in `unit`), and the variant that reproduces it here: the baseline's target with `preset`, or with
    `other_target` a default variant on another target (the article's other version)."""

    point: str
    value: float
    baseline_value: float
    unit: str
    ratio: float
    preset: str
    other_target: bool


NOT_IN_LATEST_RUN = "not in the latest run"


class ContrastCaseRead(BaseModel):
    """The article's figure for one of the template's contrasts on one version (`label`): numerator and
    denominator in `unit`, their `ratio`; beside it `measured`, the latest succeeded run's contrast of
    the same name, one per variant (ratio with its 95 % interval and verdict), or [] with
    `measured_note` "not in the latest run" (or why nothing was measured)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    contrast: str
    label: str
    numerator: float
    denominator: float
    unit: str
    ratio: float
    note: str
    measured: list[ContrastRead] = []
    measured_note: str | None = None


class WorkloadRead(BaseModel):
    """A workload template: `parameters_schema` is its JSON schema, `parameters_default` the defaults."""

    # fields with defaults are always in the response: required in the schema the UI's client reads
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    slug: str
    title: str
    article: str
    description: str
    setup: str
    published: list[PublishedFigureRead]
    default_iterations: int
    default_policy: Policy
    sweep: str | None
    parameters_schema: dict[str, Any]
    parameters_default: dict[str, Any]
    server_options: dict[str, str | None]
    policies: list[PolicyRead]
    presets: list[PresetRead]
    baseline_point: str | None = None
    cases: list[ArticleCaseRead] = []
    contrast_cases: list[ContrastCaseRead] = []
    # the run `contrast_cases[].measured` comes from (GET /api/workloads/{slug} only; None in the list)
    latest_run_id: int | None = None


router = APIRouter(prefix="/api/workloads", tags=["workloads"])


def _cases(info: WorkloadInfo) -> list[ArticleCaseRead]:
    """The article's cases as ratios to the baseline point of the first published figure."""
    if not info.cases or info.baseline_point is None:
        return []
    figure = info.published[0]
    values = dict(zip(figure.points, figure.values, strict=True))
    base = values[info.baseline_point]
    return [
        ArticleCaseRead(
            point=case.point,
            value=values[case.point],
            baseline_value=base,
            unit=figure.unit,
            ratio=values[case.point] / base,
            preset=case.preset,
            other_target=case.other_target,
        )
        for case in info.cases
    ]


def _contrast_cases(
    info: WorkloadInfo, measured: dict[str, list[ContrastRead]], note: str
) -> list[ContrastCaseRead]:
    """The article's contrast figures, each with the measured contrasts of that name (or `note`)."""
    return [
        ContrastCaseRead(
            contrast=case.contrast,
            label=case.label,
            numerator=case.numerator,
            denominator=case.denominator,
            unit=case.unit,
            ratio=case.ratio,
            note=case.note,
            measured=measured.get(case.contrast, []),
            measured_note=None if case.contrast in measured else note,
        )
        for case in info.contrast_cases
    ]


def _latest_contrasts(session: Session, slug: str) -> tuple[int | None, dict[str, list[ContrastRead]]]:
    """The latest succeeded run of the template (highest id) and its contrasts by name."""
    run = session.scalars(
        select(Run)
        .join(Experiment, Run.experiment_id == Experiment.id)
        .where(Experiment.workload == slug, Run.status == JobStatus.succeeded)
        .order_by(Run.id.desc())
        .limit(1)
    ).first()
    if run is None:
        return None, {}
    by_name: dict[str, list[ContrastRead]] = {}
    for row in run_contrasts(session, run).within:
        by_name.setdefault(row.name, []).append(row)
    return run.id, by_name


def _read(workload: type[Workload]) -> WorkloadRead:
    info = workload.info
    return WorkloadRead(
        slug=info.slug,
        title=info.title,
        article=info.article,
        description=info.description,
        setup=info.setup,
        published=[PublishedFigureRead(**asdict(figure)) for figure in info.published],
        default_iterations=info.default_iterations,
        default_policy=info.default_policy,
        sweep=info.sweep,
        parameters_schema=workload.Parameters.model_json_schema(),
        parameters_default=workload.Parameters().model_dump(mode="json"),
        server_options=dict(info.server_options),
        policies=[PolicyRead(name=name, description=text) for name, text in POLICIES.items()],
        presets=[
            PresetRead(name=p.name, description=p.description, flavors=list(p.flavors))
            for p in PRESETS.values()
        ],
        baseline_point=info.baseline_point,
        cases=_cases(info),
        contrast_cases=_contrast_cases(info, {}, "only GET /api/workloads/{slug} reads the latest run"),
    )


@router.get("", response_model=list[WorkloadRead])
async def list_workloads() -> list[WorkloadRead]:
    """Every workload template with its parameter schema, the article's figures, policies and presets."""
    return [_read(w) for w in WORKLOADS.values()]


@router.get("/{slug}", response_model=WorkloadRead)
async def get_workload(slug: str, session: SessionDep) -> WorkloadRead:
    """One template by slug; 404 for an unknown slug. `contrast_cases`: the article's within-version
    ratios (e.g. lock-waits' monitor cost, 468.702 s / 28.763 s = 16.3x on 8.0.32), each beside the
    latest succeeded run's contrast of that name per variant (ratio, 95 % interval, verdict;
    results/views/contrasts.py), or measured_note "not in the latest run"; `latest_run_id` that run."""
    workload = WORKLOADS.get(slug)
    if workload is None:
        raise not_found("workload", slug)
    read = _read(workload)
    run_id, measured = await session.run_sync(lambda sync: _latest_contrasts(sync, slug))
    note = NOT_IN_LATEST_RUN if run_id is not None else "no succeeded run of this template yet"
    return read.model_copy(
        update={"contrast_cases": _contrast_cases(workload.info, measured, note), "latest_run_id": run_id}
    )
