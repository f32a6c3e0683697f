"""A run's iterations as the verdicts read them: per variant, per group, per round (the `iteration` table)."""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.results.store.models import iteration_columns
from upgradelab.runs.models import Run, RunVariant
from upgradelab.workloads import WORKLOADS
from upgradelab.workloads.base import SECONDS, PrimaryMetric


@dataclass(frozen=True)
class Point:
    """One iteration: its round, seconds (iteration.elapsed_s) and summed numeric metrics."""

    iteration: int
    round: int
    elapsed_s: float
    metrics: dict[str, float]

    def value(self, metric: PrimaryMetric) -> float | None:
        """The metric's value in this iteration (seconds, or metrics[name]); None when not measured."""
        return self.elapsed_s if metric.name == SECONDS.name else self.metrics.get(metric.name)


@dataclass
class VariantRounds:
    """One variant of one run: every kept iteration in order, and the same grouped by group."""

    run_id: int
    variant_index: int
    name: str
    is_aa_control: bool
    points: list[Point] = field(default_factory=list)
    groups: dict[str, list[Point]] = field(default_factory=lambda: defaultdict(list))

    def rounds(self, group: str, metric: PrimaryMetric) -> dict[int, list[float]]:
        """round -> the metric's values of this group in that round (the input of results/verdicts)."""
        out: dict[int, list[float]] = defaultdict(list)
        for point in self.groups.get(group, []):
            value = point.value(metric)
            if value is not None:
                out[point.round].append(value)
        return dict(out)


@dataclass
class RunRounds:
    """A run's variants (experiment order), its groups in first-seen order and the workload's metrics."""

    run: Run
    variants: list[VariantRounds]
    groups: list[str]
    metrics: tuple[PrimaryMetric, ...]

    @property
    def aa_control(self) -> VariantRounds | None:
        """The A/A control (a second instance of variant 0), if the run has one."""
        return next((v for v in self.variants if v.is_aa_control), None)


def _numbers(metrics: dict[str, Any] | None) -> dict[str, float]:
    return {k: float(v) for k, v in (metrics or {}).items() if isinstance(v, int | float)}


def load(session: Session, run: Run, warmup: int = 0) -> RunRounds:
    """The run's iterations after the first `warmup` of every variant (iteration numbers are per variant).

    A/A control: run_variant.is_aa_control (rows written by the runner; none for older runs).
    """
    aa = set(
        session.scalars(
            select(RunVariant.variant_index).where(RunVariant.run_id == run.id, RunVariant.is_aa_control)
        )
    )
    variants = [
        VariantRounds(run.id, index, spec.name, index in aa)
        for index, spec in enumerate(run.experiment.variants)
    ]
    groups: list[str] = []
    rows = session.execute(iteration_columns(run.id, after=warmup))
    for variant_index, iteration, round_, group, elapsed_s, metrics in rows:
        if variant_index >= len(variants):
            continue  # an iteration of a variant the experiment no longer lists: not comparable
        point = Point(iteration, round_, elapsed_s, _numbers(metrics))
        variant = variants[variant_index]
        variant.points.append(point)
        variant.groups[group].append(point)
        if group not in groups:
            groups.append(group)
    workload = WORKLOADS.get(run.experiment.workload)
    metrics = workload.primary_metrics if workload is not None else (SECONDS,)
    return RunRounds(run, variants, groups or [""], metrics)
