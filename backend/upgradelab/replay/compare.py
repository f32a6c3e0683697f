"""What changes between variants, per statement and per fingerprint; the first variant is the baseline.

Per statement, each other variant against the baseline:
- `error`: the error code differs (one errors, the other not, or another code);
- `warnings`: the set of warning codes differs;
- `result`: row count or the order-insensitive checksum differs;
- `ordering_only`: same rows, another order; `unordered_query` when the query has no ORDER BY
  (it relied on an order the server never promised, e.g. GROUP BY's implicit sort, gone in MySQL 8.0);
- `plan`: the (table, access type, key) join sequence differs (both plans kept).
Per fingerprint and variant, time (engine.py's rounds): a pass's value is the sum over the
fingerprint's sampled statements of their seconds in that pass; the round value is the median of
the round's passes (results/verdicts.py `round_values`); `median_s` is the median of the round
values; the ratio to the baseline, its 95 % interval, the smallest detectable change and the verdict
come from results/verdicts.py on the round values paired by round (a t interval on the per-round log
ratios, at least MIN_ROUNDS rounds, THRESHOLD), never from the timings of one block. A pass where a
statement of the fingerprint errored is left out (a round without passes too).

Fingerprint groups, first match: breaks (an error, result or unordered-query ordering difference),
plan changes, slower (regression), faster (improvement), same.
"""

import statistics

from upgradelab.replay.engine import VariantReplay
from upgradelab.replay.outcomes import Outcome
from upgradelab.replay.schemas import (
    GROUPS,
    FingerprintResult,
    Group,
    ReplayReport,
    StatementDiff,
    StatementResult,
    TimeRatio,
    VariantReport,
)
from upgradelab.replay.sources import SourceStatement
from upgradelab.results import verdicts
from upgradelab.runs.schemas import RunSchedule

# A verdict needs the whole interval beyond 1 and a ratio beyond 1 +/- 10 %: one statement's time
# moves more with the machine than a whole template iteration, so the lab's 5 % is too fine here.
THRESHOLD = 0.10
# Exit status bits of `upgradelab replay`, as pt-upgrade's: results/errors, regressions, plans.
EXIT_BREAKS, EXIT_REGRESSIONS, EXIT_PLAN_CHANGES = 1, 2, 4


def time_ratio(baseline: dict[int, list[float]], variant: dict[int, list[float]]) -> TimeRatio:
    """variant / baseline from pass values ({round: [seconds of each pass]}) paired by round
    (results/verdicts.py); all None but `rounds` (the paired rounds) when either side has no round."""
    found = verdicts.interval(baseline, variant, paired=True)
    if found is None:
        return TimeRatio(rounds=len(set(baseline) & set(variant)))
    decision = verdicts.decide(found, THRESHOLD)
    return TimeRatio(
        ratio=found.ratio,
        low=found.low,
        high=found.high,
        rounds=found.rounds,
        mde=found.mde,
        method=found.method,
        verdict=decision.verdict if decision else None,
        reason=decision.reason if decision else None,
    )


def _plan_key(outcome: Outcome) -> list[tuple[str, str | None, str | None]]:
    return [(step.table, step.access_type, step.key) for step in outcome.plan]


def diff(base: Outcome, other: Outcome, statement: SourceStatement, variant: str) -> StatementDiff:
    """Compare one statement's outcome on a variant with the baseline's."""
    both_ran = base.error_code is None and other.error_code is None
    result = both_ran and (
        base.row_count != other.row_count or base.checksum_unordered != other.checksum_unordered
    )
    ordering = both_ran and not result and base.checksum_ordered != other.checksum_ordered
    return StatementDiff(
        variant=variant,
        error=base.error_code != other.error_code,
        warnings={w[1] for w in base.warnings} != {w[1] for w in other.warnings},
        result=result,
        ordering_only=ordering,
        unordered_query=ordering and "order by" not in statement.fingerprint,
        plan=both_ran and _plan_key(base) != _plan_key(other),
    )


def pass_values(replay: VariantReplay, indexes: list[int]) -> dict[int, list[float]]:
    """round (1-based) -> per pass of that round, the sum of the fingerprint's statements' seconds; a
    pass where one of them errored is left out, a round without passes too."""
    out: dict[int, list[float]] = {}
    for k in range(len(replay.times[indexes[0]]) if indexes else 0):
        values = [replay.times[i][k] for i in indexes]
        if all(v is not None for v in values):
            out.setdefault(k // replay.passes + 1, []).append(sum(v for v in values if v is not None))
    return out


def compare(statements: list[SourceStatement], replays: list[VariantReplay]) -> list[FingerprintResult]:
    """Fingerprint reports in source order of their first statement (see module docstring)."""
    base = replays[0]
    by_fingerprint: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        by_fingerprint.setdefault(statement.fingerprint_id, []).append(index)
    reports = []
    for fid, indexes in by_fingerprint.items():
        statement_reports = [
            StatementResult(
                sql=statements[i].sql,
                database=statements[i].database,
                outcomes={r.name: r.outcomes[i] for r in replays},
                diffs=[diff(base.outcomes[i], r.outcomes[i], statements[i], r.name) for r in replays[1:]],
            )
            for i in indexes
        ]
        rounds = {r.name: pass_values(r, indexes) for r in replays}
        medians = {
            name: statistics.median(verdicts.round_values(values).values()) if values else None
            for name, values in rounds.items()
        }
        ratios = {r.name: time_ratio(rounds[base.name], rounds[r.name]) for r in replays[1:]}
        diffs = [d for s in statement_reports for d in s.diffs]
        said = {r.verdict for r in ratios.values()}
        group: Group = (
            "breaks" if any(d.breaks for d in diffs)
            else "plan changes" if any(d.plan for d in diffs)
            else "slower" if "regression" in said
            else "faster" if "improvement" in said
            else "same"
        )  # fmt: skip
        reports.append(
            FingerprintResult(
                fingerprint_id=fid,
                fingerprint=statements[indexes[0]].fingerprint,
                group=group,
                median_s=medians,
                ratios=ratios,
                statements=statement_reports,
            )
        )
    return reports


def exit_bits(reports: list[FingerprintResult]) -> int:
    """pt-upgrade-like exit status: 1 result/error differences, 2 regressions, 4 plan changes."""
    bits = 0
    for report in reports:
        diffs = [d for s in report.statements for d in s.diffs]
        if any(d.breaks for d in diffs):
            bits |= EXIT_BREAKS
        if any(d.plan for d in diffs):
            bits |= EXIT_PLAN_CHANGES
        if any(r.verdict == "regression" for r in report.ratios.values()):
            bits |= EXIT_REGRESSIONS
    return bits


def report_document(
    statements: list[SourceStatement],
    replays: list[VariantReplay],
    reports: list[FingerprintResult],
    schedule: RunSchedule | None = None,
) -> ReplayReport:
    """The stored report (schemas.ReplayReport; stored as its JSON). Seconds are wall-clock around
    execute + fetch."""
    return ReplayReport(
        baseline=replays[0].name,
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
