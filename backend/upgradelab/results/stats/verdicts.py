"""Verdicts that survive noise: variants compared round by round, per group, on the workload's metric.

A run is R rounds; in each round every variant runs one block. Whatever the machine does during a
round lands on every variant of that round, so the unit of evidence is the round, never the
iterations of one block (they share one set of conditions and make any difference look significant).

Per group (table, thread count, sweep point; never pooled) and per primary metric of the workload
(workloads/base.py `primary_metrics`: iteration seconds, or sysbench tps / p95_ms):

1. round value: the median of the variant's iterations of that group in that round;
2. ratio per round: variant / baseline, paired within the round (same run), as a log ratio;
3. interval (95 %): the 20 % trimmed mean of the log ratios with its Tukey-McLaughlin t interval
   (results/stats/paired.py, scipy.stats.mstats.trimmed_mean_ci), back-transformed: the ratio is the
   trimmed geometric mean of the per-round ratios. Why trimmed: a load burst that starts or ends
   inside a round loads one variant's block and not the other's, and throws that round's ratio 30-90 %
   off; the plain t interval (the mean) widens by the square of that, so under a load window over a
   third of the run an A/A pair never reached "no significant difference". The trimmed interval cuts
   int(0.2 n) rounds from each end (winsorized variance, n - 2g - 1 degrees of freedom); below 5
   rounds it is the t interval. Measured against t and Hodges-Lehmann/Wilcoxon in bench/README.md
   (verdict_methods.py). Why an interval on the rounds and not a bootstrap: with 5-20 rounds a
   percentile bootstrap of the mean undercovers (its interval is about sqrt((n-1)/n) x z/t too narrow:
   at 5 rounds a 95 % bootstrap interval is an 85 % one), which is exactly the false verdict this
   module exists to prevent. Across runs rounds are not paired: Welch's t on the log round values
   (scipy.stats.ttest_ind(equal_var=False)).
4. verdict at the threshold t (a fraction), direction-aware ("worse" is a ratio above 1 for seconds and
   latency, below 1 for throughput):
   - "regression" / "improvement": the interval excludes 1 on that side AND the ratio itself is beyond
     1 +/- t AND, when the run has an A/A control, the interval lies entirely outside the A/A
     control's interval (the noise floor of this run);
   - "no significant difference": the whole interval lies within [1 - t, 1 + t]: any change this run
     could hide is smaller than the threshold;
   - "inconclusive": anything else (the interval is too wide, or the difference is inside the A/A
     floor); the smallest detectable change says how wide;
   - "insufficient rounds": fewer than MIN_ROUNDS rounds. A sequential run (one round) still gets an
     interval, labelled method="within-block bootstrap": iterations of one block resampled
     (results/stats/bootstrap.py). It describes that block, not the variant, and is never a verdict.
   Smallest detectable change (mde): the interval's half-width as a fraction of the ratio,
   sqrt(high / low) - 1: a true change smaller than this could not have been told apart from none.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel

from upgradelab.results.stats import bootstrap, paired

MIN_ROUNDS = 5
ESTIMATOR: paired.Estimator = "trimmed"  # of the paired rounds; chosen by bench/verdict_methods.py
CONFIDENCE = 0.95
DEFAULT_THRESHOLD = 0.05

Verdict = Literal[
    "regression", "improvement", "no significant difference", "inconclusive", "insufficient rounds"
]
VERDICTS: tuple[Verdict, ...] = (
    "regression",
    "improvement",
    "no significant difference",
    "inconclusive",
    "insufficient rounds",
)
Method = Literal["paired rounds", "unpaired rounds", "within-block bootstrap"]
Rounds = Mapping[int, Sequence[float]]  # round number -> one variant's values of one metric in that round


@dataclass(frozen=True)
class Interval:
    """variant / baseline of one metric (unitless): point ratio, 95 % interval, the rounds it rests on."""

    ratio: float
    low: float
    high: float
    rounds: int
    method: Method

    @property
    def mde(self) -> float:
        """Smallest detectable change: the interval's half-width as a fraction, sqrt(high / low) - 1."""
        return math.sqrt(self.high / self.low) - 1


@dataclass(frozen=True)
class Decision:
    """A verdict and why (a sentence the UI shows as is)."""

    verdict: Verdict
    reason: str


class VerdictRead(BaseModel):
    """A verdict as every reader sees it (run results, comparisons, replays; stored as one JSON value in
    variant_summary): variant / baseline of one metric (unitless), its 95 % interval [low, high], the
    rounds it rests on, `method` ("paired rounds" within a run, "unpaired rounds" across runs,
    "within-block bootstrap" for one round: not a verdict), mde (smallest detectable change, the
    interval's half-width as a fraction, sqrt(high / low) - 1), the verdict at a threshold and its
    reason (one sentence). Built in one place: `read` (this module)."""

    ratio: float
    low: float
    high: float
    rounds: int
    method: Method
    mde: float
    verdict: Verdict
    reason: str

    def interval(self) -> Interval:
        """The interval it was read from (a stored verdict decided again at another threshold)."""
        return Interval(self.ratio, self.low, self.high, self.rounds, self.method)


def round_values(rounds: Rounds) -> dict[int, float]:
    """round -> the median of that round's values (rounds without values are left out)."""
    return {r: float(np.median(values)) for r, values in sorted(rounds.items()) if len(values)}


def interval(
    baseline: Rounds, variant: Rounds, paired: bool, confidence: float = CONFIDENCE
) -> Interval | None:
    """The ratio variant / baseline with its 95 % interval, from the rounds (see the module docstring).

    paired: both come from one run, so round r of each shared the same conditions. With fewer than two
    usable rounds the interval is the within-block bootstrap of medians (method says so).
    None when either side has no value or a value <= 0 (a ratio of those means nothing).
    confidence: of the rounds' interval; below 0.95 for an auto-extended run (`confidence_for`).
    """
    base, var = round_values(baseline), round_values(variant)
    if not base or not var or min(base.values()) <= 0 or min(var.values()) <= 0:
        return None
    if paired:
        common = sorted(set(base) & set(var))
        logs = np.log([var[r] for r in common]) - np.log([base[r] for r in common])
        if len(logs) >= 2:
            return _paired_interval(logs, confidence)
    elif len(base) >= 2 and len(var) >= 2:
        log_base, log_var = np.log(list(base.values())), np.log(list(var.values()))
        if np.ptp(log_base) == 0 and np.ptp(log_var) == 0:
            ratio = math.exp(float(log_var[0] - log_base[0]))
            return Interval(ratio, ratio, ratio, min(len(base), len(var)), "unpaired rounds")
        from scipy import stats  # ~1 CPU-s: imported by the first verdict, not by every importer

        result = stats.ttest_ind(log_var, log_base, equal_var=False)
        ci = result.confidence_interval(confidence)
        point = float(np.mean(log_var) - np.mean(log_base))
        return Interval(
            math.exp(point),
            math.exp(ci.low),
            math.exp(ci.high),
            min(len(base), len(var)),
            "unpaired rounds",
        )
    flat_base = [v for values in baseline.values() for v in values]
    flat_var = [v for values in variant.values() for v in values]
    within = bootstrap.ratio_interval(flat_base, flat_var, "median")
    if within is None:
        return None
    rounds = len(set(base) & set(var)) if paired else min(len(base), len(var))
    return Interval(within.ratio, within.low, within.high, rounds, "within-block bootstrap")


def confidence_for(looks: int) -> float:
    """The interval's confidence when a run may be judged `looks` times (experiments/schedule.looks):
    an auto-extension stops as soon as a verdict is decided, so each look is one more chance of a
    false verdict; Bonferroni shares the 5 % among the looks (0.95 for 1 look, 0.99 for 5) and keeps
    the run's overall false-verdict rate at most 5 %."""
    return 1 - (1 - CONFIDENCE) / max(1, looks)


def _paired_interval(logs: np.ndarray, confidence: float) -> Interval:
    # An estimator without an interval at this many rounds (Hodges-Lehmann below 6) falls back to t.
    found = paired.shift(logs, ESTIMATOR, confidence) or paired.shift(logs, "t", confidence)
    assert found is not None  # t has an interval from 2 rounds on
    point, low, high = (math.exp(value) for value in found)
    return Interval(point, low, high, len(logs), "paired rounds")


def decide(
    found: Interval | None,
    threshold: float = DEFAULT_THRESHOLD,
    higher_is_better: bool = False,
    floor: Interval | None = None,
) -> Decision | None:
    """The verdict on one interval at `threshold` (fraction, 0.05 = 5 %); rules in the module docstring.

    floor: the A/A control's interval against the same baseline (None: no A/A control in this run).
    """
    if found is None:
        return None
    if found.method == "within-block bootstrap":
        return Decision(
            "insufficient rounds",
            "no rounds: within-block bootstrap, not a verdict (iterations of one block share its conditions)",
        )
    if found.rounds < MIN_ROUNDS:
        return Decision(
            "insufficient rounds", f"{found.rounds} rounds; a verdict needs at least {MIN_ROUNDS}"
        )
    above = found.low > 1 and found.ratio >= 1 + threshold
    below = found.high < 1 and found.ratio <= 1 - threshold
    if above or below:
        worse = above != higher_is_better
        name: Verdict = "regression" if worse else "improvement"
        if floor is not None and (found.low <= floor.high if above else found.high >= floor.low):
            return Decision(
                "inconclusive",
                f"would be a {name}, but the interval overlaps the A/A noise floor "
                f"[{floor.low:.3f}, {floor.high:.3f}]",
            )
        return Decision(name, f"interval [{found.low:.3f}, {found.high:.3f}] beyond {threshold:.0%}")
    if found.low >= 1 - threshold and found.high <= 1 + threshold:
        return Decision("no significant difference", f"interval within 1 +/- {threshold:.0%}")
    return Decision(
        "inconclusive",
        f"interval [{found.low:.3f}, {found.high:.3f}] too wide for {threshold:.0%}: "
        f"smallest detectable change {found.mde:.1%}",
    )


def read(
    found: Interval | None,
    threshold: float = DEFAULT_THRESHOLD,
    higher_is_better: bool = False,
    floor: Interval | None = None,
) -> VerdictRead | None:
    """The read model of one interval decided at `threshold` (`decide`, same arguments); None without
    an interval. The one place an Interval and its Decision become what is shown and stored."""
    decision = decide(found, threshold, higher_is_better, floor)
    if found is None or decision is None:
        return None
    return VerdictRead(
        ratio=found.ratio,
        low=found.low,
        high=found.high,
        rounds=found.rounds,
        method=found.method,
        mde=found.mde,
        verdict=decision.verdict,
        reason=decision.reason,
    )


# The one flat spelling of a verdict (CSV columns, the CLI's JSON rows): ratio_* for the interval and
# the rounds, so a row that also has its own `rounds` (the variant's) never collides with them.
VERDICT_COLUMNS: tuple[str, ...] = (
    "ratio", "ratio_low", "ratio_high", "ratio_rounds", "method", "mde", "verdict", "reason",
)  # fmt: skip
_FIELDS = {"ratio_low": "low", "ratio_high": "high", "ratio_rounds": "rounds"}


def columns(
    verdict: VerdictRead | None, prefix: str = "", keys: Sequence[str] = VERDICT_COLUMNS
) -> dict[str, float | int | str | None]:
    """A verdict as flat row fields, one spelling for every export (api/ CSV, cli/ JSON):
    `{prefix}{key}` for each key of `keys` (a subset of VERDICT_COLUMNS, in that spelling), all None
    without a verdict. ValueError naming a key outside VERDICT_COLUMNS."""
    unknown = [key for key in keys if key not in VERDICT_COLUMNS]
    if unknown:
        raise ValueError(f"keys {unknown} are not verdict columns {VERDICT_COLUMNS}")
    return {
        prefix + key: None if verdict is None else getattr(verdict, _FIELDS.get(key, key)) for key in keys
    }


def text(verdict: VerdictRead | None) -> str:
    """A ratio with its interval as the CLI prints it and the UI shows it (frontend
    components/Ratio.tsx): "1.23x [1.10, 1.37]", two decimals; "-" without a verdict."""
    if verdict is None:
        return "-"
    return f"{verdict.ratio:.2f}x [{verdict.low:.2f}, {verdict.high:.2f}]"
