"""The replay's stored report document (report.ReplayReport) from compare.py's fingerprints: the
variants as replayed, the summary per variant, the per-statement cost on top, the clocks, the FDR and
extension sentences, and the pt-upgrade-like exit status bits."""

from dataclasses import replace

from upgradelab.execution.schedule import EXTENSION_STEP, RunSchedule
from upgradelab.measurement import (
    COUNTERS,
    THRESHOLD,
    SourceStatement,
    StatementCost,
    VariantReplay,
    per_statement_cost,
    timing_text,
    work_text,
)
from upgradelab.replay import findings, stages
from upgradelab.replay.compare import cost_pairs
from upgradelab.replay.groups import GROUPS
from upgradelab.replay.report import FingerprintResult, ReplayReport, VariantReport
from upgradelab.replay.shards import Spread

# Exit status bits of `upgradelab replay`, as pt-upgrade's: results/errors, regressions, plans.
EXIT_BREAKS, EXIT_REGRESSIONS, EXIT_PLAN_CHANGES = 1, 2, 4


def statement_costs(
    replays: list[VariantReplay], aa_control: str | None = None, hosts: dict[int, str] | None = None
) -> list[StatementCost]:
    """The per-statement cost per non-baseline variant (statement_cost.py), its ratio read as a
    fingerprint's (compare.cost_pairs: THRESHOLD, the A/A control's floor on the same clock); the A/A
    control's own line is that floor (StatementCost.aa_control). `hosts`: a sharded replay's null
    statements (index in the merged replays, shards.Merged.null_shards) -> the host that timed it
    (its worker's name): one line per variant and host, each read on that host's own null statement
    and A/A floor, as its fingerprints are (compare.py null_of), the host named in the line; None or
    empty: one line per variant, on the replays' own null statement."""
    base = replays[0]
    if not hosts:
        return [
            per_statement_cost(name, base.name, *pair, aa_control=name == aa_control)
            for name, pair in cost_pairs(replays, aa_control).items()
        ]
    on_host = {
        host: cost_pairs([replace(r, null_statement=null) for r in replays], aa_control)
        for null, host in hosts.items()
    }
    out = []
    for name in (r.name for r in replays[1:]):
        for host, pairs in on_host.items():
            line = per_statement_cost(name, base.name, *pairs[name], aa_control=name == aa_control)
            out.append(line.model_copy(update={"host": host, "text": f"on {host}: {line.text}"}))
    return out


SHARDING_TEXT = (
    "spread over {count} hosts, each running every variant for its own fingerprints ({shards}); every "
    "shard planned its rounds from the replay's id (seed {seed}) and extended its own undecided "
    "fingerprints, so each shard's schedule is the first rounds of the one stored ({most} rounds); each "
    "fingerprint's rounds and per-statement cost are its own host's"
)


def sharding_text(spread: Spread, schedule: RunSchedule | None) -> str:
    """The report's sentence on a sharded replay (SHARDING_TEXT): each shard's host, fingerprints and
    rounds, and which schedule was stored (`schedule`: the longest, every shard's the first rounds of
    it)."""
    shards = "; ".join(
        f"shard {n} on {host}: {fingerprints} fingerprint{'s' if fingerprints != 1 else ''}, {rounds} rounds"
        for n, (host, fingerprints, rounds) in enumerate(
            zip(spread.hosts, spread.fingerprints, spread.rounds, strict=True), start=1
        )
    )
    return SHARDING_TEXT.format(
        count=len(spread.hosts),
        shards=shards,
        seed=schedule.seed if schedule else "?",
        most=schedule.rounds if schedule else max(spread.rounds, default=0),
    )


def exit_bits(reports: list[FingerprintResult]) -> int:
    """pt-upgrade-like exit status from every finding of every fingerprint on every variant
    (findings.variant_findings, so a regression inside a break sets its bit too): 1 breaks (result or
    error differences), 2 regressions (slower, slower by the per-statement cost, or timed out on a
    variant and not on the baseline), 4 plan changes. Refusals set no bit."""
    bits = 0
    for report in reports:
        for variant in report.variants:
            for kind in findings.variant_findings(report, variant):
                if kind == "breaks":
                    bits |= EXIT_BREAKS
                elif kind == "plan changed":
                    bits |= EXIT_PLAN_CHANGES
                elif kind.startswith("slower"):
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
    aa_control: str | None = None,
    planned_rounds: int | None = None,
    max_rounds: int | None = None,
    spread: Spread | None = None,
) -> ReplayReport:
    """The stored report (report.ReplayReport; stored as its JSON). Seconds are each pass's median
    of its repeated runs by the replay's clock (engine.py, timing.py); `partial`: the replay was
    cancelled and this is what it measured; planned_rounds / max_rounds: the rounds every statement
    was to get and the extension's budget (None / <= planned_rounds: no extension); `spread`: where a
    sharded replay's statements ran (shards.Spread): a per-statement cost line per variant and host
    (statement_costs), each fingerprint's host, and the `sharding` sentence (sharding_text)."""
    tested = sum(1 for r in reports for f in r.variants.values() if f.p_value is not None)
    clocks = {r.clock for r in replays}
    extended = planned_rounds is not None and max_rounds is not None and max_rounds > planned_rounds
    extension = (
        findings.EXTENSION_TEXT.format(
            extended=sum(1 for r in reports if (r.rounds or 0) > (planned_rounds or 0)),
            fingerprints=len(reports),
            planned=planned_rounds,
            step=EXTENSION_STEP,
            max_rounds=max_rounds,
            most=max((r.rounds or 0 for r in reports), default=0),
        )
        if extended
        else None
    )
    return ReplayReport(
        baseline=replays[0].name,
        partial=partial,
        statement_timeout_s=statement_timeout_s,
        variants=[
            VariantReport(
                name=r.name,
                version=r.version,
                loaded=r.load,
                tables=r.tables,
                flavor=r.flavor or None,
                statistics_at=r.statistics_at,
                analyzed=r.analyzed,
                clock=r.clock,
                settings=r.settings,
                performance_schema=r.performance_schema,
                counters=[c.name for c in COUNTERS if any(c.name in t.count for t in r.work)],
                stages=bool(r.stages) and bool(r.stage_events),
            )
            for r in replays
        ],
        summary=[findings.summarise(reports, r.name, r.version, replays[0].name) for r in replays[1:]],
        clock=clocks.pop() if len(clocks) == 1 else None,
        per_statement_cost=statement_costs(replays, aa_control, spread.null_hosts if spread else None),
        timing=timing_text(
            {r.name: r.clock for r in replays},
            {r.name: r.performance_schema for r in replays},
            replays[0].timing_cpu if replays else None,
        ),
        fdr=findings.FDR_TEXT.format(m=tested, q=findings.FDR_Q),
        fdr_q=findings.FDR_Q,
        aa_control=aa_control,
        groups={group: sum(1 for r in reports if r.group == group) for group in GROUPS},
        exit_bits=exit_bits(reports),
        statements=len(statements),
        rounds=max((len(t) // r.passes for r in replays for t in r.times), default=0),
        passes=replays[0].passes if replays else 1,
        schedule=schedule,
        threshold=THRESHOLD,
        fingerprints=[
            r.model_copy(update={"host": spread.fingerprint_hosts.get(r.fingerprint_id)}) for r in reports
        ]
        if spread
        else reports,
        sharding=sharding_text(spread, schedule) if spread else None,
        planned_rounds=planned_rounds,
        max_rounds=max_rounds if extended else None,
        extension=extension,
        work_counters=work_text({r.name: r.clock for r in replays}),
        stages=stages.stages_text({r.name: bool(r.stages) and bool(r.stage_events) for r in replays}),
    )
