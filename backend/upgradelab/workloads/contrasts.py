"""What a template's numbers are compared in: the primary metrics its verdicts are on, and the
contrasts (named ratios between two sides inside one variant) its article makes."""

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class PrimaryMetric:
    """What a verdict compares: `name` is "seconds" (the iteration's total, iteration.elapsed_s) or a key
    of iteration.metrics (sysbench "tps", "p95_ms"); `higher_is_better` gives the direction."""

    name: str
    unit: str
    higher_is_better: bool = False


SECONDS = PrimaryMetric("seconds", "s")


Scans = Literal["all", "first", "later"]


@dataclass(frozen=True)
class Side:
    """One side of a contrast: a group's iterations in each round, all of them or, for a cold-then-warm
    group, only the round's first iteration of that group ("first") or the rest ("later")."""

    group: str
    scans: Scans = "all"

    @property
    def label(self) -> str:
        name = self.group.split("=", 1)[-1] if self.scans != "all" else self.group
        return name if self.scans == "all" else f"{name} {self.scans}"


@dataclass(frozen=True)
class Contrast:
    """A named ratio inside one variant: the numerator side's round value over the denominator's, in
    `metric` (results/views/contrasts.py pairs them within each round). `name` is how article cases
    (ContrastCase.contrast) find it, e.g. "monitor=on / monitor=off"."""

    name: str
    numerator: Side
    denominator: Side
    metric: PrimaryMetric = SECONDS
    description: str = ""
