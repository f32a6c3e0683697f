"""Comparison API shapes: variants of one or more runs against a baseline variant, per group and metric."""

from typing import Literal

from pydantic import BaseModel, Field

from upgradelab.request_model import RequestModel
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.results.views.schemas import Point


class ComparisonQuery(RequestModel):
    """What to compare. Variant keys are "RUN_ID:VARIANT_INDEX"."""

    runs: list[int] = Field(min_length=1, max_length=10)
    baseline: str | None = Field(None, pattern=r"^\d+:\d+$", description="Default: first run, variant 0.")
    warmup: int = Field(0, ge=0, description="Iterations excluded from the start of every variant.")
    threshold: float = Field(
        0.05, gt=0, lt=1, description="Smallest ratio change called a verdict (0.05 = 5 %)."
    )


class ComparisonRow(BaseModel):
    """One variant of one run in one group on one primary metric.

    *_s: seconds per iteration (sum of its statements, client-side) within the group; median/p95: the
    metric's own values in `unit` (tps, ms; the same as median_s/p95_s when metric is "seconds").
    ratio: against the baseline at the query's threshold; aa_floor: the run's A/A control against
    variant 0 in the same group and metric (this run's noise floor), with its own verdict.
    """

    key: str
    run_id: int
    run_name: str
    variant_index: int
    variant: str
    label: str
    is_baseline: bool
    is_aa_control: bool
    group: str
    metric: str
    unit: str
    higher_is_better: bool
    iterations: int
    rounds: int
    median_s: float | None
    p95_s: float | None
    mean_s: float | None
    median: float | None
    p95: float | None
    ratio: VerdictRead | None
    aa_floor: VerdictRead | None


class ComparisonSeries(BaseModel):
    """A variant's per-iteration seconds, LTTB-downsampled to at most max_points."""

    key: str
    label: str
    points: list[Point]
    total_points: int


class RoundPoint(BaseModel):
    """A variant's per-round median of one metric in one group (the metric's unit)."""

    round: int
    value: float


class RoundSeries(BaseModel):
    """Per-round medians of one variant, group and metric: what the verdict rests on."""

    key: str
    label: str
    group: str
    metric: str
    points: list[RoundPoint]


class Comparison(BaseModel):
    """The verdict table and the series on shared axes. `stored`: rows read from variant_summary.

    min_rounds: rounds a verdict needs; resamples/seed: the within-block bootstrap of one-round runs.
    """

    query: ComparisonQuery
    baseline: str
    unit: Literal["s"] = "s"
    confidence: float
    min_rounds: int
    resamples: int
    seed: int
    stored: bool
    rows: list[ComparisonRow]
    series: list[ComparisonSeries]
    rounds: list[RoundSeries]
