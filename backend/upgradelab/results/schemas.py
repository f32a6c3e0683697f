"""Result API shapes: per-iteration series and the per-variant summary."""

from pydantic import BaseModel

from upgradelab.runs.schemas import RunRead


class Point(BaseModel):
    """One iteration: elapsed_s is seconds, the sum of its statements' client-side times."""

    iteration: int
    elapsed_s: float


class Series(BaseModel):
    """A variant's iterations in order."""

    variant: str
    variant_index: int
    points: list[Point]


class SummaryRow(BaseModel):
    """Per variant: iterations stored, median/p95/total seconds, ratio = median / first variant's median."""

    variant: str
    variant_index: int
    iterations: int
    median_s: float | None
    p95_s: float | None
    total_s: float
    ratio: float | None


class StatementRow(BaseModel):
    """Per variant and statement label: how many times it ran and its median/p95/total seconds."""

    variant: str
    variant_index: int
    statement: str
    count: int
    median_s: float | None
    p95_s: float | None
    total_s: float


class RunResults(BaseModel):
    """What the run page draws."""

    run: RunRead
    series: list[Series]
    summary: list[SummaryRow]
