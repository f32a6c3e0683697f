"""Delta debugging (ddmin, Zeller and Hildebrandt 2002) over candidate settings, with a batched oracle.

A test gives the variant the baseline's values for a subset of the candidates and measures how much of
the log-ratio gap that closes (its `share`: 0 = the variant as it is, 1 = the baseline's time). A
subset "closes the gap" when its share reaches the attribution's target share (default 0.8).

ddmin keeps a closing set and tries its n chunks, then their complements; a chunk or complement that
closes replaces the set, otherwise n doubles, until n exceeds the set's size: the set is then
1-minimal (no single member can be dropped and still close the gap, as measured). Tests are asked in
batches (several subsets share one interleaved run beside the baseline and the variant), so the cost
unit, a run, covers up to `batch` subsets. The oracle raises OutOfBudget when no run is left; the
search then returns what it has (`complete` False).

After a complete search with a found set, `beside` asks which candidates outside the set move the
time on their own (they overlap with the set: it closes the gap without them, but a DBA reverting only
the set would still want to know them). Two stages, each holding its false discoveries (family-wise,
Holm) to half of ALPHA, so that a setting that does not matter is named with at most ALPHA's chance
in all (union bound over the two stages):

    screening     the singletons ddmin measured (no extra run): named when decided above 0
    confirmation  the singletons screening left undecided but positive, and the candidates outside the
                  set ddmin never measured alone (together, as one group): CONFIRM_RUNS fresh
                  measurements each (runs chosen in advance, not stopped early), pooled; decided on
                  them alone: they were selected on the screening measurement, which would bias a
                  pooled estimate toward the selection (a positive share)
    group         part of the confirmation stage: a decided group is split in halves (adaptive group
                  testing), each half measured CONFIRM_RUNS times more and tested at its parent's
                  level times its share of the parent's members (the group's level shared among its
                  disjoint parts, as in Meinshausen's hierarchical testing, 2008): a singleton decided
                  this way is named

The stopping rule of the phase is the budget (runs, minutes), never an outcome: a measurement cut
short by it is decided on the runs it got (fewer, so wider), a subset with none is not decided.

Pure: no database, no server; attribution/runner.py passes an oracle that executes step runs, the
unit tests a fake one.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

Subset = tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """One tested subset: the share of the gap it closes (point and 95 % interval, fractions of the
    log-ratio gap), whether it closes the gap at the target share, and why it could not be measured."""

    share: float
    low: float
    high: float
    closes: bool
    error: str | None = None  # the subset could not be measured (the server refused it): never closes


def undecided(outcome: Outcome, target: float) -> bool:
    """Whether the target share lies strictly inside the outcome's interval (one measurement cannot
    say on which side of the target the subset is)."""
    return outcome.low < target < outcome.high


_NORMAL = NormalDist()
_Z975 = _NORMAL.inv_cdf(0.975)


def pooled_all(outcomes: Sequence[Outcome], target: float) -> Outcome:
    """Any number (>= 1) of independent measurements (runs) of one subset as one: random-effects
    meta-analysis (DerSimonian and Laird 1986). Each run's standard error is its 95 % interval's
    half-width / z 0.975; the between-run variance tau^2 = max(0, (Q - (k - 1)) / (S1 - S2 / S1)) with
    Cochran's Q over the inverse-variance weights; the pooled share is weighted by 1 / (se^2 + tau^2),
    its interval the normal 95 % one. Runs that agree pool as the inverse-variance (fixed-effect) mean;
    runs that disagree by more than their own intervals allow widen the interval: a run's interval
    (its rounds) does not see what differs between runs (instances' placement, the host's load). With
    fixed-effect pooling the constructed gap's first test (all candidates reverted: the baseline's
    configuration) once ended at 69 % [60, 79] after 2 runs on a busy CI host, and the search
    "unexplained". Closing when the pooled share reaches `target`."""
    if len(outcomes) == 1:
        return outcomes[0]
    variances = [max((o.high - o.low) / 2 / _Z975, 1e-9) ** 2 for o in outcomes]
    weights = [1 / v for v in variances]
    total = sum(weights)
    fixed = sum(w * o.share for w, o in zip(weights, outcomes, strict=True)) / total
    q = sum(w * (o.share - fixed) ** 2 for w, o in zip(weights, outcomes, strict=True))
    tau2 = max(0.0, (q - (len(outcomes) - 1)) / (total - sum(w * w for w in weights) / total))
    weights = [1 / (v + tau2) for v in variances]
    share = sum(w * o.share for w, o in zip(weights, outcomes, strict=True)) / sum(weights)
    half = _Z975 * (1 / sum(weights)) ** 0.5
    return Outcome(share, share - half, share + half, share >= target)


ALPHA = 0.05  # the chance of naming, beside the set, a setting that does not move the time
CONFIRM_RUNS = 3  # fresh measurements per confirmed candidate (a fixed number: decided once)


def p_above_zero(outcome: Outcome) -> float:
    """One-sided p-value of "reverting the subset moves the time toward the baseline's" (share > 0):
    normal approximation with the 95 % interval's lower half-width / z 0.975 as the standard error
    (p < 0.05 exactly when the one-sided 95 % bound is above 0); 1.0 for a subset that could not be
    measured."""
    if outcome.error is not None:
        return 1.0
    se = max(outcome.share - outcome.low, 1e-12) / _Z975
    return 1 - _NORMAL.cdf(outcome.share / se)


def holm(p: dict[Subset, float], alpha: float) -> dict[Subset, tuple[bool, float]]:
    """Holm's step-down over the p-values (family-wise error at most `alpha`): per key (decided, the
    level its p-value was compared with; for those after the first undecided one, that one's level)."""
    out: dict[Subset, tuple[bool, float]] = {}
    ordered = sorted(p, key=lambda k: p[k])
    going = True
    for rank, key in enumerate(ordered):
        level = alpha / (len(ordered) - rank) if going else out[ordered[rank - 1]][1]
        going = going and p[key] <= level
        out[key] = (going, level)
    return out


@dataclass(frozen=True)
class Beside:
    """One test beside the found set: the subset (a candidate, or a group), its stage ("screening",
    "confirmation", "group"), the measurement decided on (pooled over `runs` runs; None: the budget
    ended before it was measured), its one-sided p-value, the level it was compared with, whether it
    was decided (moves the time toward the baseline's), and for a confirmed singleton its screening
    measurement (shown, not used)."""

    subset: Subset
    stage: str
    outcome: Outcome | None
    runs: int
    p: float
    level: float
    decided: bool
    screening: Outcome | None = None


class OutOfBudget(Exception):
    """No run (or no minute) left for another test."""


Oracle = Callable[[list[Subset]], dict[Subset, Outcome]]


@dataclass
class Search:
    """Where the search ended: `found` the smallest closing set found (None: none closes, not even all
    candidates together), `complete` False when the budget ended it first, `tested` every outcome by
    subset (sorted names), `without` for each member of `found` the subset without it; `beside` the
    tests beside the set (None: that phase was not run) and `beside_complete` False when the budget
    ended it."""

    candidates: Subset
    found: Subset | None = None
    complete: bool = False
    tested: dict[Subset, Outcome] = field(default_factory=dict)
    beside: list[Beside] | None = None
    beside_complete: bool = False

    def outcome(self, subset: Sequence[str]) -> Outcome | None:
        """The outcome of `subset` (order free); the empty set closes nothing, by definition."""
        key = _key(subset)
        if not key:
            return Outcome(0.0, 0.0, 0.0, False)
        return self.tested.get(key)


def _key(subset: Sequence[str]) -> Subset:
    return tuple(sorted(subset))


def chunks(items: Sequence[str], n: int) -> list[Subset]:
    """`items` cut into n contiguous chunks of near-equal size (earlier chunks one longer), order kept:
    the candidates tried first (known changed defaults) stay together in the first chunk."""
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for index in range(n):
        end = start + size + (1 if index < extra else 0)
        out.append(tuple(items[start:end]))
        start = end
    return [c for c in out if c]


def search(candidates: Sequence[str], oracle: Oracle, batch: int = 2) -> Search:
    """ddmin over `candidates` (in the order to try them) with `oracle` answering up to `batch` subsets
    per call; then each member of the found set tested without it (for its own contribution). Stops
    with what it has when the oracle raises OutOfBudget."""
    state = Search(tuple(candidates))

    def ask(subsets: list[Subset], stop_at_close: bool) -> Subset | None:
        """Test the subsets not tested yet, `batch` per oracle call; the first one that closes (in the
        order given) once known, or None. With stop_at_close, no further batch after a closing one."""
        pending: list[Subset] = []
        for subset in subsets:
            if subset and state.outcome(subset) is None and _key(subset) not in map(_key, pending):
                pending.append(subset)
        while pending:
            now, pending = pending[:batch], pending[batch:]
            for subset, outcome in oracle(now).items():
                state.tested[_key(subset)] = outcome
            if stop_at_close and any(_closes(state, s) for s in subsets if state.outcome(s) is not None):
                break
        return next((s for s in subsets if _closes(state, s)), None)

    try:
        if ask([state.candidates], stop_at_close=False) is None:
            state.complete = True
            return state
        current, n = state.candidates, 2
        state.found = current
        while len(current) >= 2:
            parts = chunks(current, min(n, len(current)))
            hit = ask(parts, stop_at_close=True)
            if hit is not None:
                current, n = hit, 2
            else:
                complements = [tuple(x for x in current if x not in part) for part in parts] if n > 2 else []
                hit = ask(complements, stop_at_close=True)
                if hit is not None:
                    current, n = hit, max(n - 1, 2)
                elif n < len(current):
                    n = min(2 * n, len(current))
                else:
                    break
            state.found = current
        ask([tuple(x for x in current if x != member) for member in current], stop_at_close=False)
        state.complete = True
    except OutOfBudget:
        state.complete = False
    return state


def _closes(state: Search, subset: Sequence[str]) -> bool:
    outcome = state.outcome(subset)
    return outcome is not None and outcome.closes


def screening(state: Search, alpha: float = ALPHA / 2) -> list[Beside]:
    """The singletons outside the found set that ddmin measured, each decided on that one measurement
    (Holm at `alpha` over them); [] without a found set."""
    if state.found is None:
        return []
    outside = [c for c in state.candidates if c not in state.found]
    seen: dict[Subset, Outcome] = {
        (c,): o for c in outside if (o := state.outcome([c])) is not None and o.error is None
    }
    p = {key: p_above_zero(o) for key, o in seen.items()}
    decided = holm(p, alpha)
    return [
        Beside(key, "screening", o, 1, p[key], level=decided[key][1], decided=decided[key][0])
        for key, o in seen.items()
    ]


def beside(
    state: Search, measure: Oracle, batch: int = 2, runs: int = CONFIRM_RUNS, alpha: float = ALPHA
) -> None:
    """The phase beside the found set (module docstring): screening, then confirmation and group
    tests with `measure` (an oracle that measures each subset once per call, no retest; up to `batch`
    subsets per call), `runs` measurements per confirmed subset. Fills state.beside; stops with what
    it has when `measure` raises OutOfBudget (beside_complete False; the found set is unchanged).
    Nothing to do without a found set or after an incomplete search."""
    if state.found is None or not state.complete:
        return
    found = state.found
    screened = screening(state, alpha / 2)
    state.beside = list(screened)
    state.beside_complete = True
    target = 1.0  # no subset outside the set is asked to close the gap: `closes` is not used here
    confirm = [b.subset for b in screened if not b.decided and b.outcome is not None and b.outcome.share > 0]
    alone = {b.subset for b in screened}
    group = tuple(c for c in state.candidates if c not in found and (c,) not in alone)
    family = confirm + ([group] if group else [])
    measured: dict[Subset, list[Outcome]] = {s: [] for s in family}
    screen_of = {b.subset: b.outcome for b in screened}

    def take(subsets: list[Subset]) -> None:
        """`runs` passes over the subsets, `batch` per call; measured[...] grows; OutOfBudget passes."""
        for _ in range(runs):
            for start in range(0, len(subsets), batch):
                now = subsets[start : start + batch]
                for subset, outcome in measure(now).items():
                    if outcome.error is None:
                        measured[subset].append(outcome)

    def tested(subset: Subset, stage: str, level: float, holm_decided: bool | None = None) -> Beside:
        """The pooled measurements of `subset` decided at `level` (or as Holm decided them)."""
        got = measured.get(subset, [])
        outcome = pooled_all(got, target) if got else None
        p = 1.0 if outcome is None else p_above_zero(outcome)
        decided = p <= level if holm_decided is None else holm_decided
        return Beside(subset, stage, outcome, len(got), p, level, decided, screen_of.get(subset))

    try:
        take(family)
    except OutOfBudget:
        state.beside_complete = False
    decided = holm({s: tested(s, "", 0.0).p for s in family}, alpha / 2)
    for subset in family:
        stage = "group" if subset == group else "confirmation"
        state.beside.append(tested(subset, stage, decided[subset][1], decided[subset][0]))
    # a decided group of several: halves, each at its parent's level times its share of the members
    queue = [(group, decided[group][1])] if group and len(group) > 1 and decided[group][0] else []
    while queue and state.beside_complete:
        node, level = queue.pop(0)
        halves = chunks(node, 2)
        measured.update({h: [] for h in halves})
        try:
            take(halves)
        except OutOfBudget:
            state.beside_complete = False
        for half in halves:
            entry = tested(half, "group", level * len(half) / len(node))
            state.beside.append(entry)
            if entry.decided and len(half) > 1:
                queue.append((half, entry.level))
