"""Where a fingerprint's time went, per variant, and which stages moved against the baseline.

Per fingerprint and variant (`stage_rounds`, `fingerprint_stages`): the stages of its statements
(measurement/stage_events.py StageTally, one value per timed pass: the mean of its runs) summed over its
statements pass by pass, on the passes its time counts (every statement timed, pairs.py
`pass_values`' rule) whose stages were all read; the pass's total is the sum of its stages (the mean
TIMER_WAIT of its middle runs); per round the median of those passes, as the time's round value, for
the intervals. The report shows per execution each stage's and the time's mean over the middle half
of the passes (`per_execution`: the stages add up to the time) beside the work counters.

A stage moved (`stage_changes`), for a slower or faster finding, when all of:
1. its ratio variant / baseline over the paired rounds is decided that way by the verdicts' own rule
   (results/stats/verdicts.py: the interval excludes 1 and the ratio itself is beyond 1 +/- THRESHOLD,
   10 %, the query's own: measurement's THRESHOLD), at a confidence shared among the fingerprint's k compared
   stages (Bonferroni: each interval at 1 - 5 %/k, so the chance that any of them is decided by noise
   stays at most 5 %; the interval is asked only of a stage that rule 3 lets move: ~3 ms of CPU each);
2. with an A/A control, that interval lies outside the A/A control's interval of the same stage
   against the baseline (the stage's own scatter between two instances of one server: verdicts.py's
   floor), at the same confidence;
3. its change is at least SHARE (10 %) of the fingerprint's change, the same way: a stage named
   carries a part of the time that moved (a 0.2 us stage going to 0.6 us in a 30 us query is not
   where its 10 us went); both changes per execution as the report shows them (`per_execution`: the
   stages add up to the time, so the shares of all stages add up to 1).
A stage on one side only (entered in every round there, never on the other; same flavor only, as
plans are compared) moved when rule 3 holds: entering a stage or not is the server's deterministic
path, like a counter from 0. CPU time (MySQL's CPU_TIME) is read by the same rules as a stage.
Stages are timed, so they are decided as times are (an interval, a threshold, the A/A floor); the
work counters are deterministic and move by a factor (counters.py).

Across flavors (a MariaDB baseline, a MySQL variant) stages are compared by PHASES, the steps both
servers go through: start, open tables, optimize, execute, end. The two cut a statement into stages
of other names and bounds (measured on the lab's servers, the same queries: MariaDB's "init" 7-38 us
where MySQL's is 1-6 us and its "opening tables" twice MariaDB's; MySQL 8.0.17 folded "Sending data"
into "executing"; and what MySQL times as "freeing items", up to 4 ms after a GROUP BY's temporary
table, MariaDB times outside any stage, its "Freeing items" a few us), so a stage compared by name
across them "moved" 13-483x on 16 of an application's 24 queries (bench/replay_app_case.py). Within a
flavor stages are compared by name.
"""

import math
import statistics
from dataclasses import dataclass, field

from upgradelab.measurement import CPU, OUTSIDE, StageTally, VariantReplay
from upgradelab.measurement import THRESHOLD as THRESHOLD  # a query's own, the stage rule's too
from upgradelab.replay.change_causes import Direction
from upgradelab.replay.report import StageChange, StageTimes
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import Rounds

SHARE = 0.10
CONFIDENCE = 0.95
SHOWN = 3  # the stages shown beside a finding besides those that moved: the largest changes
# Across flavors, each stage's phase (module docstring); a stage not listed is part of "execute".
PHASES = {
    "start": (
        "starting", "checking permissions", "executing hook on transaction begin.",
        "checking query cache for query",
    ),
    "open tables": (
        "opening tables", "after opening tables", "system lock", "table lock", "init", "init for update",
    ),
    "optimize": ("optimizing", "statistics", "preparing"),
    "end": (
        "end", "query end", "commit", "waiting for handler commit", "closing tables", "unlocking tables",
        "starting cleanup", "freeing items", "cleaning up", "reset for next command", OUTSIDE,
    ),
}  # fmt: skip
PHASE = {stage: phase for phase, names in PHASES.items() for stage in names}
EXECUTE = "execute"
PHASE_ORDER = ("start", "open tables", "optimize", EXECUTE, "end")  # as a statement goes through them
STAGES_TEXT = (
    "Time by stage per execution from the timed runs' stage events (runs spread over each pass, "
    "performance_schema.events_stages_history, joined to the statement's own row by NESTING_EVENT_ID, "
    "read with it; "
    f"'{OUTSIDE}': the statement's time its stages do not cover); a slower or faster query's stage "
    f"moved when its ratio over the paired rounds is beyond 1 +/- {THRESHOLD:.0%} with its interval "
    f"({CONFIDENCE:.0%} shared among the query's stages, Bonferroni) clear of 1 and of the A/A control's "
    f"interval for that stage, and its change is at least {SHARE:.0%} of the query's; CPU time likewise; "
    f"across MySQL and MariaDB by phase ({', '.join(PHASE_ORDER)}), their stages cut otherwise"
)
UNAVAILABLE_TEXT = "Stages unavailable: no variant's server kept stage events for the replay to read"


def stages_text(read: dict[str, bool | None]) -> str:
    """The report's sentence on stages from whether each variant's stages were read (name -> bool):
    STAGES_TEXT, UNAVAILABLE_TEXT when none was, else STAGES_TEXT and the variants without them."""
    without = [name for name, one in read.items() if not one]
    if len(without) == len(read):
        return UNAVAILABLE_TEXT
    if without:
        why = "no stage events kept, or the client's clock"
        return f"{STAGES_TEXT}; unavailable on {', '.join(without)} ({why})"
    return STAGES_TEXT


@dataclass(frozen=True)
class StageRounds:
    """A fingerprint's stages on one variant: `total` its time per pass, round -> pass values (seconds:
    the sum of the pass's stages, its runs' mean TIMER_WAIT), and per stage the same passes' values
    (`stages`: stage -> round -> values; CPU's passes without a value left out), `executions` /
    `incomplete` its statements' tallies' runs."""

    total: dict[int, list[float]] = field(default_factory=dict)
    stages: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    executions: int = 0
    incomplete: int = 0


def stage_rounds(replay: VariantReplay, indexes: list[int]) -> StageRounds | None:
    """The fingerprint's (statements `indexes`) StageRounds on `replay` (module docstring); None when
    the replay kept no stages for one of them (the client's clock, a server keeping none, a report
    of a fix search) or no pass counts."""
    tallies: list[StageTally] = [replay.stages[i] for i in indexes if i < len(replay.stages)]
    if not indexes or len(tallies) < len(indexes) or replay.clock != "server":
        return None
    names = {name for tally in tallies for name in tally.values}
    out = StageRounds(
        executions=sum(t.executions for t in tallies), incomplete=sum(t.incomplete for t in tallies)
    )
    for k in range(min(len(replay.times[indexes[0]]), *(len(t) for t in tallies))):
        values = [replay.times[i][k] for i in indexes]
        if not all(v is not None and v != math.inf for v in values) or not all(t.read[k] for t in tallies):
            continue
        number = k // replay.passes + 1
        total = 0.0
        for name in names:
            value = sum(t.value(name, k) for t in tallies)
            if not math.isnan(value):
                out.stages.setdefault(name, {}).setdefault(number, []).append(value)
                total += value if name != CPU else 0.0
        out.total.setdefault(number, []).append(total)
    return out if out.total else None


def _round_values(rounds: Rounds | None) -> dict[int, float]:
    """round -> the median of its values, as verdicts.round_values (statistics.median: a round holds
    a few passes, where numpy's median costs ~40x more, and a replay asks it of every stage)."""
    return {number: statistics.median(values) for number, values in (rounds or {}).items() if len(values)}


def _median(rounds: Rounds | None) -> float:
    """The median of the round values, 0 without any."""
    values = _round_values(rounds)
    return float(statistics.median(values.values())) if values else 0.0


def per_execution(rounds: StageRounds) -> tuple[float, dict[str, float]]:
    """(the fingerprint's time, {stage: time}) per execution, in seconds, as the report shows them: the
    means over the middle half of its passes ranked by their total (every round's passes pooled; the
    n // 4 fastest and slowest left out, as at the runs, stage_events.middle), so the stages add up to the
    time and the one disturbed round or pass does not move them. CPU apart (not a part of the time)."""
    names = [name for name in rounds.stages if name != CPU]
    passes = [
        (total, [rounds.stages[name][number][i] for name in names])
        for number, totals in rounds.total.items()
        for i, total in enumerate(totals)
    ]  # a stage's pass values line up with the totals (stage_rounds appends both per pass)
    passes.sort(key=lambda one: one[0])
    cut = len(passes) // 4
    kept = passes[cut : len(passes) - cut]
    if not kept:
        return 0.0, {}
    return statistics.fmean(t for t, _ in kept), {
        name: statistics.fmean(values[i] for _, values in kept) for i, name in enumerate(names)
    }


def fingerprint_stages(rounds: StageRounds) -> StageTimes:
    """Where the fingerprint's time went on one variant (report.StageTimes): per_execution's time and
    stages, the largest first; CPU time the median of its round values."""
    total, stages = per_execution(rounds)
    cpu = rounds.stages.get(CPU)
    return StageTimes(
        executions=rounds.executions,
        passes=sum(len(values) for values in rounds.total.values()),
        total_s=total,
        stages=dict(sorted(stages.items(), key=lambda item: -item[1])),
        cpu_s=_median(cpu) if cpu else None,
        incomplete=rounds.incomplete,
    )


def folded(rounds: StageRounds) -> StageRounds:
    """The stages summed pass by pass into their phases (PHASES, "execute" for the others; CPU kept),
    for a comparison across flavors."""
    stages: dict[str, dict[int, list[float]]] = {}
    for name, values in rounds.stages.items():
        into = stages.setdefault(name if name == CPU else PHASE.get(name, EXECUTE), {})
        for number, passes in values.items():
            have = into.setdefault(number, [0.0] * len(passes))
            into[number] = [a + b for a, b in zip(have, passes, strict=True)]
    return StageRounds(rounds.total, stages, rounds.executions, rounds.incomplete)


def _seconds(value: float, unit: float) -> str:
    return f"{value / unit:.3g}"


def change_text(stage: str, base: float, other: float) -> str:
    """A stage's change as the report says it: "optimizing 12 -> 48 us, 4.0x" (both sides per
    execution, `per_execution`'s, in one unit, us or ms, 3 significant digits; their factor, "0.53x"
    below 1; from or to 0: none. The verdict's own ratio and interval are the StageChange's `ratio`)."""
    unit, label = (1e-3, "ms") if max(base, other) >= 1e-3 else (1e-6, "us")
    text = f"{stage} {_seconds(base, unit)} -> {_seconds(other, unit)} {label}"
    if base > 0 and other > 0:
        factor = other / base
        text += f", {factor:.1f}x" if factor >= 1 else f", {factor:.2f}x"
    return text


def _positive(rounds: Rounds | None) -> bool:
    """Entered in every round (each round value above 0): a stage whose ratio has an interval."""
    values = _round_values(rounds)
    return bool(values) and min(values.values()) > 0


def _absent(rounds: Rounds | None) -> bool:
    """Never entered (no round value above 0)."""
    values = _round_values(rounds)
    return not values or max(values.values()) == 0


def stage_changes(
    base: StageRounds,
    other: StageRounds,
    way: Direction,
    aa: StageRounds | None = None,
    same_flavor: bool = True,
) -> list[StageChange]:
    """The stages of a `way` ("slower" / "faster") finding against the baseline (module docstring's
    rule), the ones that moved first (the largest share first), then the SHOWN largest other changes;
    `aa`: the A/A control's StageRounds on the same fingerprint (None: no control, or this is the
    control); `same_flavor`: both servers MySQL or both MariaDB."""
    if not same_flavor:
        base, other, aa = folded(base), folded(other), folded(aa) if aa else None
    # CPU time where both servers have it (MariaDB has none: no "0 -> 500 us")
    names = sorted(
        n
        for n in set(base.stages) | set(other.stages)
        if n != CPU or n in base.stages.keys() & other.stages.keys()
    )
    compared = [n for n in names if _positive(base.stages.get(n)) and _positive(other.stages.get(n))]
    confidence = 1 - (1 - CONFIDENCE) / max(1, len(compared))
    (base_total, base_stages), (other_total, other_stages) = per_execution(base), per_execution(other)
    change_total = other_total - base_total
    sign = 1 if way == "slower" else -1
    decided = "regression" if way == "slower" else "improvement"
    found: list[StageChange] = []
    for name in names:
        on_base, on_other = base.stages.get(name, {}), other.stages.get(name, {})
        before, after = base_stages.get(name, 0.0), other_stages.get(name, 0.0)
        if name == CPU:
            before, after = _median(on_base), _median(on_other)
        share = (after - before) / change_total if change_total * sign > 0 else None
        along = share is not None and share >= SHARE
        ratio = None
        if name in compared and along:  # only a stage along the change can move: its interval asked
            found_interval = verdicts.interval(on_base, on_other, paired=True, confidence=confidence)
            ratio = verdicts.read(found_interval, THRESHOLD)
            if (
                ratio is not None
                and ratio.verdict == decided
                and aa is not None
                and _positive(aa.stages.get(name))
            ):
                floor = verdicts.interval(on_base, aa.stages[name], paired=True, confidence=confidence)
                ratio = verdicts.read(found_interval, THRESHOLD, floor=floor)
            moved = ratio is not None and ratio.verdict == decided
        elif name in compared:
            moved = False
        else:  # on one side only: deterministic (entered or not), within one flavor
            one_sided = (_absent(on_base) and _positive(on_other)) or (
                _absent(on_other) and _positive(on_base)
            )
            moved = along and same_flavor and one_sided
        text = change_text(name, before, after)
        if name not in compared and (before == 0) != (after == 0):
            text += " (only on the variant)" if before == 0 else " (only on the baseline)"
        found.append(StageChange(
            stage=name, base_s=before or None, other_s=after or None, ratio=ratio, share=share,
            moved=moved, text=text,
        ))  # fmt: skip
    named = sorted((c for c in found if c.moved), key=lambda c: -(c.share or 0))
    rest = sorted(
        (c for c in found if not c.moved),
        key=lambda c: -abs((c.other_s or 0) - (c.base_s or 0)),
    )
    return named + rest[:SHOWN]
