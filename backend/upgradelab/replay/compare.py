"""What changes between variants, per statement and per fingerprint; the first variant is the baseline.

Per statement, each other variant against the baseline:
- `error`: the error code differs (one errors, the other not, or another code); a refusal and a
  timeout are not errors here;
- `refused`: the server refused it as a write in a read-only replay on one of the two only;
- `timed_out`: it timed out (when captured, or in a timed run) on one of the two only;
- `warnings`: the set of warning codes differs;
- `result`: row count or the order-insensitive checksum differs;
- `ordering_only`: same rows, another order; `unordered_query` when the query has no ORDER BY
  (it relied on an order the server never promised, e.g. GROUP BY's implicit sort, gone in MySQL 8.0);
- `plan`: the (table, access type, key) join sequence differs (both plans kept).
Per fingerprint and variant, time (engine.py's rounds): a pass's value is the sum over the
fingerprint's sampled statements of their seconds in that pass; the round value is the median of
the round's passes (results/stats/verdicts.py `round_values`); `median_s` is the median of the round
values; the ratio to the baseline, its 95 % interval, the smallest detectable change and the verdict
come from results/stats/verdicts.py on the round values paired by round (a t interval on the per-round log
ratios, at least MIN_ROUNDS rounds, THRESHOLD), never from the timings of one block. A pass where a
statement of the fingerprint errored, timed out or was not run is left out (a round without passes
too).

Fingerprint groups, first match: breaks (an error, result or unordered-query ordering difference),
timed out (a statement timed out on some variant), refused (the server refused a statement as a
write on some variant: listed apart, not a break), plan changes, slower (regression), faster
(improvement), same.
"""

import math
import statistics

from upgradelab.execution.schedule import RunSchedule
from upgradelab.replay.engine import VariantReplay
from upgradelab.replay.outcomes import Outcome
from upgradelab.replay.schemas import (
    GROUPS,
    FingerprintResult,
    Group,
    ReplayReport,
    StatementDiff,
    StatementResult,
    VariantReport,
)
from upgradelab.replay.sources import SourceStatement
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import VerdictRead

# A verdict needs the whole interval beyond 1 and a ratio beyond 1 +/- 10 %: one statement's time
# moves more with the machine than a whole template iteration, so the lab's 5 % is too fine here.
THRESHOLD = 0.10
# Exit status bits of `upgradelab replay`, as pt-upgrade's: results/errors, regressions, plans.
EXIT_BREAKS, EXIT_REGRESSIONS, EXIT_PLAN_CHANGES = 1, 2, 4


def time_ratio(baseline: dict[int, list[float]], variant: dict[int, list[float]]) -> VerdictRead | None:
    """variant / baseline from pass values ({round: [seconds of each pass]}) paired by round, decided
    at THRESHOLD (results/stats/verdicts.py); None when either side has no round."""
    return verdicts.read(verdicts.interval(baseline, variant, paired=True), THRESHOLD)


def _plan_key(outcome: Outcome) -> list[tuple[str, str | None, str | None]]:
    return [(step.table, step.access_type, step.key) for step in outcome.plan]


def _error(outcome: Outcome) -> int | None:
    return outcome.error_code if outcome.kind == "error" else None


def diff(
    base: Outcome,
    other: Outcome,
    statement: SourceStatement,
    variant: str,
    timed_out: tuple[bool, bool] = (False, False),
) -> StatementDiff:
    """Compare one statement's outcome on a variant with the baseline's; timed_out: whether it timed
    out on (the baseline, the variant), when captured or in a timed run."""
    both_ran = base.kind == "ran" and other.kind == "ran"
    result = both_ran and (
        base.row_count != other.row_count or base.checksum_unordered != other.checksum_unordered
    )
    ordering = both_ran and not result and base.checksum_ordered != other.checksum_ordered
    return StatementDiff(
        variant=variant,
        error=_error(base) != _error(other),
        refused=(base.kind == "refused") != (other.kind == "refused"),
        timed_out=timed_out[0] != timed_out[1],
        warnings={w[1] for w in base.warnings} != {w[1] for w in other.warnings},
        result=result,
        ordering_only=ordering,
        unordered_query=ordering and "order by" not in statement.fingerprint,
        plan=both_ran and _plan_key(base) != _plan_key(other),
    )


def pass_values(replay: VariantReplay, indexes: list[int]) -> dict[int, list[float]]:
    """round (1-based) -> per pass of that round, the sum of the fingerprint's statements' seconds; a
    pass where one of them errored, timed out or was not run is left out, a round without passes too."""
    out: dict[int, list[float]] = {}
    for k in range(len(replay.times[indexes[0]]) if indexes else 0):
        values = [replay.times[i][k] for i in indexes]
        if all(v is not None and v != math.inf for v in values):
            out.setdefault(k // replay.passes + 1, []).append(sum(v for v in values if v is not None))
    return out


def timed_out_runs(replay: VariantReplay, index: int) -> int:
    """How many of a statement's timed runs timed out on a variant."""
    return sum(1 for t in replay.times[index] if t == math.inf) if index < len(replay.times) else 0


def _timed_out(replay: VariantReplay, index: int) -> bool:
    return replay.outcomes[index].kind == "timed out" or timed_out_runs(replay, index) > 0


def _statement(statements: list[SourceStatement], replays: list[VariantReplay], i: int) -> StatementResult:
    base = replays[0]
    return StatementResult(
        sql=statements[i].sql,
        database=statements[i].database,
        outcomes={r.name: r.outcomes[i] for r in replays},
        diffs=[
            diff(
                base.outcomes[i],
                r.outcomes[i],
                statements[i],
                r.name,
                (_timed_out(base, i), _timed_out(r, i)),
            )
            for r in replays[1:]
        ],
        timed_out_runs={r.name: timed_out_runs(r, i) for r in replays},
    )


def _group(statements: list[StatementResult], ratios: dict[str, VerdictRead]) -> Group:
    """The first group that fits (module docstring)."""
    diffs = [d for s in statements for d in s.diffs]
    outcomes = [o for s in statements for o in s.outcomes.values()]
    said = {r.verdict for r in ratios.values()}
    return (
        "breaks" if any(d.breaks for d in diffs)
        else "timed out" if any(o.kind == "timed out" for o in outcomes)
        or any(n for s in statements for n in s.timed_out_runs.values())
        else "refused" if any(o.kind == "refused" for o in outcomes)
        else "plan changes" if any(d.plan for d in diffs)
        else "slower" if "regression" in said
        else "faster" if "improvement" in said
        else "same"
    )  # fmt: skip


def compare(statements: list[SourceStatement], replays: list[VariantReplay]) -> list[FingerprintResult]:
    """Fingerprint reports in source order of their first statement (see module docstring)."""
    base = replays[0]
    by_fingerprint: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        by_fingerprint.setdefault(statement.fingerprint_id, []).append(index)
    reports = []
    for fid, indexes in by_fingerprint.items():
        statement_reports = [_statement(statements, replays, i) for i in indexes]
        rounds = {r.name: pass_values(r, indexes) for r in replays}
        medians = {
            name: statistics.median(verdicts.round_values(values).values()) if values else None
            for name, values in rounds.items()
        }
        found = {r.name: time_ratio(rounds[base.name], rounds[r.name]) for r in replays[1:]}
        ratios = {name: ratio for name, ratio in found.items() if ratio is not None}
        reports.append(
            FingerprintResult(
                fingerprint_id=fid,
                fingerprint=statements[indexes[0]].fingerprint,
                group=_group(statement_reports, ratios),
                median_s=medians,
                ratios=ratios,
                statements=statement_reports,
            )
        )
    return reports


def _newly_timed_out(statement: StatementResult) -> bool:
    """Timed out on a variant and not on the baseline (the first of `outcomes`): a statement that
    became too slow to finish."""

    def timed_out(name: str) -> bool:
        return statement.outcomes[name].kind == "timed out" or statement.timed_out_runs.get(name, 0) > 0

    baseline = next(iter(statement.outcomes))
    return not timed_out(baseline) and any(timed_out(d.variant) for d in statement.diffs)


def exit_bits(reports: list[FingerprintResult]) -> int:
    """pt-upgrade-like exit status: 1 result/error differences, 2 regressions (slower, or timed out on
    a variant and not on the baseline), 4 plan changes. Refusals set no bit."""
    bits = 0
    for report in reports:
        diffs = [d for s in report.statements for d in s.diffs]
        if any(d.breaks for d in diffs):
            bits |= EXIT_BREAKS
        if any(d.plan for d in diffs):
            bits |= EXIT_PLAN_CHANGES
        if any(r.verdict == "regression" for r in report.ratios.values()):
            bits |= EXIT_REGRESSIONS
        if any(_newly_timed_out(s) for s in report.statements):
            bits |= EXIT_REGRESSIONS
    return bits


def report_document(
    statements: list[SourceStatement],
    replays: list[VariantReplay],
    reports: list[FingerprintResult],
    schedule: RunSchedule | None = None,
    *,
    statement_timeout_s: float | None = None,
    partial: bool = False,
) -> ReplayReport:
    """The stored report (schemas.ReplayReport; stored as its JSON). Seconds are wall-clock around
    execute + fetch; `partial`: the replay was cancelled and this is what it measured."""
    return ReplayReport(
        baseline=replays[0].name,
        partial=partial,
        statement_timeout_s=statement_timeout_s,
        variants=[
            VariantReport(name=r.name, version=r.version, loaded=r.load, tables=r.tables) for r in replays
        ],
        groups={group: sum(1 for r in reports if r.group == group) for group in GROUPS},
        exit_bits=exit_bits(reports),
        statements=len(statements),
        rounds=max((len(t) // r.passes for r in replays for t in r.times), default=0),
        passes=replays[0].passes if replays else 1,
        schedule=schedule,
        threshold=THRESHOLD,
        fingerprints=reports,
    )
