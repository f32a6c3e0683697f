"""A pair of variants' rounds on one clock (compare.py reads them): a fingerprint's pass values on
the baseline and the variant, and the variant's net of the per-statement cost (statement_cost.py), on
the pair's clock (timing.py `pair_clock`: the server's when both have it, else the client's of both);
the A/A control's intervals that floor the pairs read on its clock."""

import math

from upgradelab.measurement import statement_cost
from upgradelab.measurement.opening import VariantReplay
from upgradelab.measurement.timing import Clock
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import Rounds, VerdictRead


def pass_values(
    replay: VariantReplay, indexes: list[int], clock: Clock | None = None
) -> dict[int, list[float]]:
    """round (1-based) -> per pass of that round, the sum of the fingerprint's statements' seconds; a
    pass where one of them errored, timed out or was not run is left out, a round without passes too.
    clock: "client" reads a server-timed replay's client_times (a mixed pair); None: its own clock."""
    own = clock is None or clock == replay.clock or not replay.client_times
    times = replay.times if own else replay.client_times
    out: dict[int, list[float]] = {}
    for k in range(len(times[indexes[0]]) if indexes else 0):
        values = [times[i][k] for i in indexes]
        if all(v is not None and v != math.inf for v in values):
            out.setdefault(k // replay.passes + 1, []).append(sum(v for v in values if v is not None))
    return out


def cost_rounds(replay: VariantReplay, clock: Clock) -> Rounds:
    """The null statement's pass values on `replay` (statement_cost.py; {} when it was not timed)."""
    index = replay.null_statement
    if index is None or index >= len(replay.times):
        return {}
    return pass_values(replay, [index], clock)


def paired_rounds(
    base: VariantReplay, other: VariantReplay, indexes: list[int], clock: Clock
) -> tuple[Rounds, Rounds, Rounds]:
    """A fingerprint's (baseline, variant, variant net of the per-statement cost) pass values on the
    pair's clock; the net {} without the null statement on both (statement_cost.net_rounds)."""
    on_base, on_other = pass_values(base, indexes, clock), pass_values(other, indexes, clock)
    cost_base, cost_other = cost_rounds(base, clock), cost_rounds(other, clock)
    net = (
        statement_cost.net_rounds(on_other, cost_other, cost_base, len(indexes))
        if cost_base and cost_other
        else {}
    )
    return on_base, on_other, net


def aa_floor(
    paired: dict[str, tuple[Rounds, Rounds, Rounds]], aa_control: str | None, clocks: dict[str, Clock]
) -> tuple[verdicts.Interval | None, verdicts.Interval | None, Clock | None]:
    """The A/A control's (gross, net) intervals against the baseline and their clock; they floor
    the pairs read on that clock only (None, None, None without a control)."""
    if aa_control not in paired:
        return None, None, None
    on_base, on_aa, net = paired[aa_control]
    gross_floor = verdicts.interval(on_base, on_aa, paired=True)
    return gross_floor, verdicts.interval(on_base, net, paired=True) if net else None, clocks[aa_control]


# A verdict needs the whole interval beyond 1 and a ratio beyond 1 +/- 10 %: one statement's time
# moves more with the machine than a whole template iteration, so the lab's 5 % is too fine here.
THRESHOLD = 0.10


def time_ratio(
    baseline: verdicts.Rounds,
    variant: verdicts.Rounds,
    floor: verdicts.Interval | None = None,
    *,
    confidence: float = verdicts.CONFIDENCE,
) -> VerdictRead | None:
    """variant / baseline from pass values ({round: [seconds of each pass]}) paired by round, its
    interval at `confidence` (a replay's 95 %; a fix search's verdicts.confidence_for its looks),
    decided at THRESHOLD (results/stats/verdicts.py), against the A/A control's interval `floor` when
    the replay has one; None when either side has no round."""
    found = verdicts.interval(baseline, variant, paired=True, confidence=confidence)
    return verdicts.read(found, THRESHOLD, floor=floor)
