"""Result read shapes: per-iteration series and the per-variant summary (the run page's response,
RunResults, adds the run itself: api/results.py)."""

from pydantic import BaseModel


class Point(BaseModel):
    """One iteration: elapsed_s is seconds, the sum of its statements' client-side times."""

    iteration: int
    elapsed_s: float


class SummaryRow(BaseModel):
    """Per variant: iterations stored, median/p95/total seconds, ratio = median / first variant's median."""

    variant: str
    variant_index: int
    iterations: int
    median_s: float | None
    p95_s: float | None
    total_s: float
    ratio: float | None


class ColumnSeries(BaseModel):
    """A variant's iterations as two columns of equal length, in iteration order (compact: no object per
    point). elapsed_s is seconds per iteration; total_points counts the iterations before downsampling."""

    variant: str
    variant_index: int
    iterations: list[int]
    elapsed_s: list[float]
    total_points: int
