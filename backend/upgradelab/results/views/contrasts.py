"""Contrasts: a template's own ratios inside one variant (monitor on / off, N threads / 1, a table's
first count / its later ones), and across variants the ratio of two variants' contrasts (does the
upgrade change the effect?). Read from the stored `iteration` rows; nothing is stored.

Within a variant, per round: the numerator side's round value (the median of its iterations in that
round; "first" = the round's first iteration of the group, "later" = the others) over the
denominator side's, paired within the round as a verdict pairs two variants (results/stats/verdicts.py
`interval`: 20 % trimmed geometric mean of the per-round ratios, Tukey-McLaughlin interval; one round:
within-block bootstrap, never a verdict). Across variants, per round: variant's contrast over the
baseline's (variant 0) in the same round, through the same `interval` and `read`.

The verdict's words are the verdict module's, on the contrast's metric: for seconds "regression"
means the numerator side is slower (the monitor costs), "improvement" faster (N threads speed it up);
across variants "regression" means the variant's ratio is larger than the baseline's.
"""

from collections import defaultdict

from pydantic import BaseModel, ConfigDict
from sqlalchemy.orm import Session

from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.results.store.rounds import RunRounds, VariantRounds, load
from upgradelab.runs.models import Run
from upgradelab.workloads import stored_workload
from upgradelab.workloads.base import Contrast, Side, Workload


class ContrastRead(BaseModel):
    """One contrast of one variant: `name` (the template's, e.g. "monitor=on / monitor=off"), its
    sides ("monitor=on", "test_long first"), the metric and its unit, and the verdict read
    (results/stats/verdicts.VerdictRead: ratio numerator / denominator, unitless, 95 % interval,
    rounds); verdict None when a side has no iteration in this run."""

    variant: str
    variant_index: int
    name: str
    numerator: str
    denominator: str
    metric: str
    unit: str
    description: str
    verdict: VerdictRead | None


class ContrastChangeRead(BaseModel):
    """Across variants: `variant`'s contrast `name` over `baseline`'s, paired within the round (the
    article's "16x on 8.0.32, 1.02x on 8.0.40" as one ratio with its interval); verdict None when
    either contrast has no value."""

    name: str
    baseline: str
    variant: str
    metric: str
    verdict: VerdictRead | None


class RunContrasts(BaseModel):
    """A run's contrasts: `within` one row per variant and contrast (variants in experiment order),
    `across` one row per contrast and variant after the first (over variant 0)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    within: list[ContrastRead] = []
    across: list[ContrastChangeRead] = []


def workload_of(run: Run) -> Workload | None:
    """The run's template with the experiment's parameters; None for an unknown template or parameters
    it no longer accepts (an old run)."""
    return stored_workload(run.experiment.workload, run.experiment.parameters)


def side_rounds(variant: VariantRounds, side: Side, contrast: Contrast) -> dict[int, list[float]]:
    """round -> the side's values in that round (the metric's unit): every iteration of the group,
    its first in the round, or the others."""
    by_round: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for point in variant.groups.get(side.group, []):
        value = point.value(contrast.metric)
        if value is not None:
            by_round[point.round].append((point.iteration, value))
    out: dict[int, list[float]] = {}
    for round_, pairs in by_round.items():
        pairs.sort()
        picked = pairs[:1] if side.scans == "first" else pairs[1:] if side.scans == "later" else pairs
        if picked:
            out[round_] = [value for _, value in picked]
    return out


def contrast_rounds(variant: VariantRounds, contrast: Contrast) -> dict[int, float]:
    """round -> the contrast in that round (numerator round value / denominator's), rounds where both
    sides have a positive value."""
    numerator = verdicts.round_values(side_rounds(variant, contrast.numerator, contrast))
    denominator = verdicts.round_values(side_rounds(variant, contrast.denominator, contrast))
    return {
        r: numerator[r] / denominator[r]
        for r in sorted(set(numerator) & set(denominator))
        if numerator[r] > 0 and denominator[r] > 0
    }


def within(
    variant: VariantRounds, contrast: Contrast, threshold: float = verdicts.DEFAULT_THRESHOLD
) -> ContrastRead:
    """The contrast of one variant with its interval and verdict (module docstring)."""
    found = verdicts.interval(
        side_rounds(variant, contrast.denominator, contrast),
        side_rounds(variant, contrast.numerator, contrast),
        paired=True,
    )
    return ContrastRead(
        variant=variant.name,
        variant_index=variant.variant_index,
        name=contrast.name,
        numerator=contrast.numerator.label,
        denominator=contrast.denominator.label,
        metric=contrast.metric.name,
        unit=contrast.metric.unit,
        description=contrast.description,
        verdict=verdicts.read(found, threshold, contrast.metric.higher_is_better),
    )


def across(
    baseline: VariantRounds,
    variant: VariantRounds,
    contrast: Contrast,
    threshold: float = verdicts.DEFAULT_THRESHOLD,
) -> ContrastChangeRead:
    """`variant`'s contrast over `baseline`'s, paired within the round (module docstring)."""
    base = {r: [value] for r, value in contrast_rounds(baseline, contrast).items()}
    var = {r: [value] for r, value in contrast_rounds(variant, contrast).items()}
    found = verdicts.interval(base, var, paired=True)
    return ContrastChangeRead(
        name=contrast.name,
        baseline=baseline.name,
        variant=variant.name,
        metric=contrast.metric.name,
        verdict=verdicts.read(found, threshold, contrast.metric.higher_is_better),
    )


def of_rounds(
    loaded: RunRounds, contrasts: list[Contrast], threshold: float = verdicts.DEFAULT_THRESHOLD
) -> RunContrasts:
    """Every contrast of every variant (A/A control included: its contrast should match variant 0's),
    and each variant's over variant 0's."""
    if not contrasts or not loaded.variants:
        return RunContrasts()
    first, *others = loaded.variants
    return RunContrasts(
        within=[within(v, c, threshold) for v in loaded.variants for c in contrasts],
        across=[across(first, v, c, threshold) for c in contrasts for v in others],
    )


def run_contrasts(session: Session, run: Run, threshold: float = verdicts.DEFAULT_THRESHOLD) -> RunContrasts:
    """The run's contrasts as its template declares them for the experiment's parameters
    (Workload.contrasts), from every stored iteration (no warm-up cut: a first/later contrast needs
    the first); empty when the template declares none."""
    workload = workload_of(run)
    if workload is None:
        return RunContrasts()
    contrasts = workload.contrasts()
    if not contrasts:
        return RunContrasts()
    return of_rounds(load(session, run, 0), contrasts, threshold)
