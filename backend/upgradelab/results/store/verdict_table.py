"""The verdict table: one row per variant, group and primary metric, against a baseline variant.

Rows are built from rounds (results/store/rounds.py) with the statistics of results/stats/verdicts.py;
the verdict itself is decided when read (`VerdictRow.decision(threshold)`), so a stored row serves any
threshold.
"""

from dataclasses import dataclass

from upgradelab.experiments.schedule import looks
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.bootstrap import statistic
from upgradelab.results.store.rounds import RunRounds, VariantRounds
from upgradelab.workloads.base import PrimaryMetric


@dataclass(frozen=True)
class VerdictRow:
    """One variant x group x metric. *_s: iteration seconds of the group (client-side sum of its
    statements); median/p95: the metric's own values in its unit (equal to median_s/p95_s for seconds).

    interval: ratio to the baseline (None for the baseline itself or without data); floor: the run's
    A/A control against variant 0 in the same group and metric (None without an A/A control).
    """

    run_id: int
    variant_index: int
    variant: str
    is_aa_control: bool
    group: str
    metric: PrimaryMetric
    iterations: int
    rounds: int
    median_s: float | None
    p95_s: float | None
    mean_s: float | None
    total_s: float
    median: float | None
    p95: float | None
    interval: verdicts.Interval | None
    floor: verdicts.Interval | None
    # round -> the median of the metric's values in that round (what the rounds chart draws); None when
    # read from a summary stored before these were
    round_values: dict[int, float] | None = None

    def decision(self, threshold: float) -> verdicts.Decision | None:
        """The verdict at `threshold` (fraction), direction from the metric, A/A floor applied."""
        return verdicts.decide(self.interval, threshold, self.metric.higher_is_better, self.floor)

    def read(self, threshold: float) -> verdicts.VerdictRead | None:
        """The interval and its verdict at `threshold` as shown and stored (decision() above)."""
        return verdicts.read(self.interval, threshold, self.metric.higher_is_better, self.floor)

    def floor_read(self, threshold: float) -> verdicts.VerdictRead | None:
        """The A/A control's interval and its own verdict at `threshold` (no floor under a floor)."""
        return verdicts.read(self.floor, threshold, self.metric.higher_is_better)


def _row(
    variant: VariantRounds,
    group: str,
    metric: PrimaryMetric,
    baseline: VariantRounds,
    floor: verdicts.Interval | None,
    confidence: float,
) -> VerdictRow:
    points = variant.groups.get(group, [])
    seconds = [p.elapsed_s for p in points]
    values = [v for p in points if (v := p.value(metric)) is not None]
    rounds = variant.rounds(group, metric)
    is_baseline = variant is baseline
    found = (
        None
        if is_baseline
        else verdicts.interval(
            baseline.rounds(group, metric), rounds, variant.run_id == baseline.run_id, confidence
        )
    )
    return VerdictRow(
        run_id=variant.run_id,
        variant_index=variant.variant_index,
        variant=variant.name,
        is_aa_control=variant.is_aa_control,
        group=group,
        metric=metric,
        iterations=len(points),
        rounds=len(rounds),
        median_s=statistic(seconds, "median"),
        p95_s=statistic(seconds, "p95"),
        mean_s=sum(seconds) / len(seconds) if seconds else None,
        total_s=sum(seconds),
        median=statistic(values, "median"),
        p95=statistic(values, "p95"),
        interval=found,
        floor=None if is_baseline or variant.is_aa_control else floor,
        round_values=verdicts.round_values(rounds),
    )


def _floor(run: RunRounds, group: str, metric: PrimaryMetric, confidence: float) -> verdicts.Interval | None:
    """The A/A control against the variant it duplicates (variant 0), paired by round."""
    control = run.aa_control
    if control is None or not run.variants:
        return None
    baseline = run.variants[0].rounds(group, metric)
    return verdicts.interval(baseline, control.rounds(group, metric), True, confidence)


def table(runs: list[RunRounds], baseline: VariantRounds) -> list[VerdictRow]:
    """Rows in run, variant, group, metric order; groups and metrics are the baseline run's.

    The A/A floor applies to the rows of the baseline's own run (rounds of another run are not paired
    with it, so its floor says nothing about them). Intervals are at verdicts.confidence_for the
    baseline run's looks: 95 %, or narrower per look for an auto-extended run.
    """
    home = next(run for run in runs if run.run.id == baseline.run_id)
    experiment = home.run.experiment
    confidence = verdicts.confidence_for(looks(experiment.rounds, experiment.max_rounds))
    floors = {(g, m): _floor(home, g, m, confidence) for g in home.groups for m in home.metrics}
    rows = []
    for run in runs:
        for variant in run.variants:
            for group in home.groups:
                for metric in home.metrics:
                    floor = floors[(group, metric)] if run is home else None
                    rows.append(_row(variant, group, metric, baseline, floor, confidence))
    return rows
