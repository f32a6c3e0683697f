"""What a workload template says about itself: its restart policies, the article it reproduces
(published figures, the cases a variant reproduces, its within-version ratios) and WorkloadInfo,
what the UI and CLI show of it."""

from dataclasses import dataclass, field
from typing import Literal

Policy = Literal["warm", "cold_first", "cold_each_group", "cold_every"]
POLICIES: dict[str, str] = {
    "warm": "No restart: the server started for the variant serves every iteration.",
    "cold_first": "Restart (empty buffer pool) before the first iteration of each variant.",
    "cold_each_group": "Restart before the first iteration of each group (table, thread count).",
    "cold_every": "Restart before every iteration: every iteration is cold.",
}


@dataclass(frozen=True)
class PublishedFigure:
    """One series the article published: `values` in `unit` at `points` (runs 1..n, thread counts)."""

    case: str
    unit: str
    points: list[str]
    values: list[float]


@dataclass(frozen=True)
class ArticleCase:
    """A case of the article that a variant reproduces: `point` names one of the first published
    figure's points (its value over the baseline point's is the article's ratio); the variant is the
    baseline's target with `preset`, or, with `other_target`, a server on another target (the
    article's other version) with the default preset."""

    point: str
    preset: str = "default"
    other_target: bool = False


@dataclass(frozen=True)
class ContrastCase:
    """What the article published for one contrast on one version (`label`, e.g. "8.0.32"): the
    numerator and denominator figures in `unit` (e.g. 468.702 s with the monitor, 28.763 s without);
    their ratio is set beside the latest run's contrast of the same name."""

    contrast: str
    label: str
    numerator: float
    denominator: float
    unit: str
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.numerator / self.denominator


@dataclass(frozen=True)
class WorkloadInfo:
    """What the UI and CLI show of a workload. `sweep` names the x axis of a sweep ("threads")."""

    slug: str
    title: str
    article: str
    description: str
    default_iterations: int
    server_options: dict[str, str | None] = field(default_factory=dict)
    setup: str = ""
    published: list[PublishedFigure] = field(default_factory=list)
    default_policy: Policy = "warm"
    sweep: str | None = None
    # Like with like on the template's page: the article's ratios to its baseline point beside the
    # latest run's (variant / the baseline target's default variant), per case.
    baseline_point: str | None = None
    cases: list[ArticleCase] = field(default_factory=list)
    # The article's own within-version ratios (monitor on / off, N threads / 1, first scan / later),
    # matched by name to the contrasts a run of the template computes (Workload.contrasts).
    contrast_cases: list[ContrastCase] = field(default_factory=list)
