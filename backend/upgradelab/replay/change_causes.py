"""Why a fingerprint changed on a variant: one cause from what the replay measured, the first of

1. "known cause": a break of a known cause (causes.py KNOWN_CAUSES, the statement diffs' `cause`);
2. "plan change": the plan differs (compare.py `diff`: within one flavor), named by its part: join
   order, a table's access type ("orders: access ref -> ALL"), a table's index ("orders: index
   k_customer -> none"), and the work it changed when a counter moved ("...; more work: rows
   examined 16,049 -> 802,450, 50x": a dropped index is both);
3. "work": a work counter moved in the time's direction (measurement/counters.py threshold: deterministic
   counters only), named with its change ("more work: rows examined 16,049 -> 802,450, 50x"; a
   faster fingerprint: "less work: ...");
4. "per-statement cost": the variant's per-statement cost (the null statement's, timed in every
   pass) changed the same way, and net of it no change of this query's own is measured (the same,
   undecided, or the other way: statement_cost.py `cost_only`; the sentence says which);
5. "stage": a stage of its time (or its CPU time) moved in the time's direction (replay/stages.py's
   rule: timed, so decided by an interval over the paired rounds against the A/A control's scatter,
   and carrying at least a stated share of the change): "time in stages: optimizing 12 -> 48 us,
   4.0x";
6. "time only": none of the above: "time only: no counter or stage moved" with the stages that moved
   most beside it (or the counters were unavailable, the client's clock; or they moved against the
   time, said so; "no counter moved" alone where no stage events were read).

Which findings get one: every slower or faster group (the groups named "slower..." / "faster...",
the per-statement cost's too) and a break whose cause is known. A break without a known cause, a
plan change without a time verdict, same, undecided, refused and timed out get none. Each finding of
a fingerprint (report.FingerprintFinding: a break, its time, its plan) gets its own (`attribute`): a
regression inside a break is explained as any regression is, never by the break's known cause.
"""

from typing import Literal

from upgradelab.measurement import Cause, CounterChange, PlanStep, counter_changes
from upgradelab.replay.report import (
    ChangeCause,
    FindingKind,
    FingerprintFinding,
    FingerprintResult,
    StageChange,
)
from upgradelab.results.stats.verdicts import VerdictRead

Direction = Literal["slower", "faster"]


def direction(group: str) -> Direction | None:
    """The way a group changed: "slower" for the slower groups (slower, slower plan changed, slower
    (timed out), slower: per-statement cost only), "faster" likewise, None for the others."""
    if group.startswith("slower"):
        return "slower"
    if group.startswith("faster"):
        return "faster"
    return None


def plan_parts(base: list[PlanStep], other: list[PlanStep]) -> list[str]:
    """What differs between two plans (steps in join order): "join order a, b -> b, a", then per
    table in the variant's order "t: access ref -> ALL" and "t: index k -> none"; a table on one side
    only: "t: only in the baseline's plan" / "only in the variant's plan"."""
    parts = []
    before, after = [s.table for s in base], [s.table for s in other]
    if before != after and sorted(before) == sorted(after):
        parts.append(f"join order {', '.join(before)} -> {', '.join(after)}")
    old = {s.table: s for s in base}
    for step in other:
        was = old.pop(step.table, None)
        if was is None:
            parts.append(f"{step.table}: only in the variant's plan")
            continue
        if was.access_type != step.access_type:
            parts.append(f"{step.table}: access {was.access_type} -> {step.access_type}")
        if was.key != step.key:
            parts.append(f"{step.table}: index {was.key or 'none'} -> {step.key or 'none'}")
    parts.extend(f"{table}: only in the baseline's plan" for table in old)
    return parts


def _share(change: CounterChange) -> float:
    """How much of the larger side the change is (0 to 1): a counter from 0 is 1."""
    return abs(change.other.mean - change.base.mean) / max(change.base.mean, change.other.mean)


def change_cause(
    group: str,
    known: list[Cause],
    plan: list[str] | None,
    work: list[CounterChange] | None,
    cost_only: bool = False,
    net: VerdictRead | None = None,
    stages: list[StageChange] | None = None,
    same_flavor: bool = True,
) -> ChangeCause | None:
    """The cause (module docstring's order) of a finding in `group`: `known` the known causes of its
    breaks, `plan` the parts of its plan change (None: the plan did not change; [] changed in a way
    plan_parts does not name), `work` its counters that differ from the baseline's (None: counters
    unavailable), `cost_only` changed by the per-statement cost only (statement_cost.cost_only; `net`
    the fingerprint's verdict net of that cost, for the sentence), `stages` its stage changes
    (replay/stages.py stage_changes; None: no stage events read; `same_flavor` False: compared by
    phase across MySQL and MariaDB, said so). None when the group gets no cause."""
    across = "" if same_flavor else " (by phase across MySQL and MariaDB)"
    way = direction(group)
    if known:
        return ChangeCause(kind="known cause", text="; ".join(cause.title for cause in known))
    if way is None:
        return None
    along = sorted(  # the largest change first
        (c for c in work or [] if c.moved and (c.other.mean > c.base.mean) == (way == "slower")),
        key=_share,
        reverse=True,
    )
    more = f"{'more' if way == 'slower' else 'less'} work: {'; '.join(c.text for c in along)}"
    if plan is not None:  # the plan is the cause; the work it changed is its evidence
        text = "plan changed" + (f": {'; '.join(plan)}" if plan else "") + (f"; {more}" if along else "")
        return ChangeCause(kind="plan change", text=text)
    if along:
        return ChangeCause(kind="work", text=more)
    if cost_only:
        return ChangeCause(kind="per-statement cost", text=_cost_text(way, net))
    moved = [c.text for c in stages or [] if c.moved]
    if moved:
        return ChangeCause(kind="stage", text=f"time in stages{across}: {'; '.join(moved)}")
    shown = f" ({'stages: ' + '; '.join(c.text for c in stages)})" if stages else ""
    if work is None:  # a slower or faster group's statements ran: the client's clock, or a timeout
        timed_out = group == "slower (timed out)"
        why = "timed out: no counters of its timed-out run" if timed_out else "client clock"
        return ChangeCause(kind="time only", text=f"time only: work counters unavailable ({why}){shown}")
    nothing = "no counter or stage moved" if stages is not None else "no counter moved"
    against = [c.text for c in work if c.moved]
    if against:
        text = f"time only: work moved the other way ({'; '.join(against)}){shown}"
        return ChangeCause(kind="time only", text=text)
    return ChangeCause(kind="time only", text=f"time only: {nothing}{shown}")


def _cost_text(way: Direction, net: VerdictRead | None) -> str:
    """The per-statement cost's sentence: what the fingerprint's net verdict was."""
    per = f"the variant is {way} per statement"
    if net is None or net.verdict == "no significant difference":
        shown = "" if net is None else f" ({net.ratio:.2f}x [{net.low:.2f}, {net.high:.2f}])"
        return f"per-statement cost only: net of the null statement's time it is the same{shown} ({per})"
    interval = f"{net.ratio:.2f}x [{net.low:.2f}, {net.high:.2f}]"
    if net.verdict == "inconclusive":
        return (
            f"per-statement cost: net of the null statement's time no change of its own is decided "
            f"({interval}, inconclusive; {per})"
        )
    other = "faster" if way == "slower" else "slower"
    return (
        f"per-statement cost: net of the null statement's time it is {other} ({interval}): it pays "
        f"less of the change than the null statement ({per})"
    )


def attribute(
    report: FingerprintResult,
    baseline: str,
    variant: str,
    cost_only: bool = False,
    kinds: list[FindingKind] | None = None,
    stages: list[StageChange] | None = None,
    same_flavor: bool = True,
) -> None:
    """Set the fingerprint's finding on `variant`: its counter changes against `baseline` (`work`,
    measurement/counters.py), its stage changes (`stages`, replay/stages.py stage_changes; None: no stage
    events read), its cause (change_cause) and, given its finding `kinds` (findings.variant_findings),
    each finding with its own cause (a break's known cause, a plan change's parts, a time finding's
    by change_cause without the break's known causes); `cost_only`: statement_cost.cost_only for this
    fingerprint and variant (default False); the finding's `net` gives the cause's sentence;
    `same_flavor`: the baseline and the variant are both MySQL or both MariaDB (stages compared by
    phase across flavors otherwise, said in the cause)."""
    finding = report.variants[variant]
    finding.work = counter_changes(report.work, baseline, variant)
    finding.stages = list(stages or [])
    plan = None
    for statement in report.statements:
        if any(d.plan for d in statement.diffs if d.variant == variant):
            plan = plan_parts(statement.outcomes[baseline].plan, statement.outcomes[variant].plan)
            break
    available = baseline in report.work and variant in report.work
    work = finding.work if available else None
    finding.cause = change_cause(
        finding.group, finding.causes, plan, work, cost_only, finding.net, stages, same_flavor
    )

    def cause_of(kind: FindingKind) -> ChangeCause | None:
        """One finding's own cause: a break's known cause (None when none matches), a plan change's
        parts, a time finding's by change_cause without the break's known causes."""
        if kind == "breaks":
            titles = "; ".join(c.title for c in finding.causes)
            return ChangeCause(kind="known cause", text=titles) if titles else None
        if kind == "plan changed":
            return ChangeCause(
                kind="plan change", text="plan changed" + (f": {'; '.join(plan)}" if plan else "")
            )
        cost = kind.endswith("cost only")
        return change_cause(kind, [], plan, work, cost, finding.net, stages, same_flavor)

    finding.findings = [FingerprintFinding(kind=kind, cause=cause_of(kind)) for kind in kinds or []]
