"""The per-statement cost, measured apart: a null statement timed beside the user's, and every
fingerprint judged again net of it.

Null statement: `DO 0` (NULL_SQL): parsed, executed and answered with an OK packet; no table, no row.
Its time is what every statement pays whatever it does: on the server's clock parse, dispatch,
performance_schema's own instrumentation and the OK; on the client's the round trip and the client
too. The engine (engine.py) appends it to the statements of every round and every extension round on
every variant, timed exactly as a statement is (timing.py: repeated, the pass's median; its passes
interleaved with the others', turns.py), so its round values pair with the fingerprints' round by
round. It is no user fingerprint (not listed among them): per non-baseline variant it is shown once,
on top of the report (`statement_cost`): its median on both sides, its ratio to the baseline with
the interval and verdict every fingerprint gets (results/stats/verdicts.py, against the A/A
control's floor when the replay has one), and the difference in microseconds with its 95 % interval
(the same estimator, paired.shift, on the per-round differences).

Net of the cost (`net_rounds`): each fingerprint on each variant is judged again with the change of
the per-statement cost taken out, round by round: the variant's round value minus k x (the null
statement's round value on the variant minus the baseline's, the same round), k the fingerprint's
sampled statements (each pays the cost once in a pass), read against the baseline's round values by
the same verdict (compare.py's THRESHOLD, the A/A floor): the fingerprint's time as if the variant's
per-statement cost were the baseline's. Why not each side's time minus its own null time: for a
statement that costs little more than the null one (the issue's `SELECT ? AS rank`, 114 us on the
client's clock beside a round trip of about 100 us) that ratio divides by a difference near zero,
below it in a noisy round, where it means nothing; taking out the change keeps the ratio relative to
the fingerprint's whole time, as its gross verdict is. A round where the change of the null
statement exceeds the fingerprint's whole time on the variant (a disturbed round: its net is not
positive) is left out of the net rounds (the null statement's time was disturbed there, not the
fingerprint's); the net keeps the other rounds (fewer than verdicts.MIN_ROUNDS: no net verdict, the
fingerprint keeps its gross group).

A fingerprint slower (faster) on a variant changed by the per-statement cost only (`cost_only`,
VariantFinding.per_statement_cost_only; findings.py groups it "slower: per-statement cost only",
"faster: ...", apart from the fingerprints that changed for a reason of their own) when
  - the variant's per-statement cost was itself decided the same way (its line's verdict, against the
    A/A floor when the replay has one: the change taken out is measured, not noise), and
  - net of it the fingerprint is not decided that way: its net verdict is "no significant difference",
    "inconclusive" or the other way, and the net ratio itself is within the threshold on the gross
    side (net ratio < 1 + t for a slower one): no change of its own is measured.
Why not "no significant difference" net only (the first rule): the gross verdict of a 30-100 us
statement is decided on a change of 20-40 %, but its net interval, which carries the null statement's
noise as well, rarely fits within +/- 10 % at 60 rounds; such a fingerprint then read "slower, time
only: no counter moved", a change of its own that nothing measured (bench/README.md replay_causes.py:
3 of 33 fingerprints on a variant with the general log). And the general log costs a SELECT less than
`DO 0` (the null statement's change over-explains a cheap SELECT's: net 0.8-0.9x): the cost is not
exactly uniform, but the change is no larger than it. The cause's sentence says which of the three the
net verdict is (change_causes.py); a net ratio beyond the threshold stays "slower" with its own cause.
"""

import numpy as np

from upgradelab.measurement.fingerprint import fingerprint, fingerprint_id
from upgradelab.measurement.shapes import StatementCost
from upgradelab.measurement.sources import SourceStatement
from upgradelab.results.stats import paired, verdicts
from upgradelab.results.stats.verdicts import Rounds, VerdictRead

NULL_SQL = "DO 0"
NULL_STATEMENT = SourceStatement(
    sql=NULL_SQL,
    database=None,
    fingerprint=fingerprint(NULL_SQL),
    fingerprint_id=fingerprint_id(fingerprint(NULL_SQL)),
    kind="do",
    position=-1,  # not in the source
)
MICROSECONDS = 1e6
COST_TEXT = (
    "every statement costs {difference:+.0f} us [{low:+.0f}, {high:+.0f}] on {variant} "
    "({ratio:.2f}x [{ratio_low:.2f}, {ratio_high:.2f}] of {baseline}'s {baseline_us:.0f} us: {verdict}; "
    "{clock} clock)"
)
AA_TEXT = (
    "the A/A control {variant}: the null statement differs by {difference:+.0f} us "
    "[{low:+.0f}, {high:+.0f}] ({ratio:.2f}x [{ratio_low:.2f}, {ratio_high:.2f}] of {baseline}'s "
    "{baseline_us:.0f} us), the noise floor the other variants' per-statement cost is read against, "
    "not a change ({clock} clock)"
)
UNTIMED_TEXT = "the per-statement cost on {variant}: {sql} not timed on both sides ({clock} clock)"


def net_rounds(variant: Rounds, cost_variant: Rounds, cost_baseline: Rounds, statements: int) -> Rounds:
    """round -> [the variant's round value minus `statements` x (cost_variant's round value minus
    cost_baseline's)] (seconds; verdicts.round_values of each); a round missing on either null side is
    left out (module docstring)."""
    values = verdicts.round_values(variant)
    on_variant, on_baseline = verdicts.round_values(cost_variant), verdicts.round_values(cost_baseline)
    net = {
        number: value - statements * (on_variant[number] - on_baseline[number])
        for number, value in values.items()
        if number in on_variant and number in on_baseline
    }
    return {number: [value] for number, value in net.items() if value > 0}


def cost_only(
    gross: VerdictRead | None, net: VerdictRead | None, cost: VerdictRead | None, threshold: float
) -> bool:
    """Changed by the per-statement cost only (module docstring): `gross` the fingerprint's verdict
    (after false-discovery control) slower or faster, `cost` the variant's per-statement cost decided
    the same way, and `net` (its verdict net of that cost) neither decided that way nor beyond
    `threshold` (a fraction, compare.THRESHOLD) on that side. False when any of them is None."""
    if gross is None or net is None or cost is None or gross.verdict not in ("regression", "improvement"):
        return False
    slower = gross.verdict == "regression"
    within = net.ratio < 1 + threshold if slower else net.ratio > 1 - threshold
    return cost.verdict == gross.verdict and net.verdict != gross.verdict and within


def difference_us(baseline: Rounds, variant: Rounds) -> tuple[float, float, float] | None:
    """(point, low, high) of variant - baseline in microseconds from the round values paired by round
    (paired.shift with verdicts.ESTIMATOR at verdicts.CONFIDENCE, t where it has no interval); None
    below 2 paired rounds."""
    base, var = verdicts.round_values(baseline), verdicts.round_values(variant)
    common = sorted(set(base) & set(var))
    if len(common) < 2:
        return None
    differences = np.array([var[number] - base[number] for number in common])
    found = paired.shift(differences, verdicts.ESTIMATOR, verdicts.CONFIDENCE) or paired.shift(
        differences, "t", verdicts.CONFIDENCE
    )
    assert found is not None  # t has an interval from 2 rounds on
    point, low, high = (value * MICROSECONDS for value in found)
    return point, low, high


def statement_cost(
    variant: str,
    baseline: str,
    clock: str,
    on_baseline: Rounds,
    on_variant: Rounds,
    ratio: VerdictRead | None,
    aa_control: bool = False,
) -> StatementCost:
    """The report's line for `variant`: the null statement's rounds on both sides (seconds, on the
    pair's `clock`) and its ratio read (compare.cost_pairs: threshold and A/A floor as a fingerprint's).
    aa_control: `variant` is the replay's A/A control: its line is the floor the others are read
    against (AA_TEXT), its verdict not a finding (a control's null statement may differ by a few
    microseconds: another instance of the baseline, not another version)."""
    base, var = verdicts.round_values(on_baseline), verdicts.round_values(on_variant)
    found = difference_us(on_baseline, on_variant)
    base_s = float(np.median(list(base.values()))) if base else None
    var_s = float(np.median(list(var.values()))) if var else None
    if found is None or ratio is None or base_s is None:
        text = UNTIMED_TEXT.format(variant=variant, sql=NULL_SQL, clock=clock)
    else:
        text = (AA_TEXT if aa_control else COST_TEXT).format(
            difference=found[0], low=found[1], high=found[2], variant=variant, ratio=ratio.ratio,
            ratio_low=ratio.low, ratio_high=ratio.high, baseline=baseline,
            baseline_us=base_s * MICROSECONDS, verdict=ratio.verdict, clock=clock,
        )  # fmt: skip
    return StatementCost(
        variant=variant,
        sql=NULL_SQL,
        clock=clock,
        median_s=var_s,
        baseline_s=base_s,
        difference_us=found[0] if found else None,
        difference_low_us=found[1] if found else None,
        difference_high_us=found[2] if found else None,
        ratio=ratio,
        aa_control=aa_control,
        text=text,
    )


def timing_text(
    clocks: dict[str, str], performance_schema: dict[str, bool | None], cpu: str | None = None
) -> str:
    """The report's sentence on how it was timed: each variant's clock (name -> "server" / "client"),
    whether performance_schema was on (name -> @@performance_schema; None: not read) and where the
    timing ran (`cpu`: execution/timing_cpu.py's sentence; None: not said, a report from before)."""
    on = [name for name, value in performance_schema.items() if value]
    off = [name for name, value in performance_schema.items() if value is False]
    server = [name for name, clock in clocks.items() if clock == "server"]
    client = [name for name, clock in clocks.items() if clock != "server"]
    parts = []
    if server:
        parts.append(f"timed by the server's clock (performance_schema TIMER_WAIT) on {', '.join(server)}")
    if client:
        parts.append(f"by the client's clock on {', '.join(client)} (no TIMER_WAIT there)")
    if server and client:
        parts.append("a ratio between a variant of each is read on the client's clock of both")
    if on:
        parts.append(f"performance_schema ON on {', '.join(on)} (its own cost is in every time there)")
    if off:
        parts.append(f"performance_schema OFF on {', '.join(off)}")
    if cpu:
        parts.append(cpu)
    return "; ".join(parts)
