"""Comparison API shapes: variants of one or more runs against a baseline variant."""

from typing import Literal

from pydantic import BaseModel, Field

from upgradelab.results.schemas import Point


class ComparisonQuery(BaseModel):
    """What to compare. Variant keys are "RUN_ID:VARIANT_INDEX"."""

    runs: list[int] = Field(min_length=1, max_length=10)
    baseline: str | None = Field(None, pattern=r"^\d+:\d+$", description="Default: first run, variant 0.")
    warmup: int = Field(0, ge=0, description="Iterations excluded from the start of every variant.")
    threshold: float = Field(
        0.05, gt=0, lt=1, description="Smallest ratio change called a verdict (0.05 = 5 %)."
    )


class RatioRead(BaseModel):
    """variant / baseline of one statistic, unitless, with its bootstrap 95% interval and verdict."""

    ratio: float
    low: float
    high: float
    verdict: Literal["regression", "improvement", "no significant difference"] | None


class ComparisonRow(BaseModel):
    """One variant of one run. Times are seconds per iteration (sum of its statements, client-side)."""

    key: str
    run_id: int
    run_name: str
    variant_index: int
    variant: str
    label: str
    is_baseline: bool
    iterations: int
    median_s: float | None
    p95_s: float | None
    mean_s: float | None
    median: RatioRead | None
    p95: RatioRead | None


class ComparisonSeries(BaseModel):
    """A variant's per-iteration seconds, LTTB-downsampled to at most max_points."""

    key: str
    label: str
    points: list[Point]
    total_points: int


class Comparison(BaseModel):
    """The verdict table and the series on shared axes. `stored`: numbers read from variant_summary."""

    query: ComparisonQuery
    baseline: str
    unit: Literal["s"] = "s"
    confidence: float
    resamples: int
    seed: int
    stored: bool
    rows: list[ComparisonRow]
    series: list[ComparisonSeries]
