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
- `plan`: the (table, access type, key) join sequence differs: a change of access type, chosen index
  or join order; compared between variants of one flavor only (`plan_compared`): MySQL's and
  MariaDB's plans differ in form whatever the version does, so across flavors both are kept and
  shown and a different form is not a change;
- `error_change`: new / resolved / changed / same (DEA's error split); `cause`: the known cause of
  a break (causes.py).
Per fingerprint and variant, time (engine.py's rounds): a pass's value is the sum over the
fingerprint's sampled statements of their seconds in that pass; the round value is the median of
the round's passes (results/stats/verdicts.py `round_values`); `median_s` is the median of the round
values; the ratio to the baseline, its 95 % interval, the smallest detectable change and the verdict
come from results/stats/verdicts.py on the round values paired by round (a t interval on the per-round log
ratios, at least MIN_ROUNDS rounds, THRESHOLD), never from the timings of one block. A pass where a
statement of the fingerprint errored, timed out or was not run is left out (a round without passes
too).

Clocks: a pair is read on one clock (timing.py `pair_clock`): the server's when both were timed by
it, else the client's of both (`pass_values`' clock); `median_s` is each variant's own clock's.
Per-statement cost (statement_cost.py): the null statement's rounds give, per non-baseline variant,
the report's top line, and every fingerprint a second verdict net of that cost (`net`), which groups a
change that is the cost's alone apart. A replay sharded over a pool's hosts (shards.py) reads each
fingerprint against the null statement timed on its own host (`null_of`).

Groups: per variant against the baseline (findings.py, after Benjamini-Hochberg across the
replay's time comparisons); a fingerprint's `group` is the first of its variants' groups in
groups.GROUPS order.

Work and cause per fingerprint and variant: `work`, its counters per execution summed over its
statements counted on every variant (counters.py), the ones that differ from the baseline's, its
time by stage (`stages`, replay/stages.py) and the stages that moved with its time finding, and the
cause of each finding (change_causes.py `attribute`).
"""

import math
import statistics
from dataclasses import replace
from typing import NamedTuple

from upgradelab.measurement import (
    THRESHOLD,
    Clock,
    SourceStatement,
    VariantReplay,
    WorkTally,
    aa_floor,
    cost_only,
    cost_rounds,
    diff,
    fingerprint_work,
    pair_clock,
    paired_rounds,
    pass_values,
    time_ratio,
)
from upgradelab.replay import findings, stages
from upgradelab.replay.change_causes import attribute, direction
from upgradelab.replay.report import FingerprintResult, StageChange, StatementResult, VariantFinding
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import VerdictRead


def _tallies(replay: VariantReplay, indexes: list[int]) -> list[WorkTally | None]:
    """The work tallies of a fingerprint's statements on a variant (None: none kept)."""
    return [replay.work[i] if i < len(replay.work) else None for i in indexes]


def timed_rounds(replays: list[VariantReplay], indexes: list[int]) -> int:
    """The rounds a fingerprint's statements were timed (the most on any variant): the planned rounds,
    more when the extension (engine.py step 4) timed it again."""
    first = indexes[0]
    return max((len(r.times[first]) // r.passes for r in replays if first < len(r.times)), default=0)


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
                not base.flavor or not r.flavor or base.flavor == r.flavor,
            )
            for r in replays[1:]
        ],
        timed_out_runs={r.name: timed_out_runs(r, i) for r in replays},
    )


class CostPair(NamedTuple):
    """The null statement on one pair (statement_cost.py): the pair's clock, its pass values on the
    baseline and on the variant (seconds), and the variant / baseline ratio read as a fingerprint's."""

    clock: Clock
    baseline: verdicts.Rounds
    variant: verdicts.Rounds
    ratio: VerdictRead | None


def cost_pairs(replays: list[VariantReplay], aa_control: str | None = None) -> dict[str, CostPair]:
    """Per non-baseline variant name, the per-statement cost against the baseline (CostPair): the
    null statement's pass values on the pair's clock, its ratio read by time_ratio (THRESHOLD, the A/A
    control's floor on the same clock; the control's own read against none; None where the null
    statement was not timed on both sides)."""
    base = replays[0]
    clocks = {r.name: pair_clock(base.clock, r.clock) for r in replays[1:]}
    rounds = {
        r.name: (cost_rounds(base, clocks[r.name]), cost_rounds(r, clocks[r.name])) for r in replays[1:]
    }
    floor = verdicts.interval(*rounds[aa_control], paired=True) if aa_control in rounds else None
    out = {}
    for r in replays[1:]:
        same_floor = (
            None
            if r.name == aa_control or aa_control not in clocks or clocks[aa_control] != clocks[r.name]
            else floor
        )
        out[r.name] = CostPair(clocks[r.name], *rounds[r.name], time_ratio(*rounds[r.name], same_floor))
    return out


def _stage_changes(
    report: FingerprintResult,
    rounds: dict[str, stages.StageRounds | None],
    replays: list[VariantReplay],
    variant: VariantReplay,
    aa_control: str | None,
) -> list[StageChange] | None:
    """The stage changes of the fingerprint's time finding on `variant` (stages.stage_changes, against
    the A/A control's stages unless `variant` is the control); [] without a slower or faster finding,
    None when either side kept no stages (the cause then says "no counter moved" as before stages)."""
    base = replays[0]
    on_base, on_variant = rounds.get(base.name), rounds.get(variant.name)
    if on_base is None or on_variant is None:
        return None
    kind = findings.time_finding(report, variant.name)
    way = direction(kind) if kind and kind != "slower (timed out)" else None
    if way is None:
        return []
    aa = rounds.get(aa_control) if aa_control and variant.name != aa_control else None
    same_flavor = not base.flavor or not variant.flavor or base.flavor == variant.flavor
    return stages.stage_changes(on_base, on_variant, way, aa, same_flavor)


def compare(
    statements: list[SourceStatement],
    replays: list[VariantReplay],
    aa_control: str | None = None,
    with_stages: bool = True,
    null_of: list[int | None] | None = None,
) -> list[FingerprintResult]:
    """Fingerprint reports in source order of their first statement (see module docstring).
    aa_control: the name of the A/A control's replay (a second instance of the baseline): its
    interval is each fingerprint's `floor`, and the other variants' verdicts are read against it.
    with_stages: where the time went and which stages moved (replay/stages.py; False: neither, for a
    reading that needs the groups only, as the extension's).
    null_of: per statement, the index of the null statement timed on its host (a sharded replay,
    shards.merge: each fingerprint's net and per-statement-cost reading use its own host's); None:
    every replay's own `null_statement`."""
    base = replays[0]
    clocks = {r.name: pair_clock(base.clock, r.clock) for r in replays[1:]}
    by_fingerprint: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        by_fingerprint.setdefault(statement.fingerprint_id, []).append(index)
    # the null statement's index -> the replays reading it (sharded: None is a host that timed none)
    on_host: dict[int | None, list[VariantReplay]] = {
        None: replays if null_of is None else [replace(r, null_statement=None) for r in replays]
    }
    for null in set(null_of or []) - {None}:
        on_host[null] = [replace(r, null_statement=null) for r in replays]
    costs = {null: cost_pairs(host, aa_control) for null, host in on_host.items()}
    host_of = {fid: null_of[indexes[0]] if null_of else None for fid, indexes in by_fingerprint.items()}
    reports = []
    logs: dict[tuple[str, str], list[float]] = {}
    stage_data: dict[str, dict[str, stages.StageRounds | None]] = {}
    for fid, indexes in by_fingerprint.items():
        if with_stages:
            stage_data[fid] = {r.name: stages.stage_rounds(r, indexes) for r in replays}
        statement_reports = [_statement(statements, replays, i) for i in indexes]
        rounds = {r.name: pass_values(r, indexes) for r in replays}
        medians = {
            name: statistics.median(verdicts.round_values(values).values()) if values else None
            for name, values in rounds.items()
        }
        host = on_host[host_of[fid]]
        paired = {r.name: paired_rounds(host[0], r, indexes, clocks[r.name]) for r in host[1:]}
        floor = aa_floor(paired, aa_control, clocks)
        found = {
            r.name: time_ratio(*paired[r.name][:2], floor[0] if clocks[r.name] == floor[2] else None)
            for r in replays[1:]
            if r.name != aa_control
        }
        if aa_control in paired:
            found[aa_control] = time_ratio(*paired[aa_control][:2])
        ratios = {name: ratio for name, ratio in found.items() if ratio is not None}
        for r in replays[1:]:
            logs[(fid, r.name)] = findings.round_logs(*paired[r.name][:2])
        net = {
            r.name: time_ratio(
                paired[r.name][0], paired[r.name][2], floor[1] if clocks[r.name] == floor[2] else None
            )
            if paired[r.name][2] and r.name != aa_control
            else None
            for r in replays[1:]
        }
        reports.append(
            FingerprintResult(
                fingerprint_id=fid,
                fingerprint=statements[indexes[0]].fingerprint,
                class_id=statements[indexes[0]].class_id,
                group="same",
                median_s=medians,
                ratios=ratios,
                statements=statement_reports,
                floor=ratios.get(aa_control) if aa_control else None,
                rounds=timed_rounds(replays, indexes),
                work=fingerprint_work({r.name: _tallies(r, indexes) for r in replays}),
                stages={
                    name: stages.fingerprint_stages(one)
                    for name, one in stage_data.get(fid, {}).items()
                    if one is not None
                },
                variants={
                    r.name: VariantFinding(group="undecided", clock=clocks[r.name], net=net[r.name])
                    for r in replays[1:]
                },
            )
        )
    findings.control_false_discoveries(reports, logs)
    for report in reports:
        if aa_control:  # the floor is the A/A control's read as it stands after the control above
            report.floor = report.ratios.get(aa_control)
        for r in replays[1:]:
            finding = report.variants.setdefault(r.name, VariantFinding(group="undecided"))
            finding.per_statement_cost_only = cost_only(
                report.ratios.get(r.name),
                finding.net,
                costs[host_of[report.fingerprint_id]][r.name].ratio,
                THRESHOLD,
            )
            finding.group = findings.variant_group(report, r.name)
            finding.causes = list(
                {
                    d.cause.id: d.cause
                    for s in report.statements
                    for d in s.diffs
                    if d.variant == r.name and d.cause
                }.values()
            )
            attribute(
                report,
                base.name,
                r.name,
                cost_only=finding.per_statement_cost_only,
                kinds=findings.variant_findings(report, r.name),
                stages=_stage_changes(
                    report, stage_data.get(report.fingerprint_id, {}), replays, r, aa_control
                ),
                same_flavor=not base.flavor or not r.flavor or base.flavor == r.flavor,
            )
        report.group = findings.overall_group(report)
    return reports
