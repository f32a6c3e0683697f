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

Pure: no database, no server; attribution/runner.py passes an oracle that executes step runs, the
unit tests a fake one.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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


def pooled(first: Outcome, second: Outcome, target: float) -> Outcome:
    """Two measurements of one subset (independent runs) as one: inverse-variance weighted share, its
    interval the weighted half-width (normal approximation), closing when the pooled share reaches
    `target`."""
    weights = [1 / max(((o.high - o.low) / 2) ** 2, 1e-12) for o in (first, second)]
    share = (first.share * weights[0] + second.share * weights[1]) / sum(weights)
    half = (1 / sum(weights)) ** 0.5
    return Outcome(share, share - half, share + half, share >= target)


class OutOfBudget(Exception):
    """No run (or no minute) left for another test."""


Oracle = Callable[[list[Subset]], dict[Subset, Outcome]]


@dataclass
class Search:
    """Where the search ended: `found` the smallest closing set found (None: none closes, not even all
    candidates together), `complete` False when the budget ended it first, `tested` every outcome by
    subset (sorted names), `without` for each member of `found` the subset without it."""

    candidates: Subset
    found: Subset | None = None
    complete: bool = False
    tested: dict[Subset, Outcome] = field(default_factory=dict)

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
