"""Plan identity as evidence (issue 46, Deliver 4): a setting whose statement-level arm gives the
variant the baseline's exact plan, with the baseline's results and work, is the remedy whatever its
timing said: a statement-level wrapper's own cost, or the noise of a microsecond statement, can keep
its interval above the tolerance. Such a setting is then measured as a global remedy (search.py: its
twin, which carries no wrapper, with the whole-replay side-effect check); this module says whether
the evidence holds, and in words.

The evidence, all of it on the fingerprint's sampled statements:
- the variant's own plan differs from the baseline's on some statement (else a setting that changes
  nothing would pass: seen on a planted scan that both versions run the same way);
- every statement's plan with the remedy (table, access type, key per step in join order, as
  measurement/outcomes.py PlanStep reads EXPLAIN FORMAT=JSON; rows estimates aside, they differ between
  servers) equals the baseline's;
- the results equal the baseline's (checksums and row counts, measure.results_equal);
- the work counters of the candidate's timed runs equal the baseline's (measurement/counters.py: no
  deterministic counter moved by its rule; CPU time is a time and never counts). Counters exist only
  on the server's clock: without them (a server with performance_schema off) there is no identity.
"""

from upgradelab.measurement import BY_NAME, PlanStep, WorkTally, counter_moved, fingerprint_work


def steps_text(plan: list[PlanStep]) -> str:
    """A plan in one line: `table:access/key` per step ("-": none)."""
    return " > ".join(f"{s.table}:{s.access_type or '-'}/{s.key or '-'}" for s in plan) or "no plan"


def same_plan(a: list[PlanStep], b: list[PlanStep]) -> bool:
    """The same steps (table, access type, key) in the same order; an empty plan is no plan."""

    def key(plan: list[PlanStep]) -> list[tuple[str, str | None, str | None]]:
        return [(s.table, s.access_type, s.key) for s in plan]

    return bool(a) and key(a) == key(b)


def work_moved(baseline: list[WorkTally], candidate: list[WorkTally]) -> list[str] | None:
    """The deterministic counters that moved between the baseline's and the candidate's timed runs
    (their labels; [] none moved), None when either counted nothing (the client's clock)."""
    found = fingerprint_work({"baseline": list(baseline), "candidate": list(candidate)})
    if set(found) != {"baseline", "candidate"}:
        return None
    base, other = found["baseline"].counters, found["candidate"].counters
    return [
        BY_NAME[name].label
        for name in base
        if name in other
        and BY_NAME[name].deterministic
        and counter_moved(BY_NAME[name], base[name], other[name])
    ]


def plan_identity(
    baseline_plans: list[list[PlanStep]],
    plans_after: list[list[PlanStep]],
    results_equal: bool,
    baseline_work: list[WorkTally],
    candidate_work: list[WorkTally],
    variant_plans: list[list[PlanStep]] | None = None,
) -> tuple[str | None, str]:
    """(the sentence the report gives when the evidence holds, else None; why it does not hold, or the
    same sentence). Plans are per statement, in the fingerprint's order; `variant_plans`, the variant's
    own: where they are the baseline's already, a setting that leaves them so undoes no plan change
    and is no evidence."""
    if not results_equal:
        return None, "its results differ from the baseline's"
    if not plans_after or len(plans_after) != len(baseline_plans):
        return None, "its plans were not read"
    if variant_plans is not None and all(
        same_plan(a, b) for a, b in zip(baseline_plans, variant_plans, strict=False)
    ):
        return None, "the variant's plans are the baseline's already: no plan change for it to undo"
    pairs = enumerate(zip(baseline_plans, plans_after, strict=True))
    differing = [i for i, (a, b) in pairs if not same_plan(a, b)]
    if differing:
        first = differing[0]
        return None, (
            f"its plan of statement {first + 1} is not the baseline's: {steps_text(plans_after[first])} "
            f"against {steps_text(baseline_plans[first])}"
        )
    counters = work_moved(baseline_work, candidate_work)
    if counters is None:
        return None, "no work counters to compare (the client's clock: performance_schema off)"
    if counters:
        return None, f"its plans are the baseline's but its work differs: {', '.join(counters)} moved"
    count = len(plans_after)
    said = (
        f"with it the variant's plan of {'its statement' if count == 1 else f'all {count} statements'} is "
        f"the baseline's ({steps_text(plans_after[0])}), its results and work counters equal the baseline's"
    )
    return said, said
