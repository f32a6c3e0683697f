"""The fix search's order, stopping rule and budget, apart from any server: it asks an oracle to
measure a candidate and decides on what comes back (fixsearch/measure.py is the real oracle; the
tests give a simulated one, seeded).

    outcome = search(candidates, oracle, rounds=5, budget=Budget(rounds=60, minutes=30))

- order: by evidence, candidates.SOURCES (plan hints, then the settings that differ between the two
  servers, then the known levers), stable within a source;
- each candidate is measured `rounds` rounds (the oracle interleaves the baseline, the variant as it
  is and the candidate in every round); while its ratio to the baseline is undecided
  ("inconclusive", "insufficient rounds") and its results equal, EXTENSION_STEP more rounds, at most
  `max_rounds` for the candidate, as a replay's extension does for a fingerprint;
- a candidate RESTORES when it is "same or faster" than the baseline, decided: its ratio to the
  baseline (compare.time_ratio: the replay's interval, round by round, at least MIN_ROUNDS rounds)
  has its upper end at most 1 + `tolerance` (default THRESHOLD, the replay's 10 %): at most that
  much slower, whatever it gains; and its results equal the baseline's (checksums and row counts;
  `judge`). That is the verdicts' "no significant difference" or "improvement", and also a remedy a
  little faster than the baseline (0.91 [0.79, 1.04] on a real server: neither "same", its interval
  leaving 1 - 10 %, nor an improvement, its ratio within it), which the verdicts alone would never
  let restore. A team that accepts more (or a test deciding a planted 20x gap on a loaded machine)
  gives a larger tolerance;
- the extension's looks: a candidate is judged after its `rounds` and again after each extension step,
  and the search stops at the first look that decides it, so each look is one more chance of a false
  "restores" (or "does not restore"). The replay's own extension does not correct its looks (its
  verdicts rest on a ratio beyond the threshold and Benjamini-Hochberg over many comparisons,
  replay/extension.py); the fix search's "restores" rests on one interval's upper end alone, so it
  takes the runs' procedure: the intervals at verdicts.confidence_for(looks) (Bonferroni over the
  looks, experiments/schedule.py `looks`: 5 looks for 10 -> 30 rounds, each interval 99 %), `looks`
  from the search's rounds and max_rounds (`search_looks`), given to `judge` by the oracle. The
  simulated oracle measures the rate of false restores with and without it
  (tests/fixsearch/test_search_looks.py);
- like with like (wrappers.py): a statement-level setting's candidate runs under its own
  `SET STATEMENT` / `SET_VAR` wrapper, so the baseline's and the variant's arms carry a no-op wrapper
  of the same variables (wrappers.py `arm_roles`, `judge_arms`): the wrapper's cost cancels, and is
  measured apart (the variant bare, a fourth arm: `wrapper_cost`, `wrapper_us`);
- it stops at the first that restores unless `try_all`; before a candidate (or more rounds of one)
  that the budget cannot hold: at most `budget.rounds` rounds in all, nothing started once
  `budget.minutes` have passed. A refused candidate costs no round, nor one not measured. An
  extension never takes the rounds the candidates not yet measured need for their first look (a
  budget that lists a candidate tries it); the default rounds budget scales with the candidates
  (`scaled_budget`), so the minutes end a search. "Out of budget" says how many rounds, and at the
  search's pace how many minutes, more would have given every candidate left its first look;
- global remedies (effects.py): with `globalize` (scope "both"), a statement-level remedy that
  restores and is a setting is measured again as a global one (its twin, right after it, within the
  same budget). So is a setting that does not restore but whose plan is evidence (`plan_identity`,
  set by the oracle: with it the variant's plan of every statement is the baseline's, its results
  and work counters equal the baseline's): the global form carries no wrapper at all, and its trial
  says why it was measured. A global candidate (scope "global", or such a twin) that restores its
  fingerprint is then checked on the whole replay by `check` (its side effects). A global remedy is
  never said to restore without a complete check: without one (no `check`, or the check's budget
  ended first) it is "undecided", its reason says why; with one its trial carries the list (empty:
  checked, none).
- the outcome: "restored" (a remedy found), "no remedy found" (every candidate tried, none restores),
  "out of budget" (some not tried: listed), "cancelled"; `remedy` the first that restores (the
  statement-level one under scope "both"), `global_remedy` the first global one that restores.
"""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from upgradelab.execution.schedule import EXTENSION_STEP
from upgradelab.experiments.schedule import looks
from upgradelab.fixsearch.candidates import SOURCES, Candidate
from upgradelab.fixsearch.effects import Checker
from upgradelab.measurement import THRESHOLD, time_ratio
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import MIN_ROUNDS, Rounds, VerdictRead

TrialStatus = Literal["restores", "does not restore", "undecided", "refused", "not measured"]
# "not measured": a statistics remedy with no second instance of the variant to measure it on (second.py)
OutcomeName = Literal["restored", "no remedy found", "out of budget", "cancelled"]


class SearchCancelled(Exception):
    """The oracle was told to stop (a cancel): the search ends with what it measured."""


@dataclass
class Trial:
    """One candidate measured: status (restores, does not restore, undecided: its ratio to the
    baseline not decided in the rounds the budget gave it, refused: the server refused the remedy or
    the statement cannot carry it, `reason` says which), its ratio (candidate time / baseline's, and /
    the variant's as it is; VerdictRead with interval), whether its results equal the baseline's,
    the rounds it took, and `reason` in words; `statements` as rewritten; `clock` the ratios' clock
    (measurement/timing.py pair_clock: "server" or "client")."""

    name: str
    status: TrialStatus
    reason: str
    ratio_to_baseline: VerdictRead | None = None
    ratio_to_variant: VerdictRead | None = None
    variant_to_baseline: VerdictRead | None = None
    results_equal: bool | None = None
    rounds: int = 0
    statements: list[str] = field(default_factory=list)
    clock: str | None = None
    scope: str = "statement"
    side_effects: dict[str, Any] | None = None
    plan_before: list[dict[str, Any]] | None = None
    plan_after: list[dict[str, Any]] | None = None
    plan_error: str | None = None
    apply: str | None = None
    set_global: str | None = None
    # like with like (wrappers.py): what the baseline's and the variant's statements carried, the
    # wrapper's own cost (variant under it / bare, interval) and per statement in microseconds
    wrapper: dict[str, str] | None = None
    wrapper_cost: VerdictRead | None = None
    wrapper_us: float | None = None
    # plan identity (module docstring): why a setting that did not restore was measured as a global one
    plan_identity: str | None = None
    # a schema change on the variant's second instance (views.py, indexes.py): apply, undo, size
    change: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("ratio_to_baseline", "ratio_to_variant", "variant_to_baseline", "wrapper_cost"):
            value = getattr(self, key)
            out[key] = value.model_dump(mode="json") if value is not None else None
        return out


@dataclass(frozen=True)
class Budget:
    """The whole search's: rounds in all, minutes (no measurement started after)."""

    rounds: int
    minutes: float


@dataclass
class Outcome:
    """How the search ended (module docstring), the remedy that restores (None: none), every trial
    in the order made, the candidates not tried, rounds and minutes spent."""

    outcome: OutcomeName
    remedy: str | None
    trials: list[Trial]
    not_tried: list[str]
    rounds: int
    minutes: float
    global_remedy: str | None = None
    more_rounds: int = 0
    more_minutes: float = 0.0

    def said(self) -> str:
        """The outcome in a sentence; "out of budget" says what more would have tried the rest."""
        if self.outcome != "out of budget":
            return self.outcome
        rest = len(self.not_tried)
        return (
            f"out of budget after {self.rounds} rounds and {self.minutes:.1f} min: {rest} candidate"
            f"{'' if rest == 1 else 's'} not tried; about {self.more_rounds} more rounds and "
            f"{self.more_minutes:.1f} more minutes (at this search's pace) would have given each its "
            "first look"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "remedy": self.remedy,
            "global_remedy": self.global_remedy,
            "tried": len(self.trials),
            "not_tried": self.not_tried,
            "rounds": self.rounds,
            "minutes": round(self.minutes, 3),
            "more_rounds": self.more_rounds,
            "more_minutes": round(self.more_minutes, 2),
            "said": self.said(),
        }


def search_looks(rounds: int, max_rounds: int | None = None) -> int:
    """How many times a candidate may be judged: after its `rounds`, then after every EXTENSION_STEP
    up to `max_rounds` (default 3 x rounds, as `search`), experiments/schedule.py `looks`."""
    return looks(rounds, max_rounds if max_rounds is not None else 3 * rounds)


def judge(
    name: str,
    baseline: Rounds,
    variant: Rounds,
    candidate: Rounds,
    results_equal: bool,
    rounds: int,
    tolerance: float = THRESHOLD,
    looks: int = 1,
) -> Trial:
    """A measured candidate's trial from its rounds ({round: [seconds per pass]}, the fingerprint's
    statements summed per pass) on the baseline, the variant as it is and the candidate; `looks`:
    how many times the search may judge it (module docstring), its intervals at
    verdicts.confidence_for(looks)."""
    confidence = verdicts.confidence_for(looks)
    to_base = time_ratio(baseline, candidate, confidence=confidence)
    to_variant = time_ratio(variant, candidate, confidence=confidence)
    variant_gap = time_ratio(baseline, variant, confidence=confidence)
    if not results_equal:
        status: TrialStatus = "does not restore"
        reason = "its results differ from the baseline's"
    elif to_base is None:
        status, reason = "does not restore", "no round measured on both"
    elif to_base.method == "paired rounds" and to_base.rounds >= MIN_ROUNDS and to_base.high <= 1 + tolerance:
        status = "restores"
        reason = (
            f"same or faster than the baseline ({to_base.verdict}): interval [{to_base.low:.3f}, "
            f"{to_base.high:.3f}], at most {tolerance:.0%} slower"
        )
    elif to_base.verdict == "regression" and (tolerance <= THRESHOLD or to_base.low > 1 + tolerance):
        # decided slower: the replay's regression, and beyond the tolerance when that is larger
        status, reason = "does not restore", f"still slower than the baseline: {to_base.reason}"
    else:
        status, reason = "undecided", f"{to_base.verdict} against the baseline: {to_base.reason}"
    return Trial(name, status, reason, to_base, to_variant, variant_gap, results_equal, rounds)


Oracle = Callable[[Candidate, int], Trial]


def scaled_budget(candidates: int, rounds: int, max_rounds: int | None = None) -> int:
    """The default rounds budget: every candidate its first look and its extensions (`max_rounds`,
    default 3 x `rounds`), and as much again for the global twins a restoring or plan-identical
    setting gets, so the minutes budget is what ends a search, not the rounds."""
    most = max_rounds if max_rounds is not None else 3 * rounds
    return max(rounds, 2 * candidates * most)


def ordered(candidates: list[Candidate]) -> list[Candidate]:
    """By evidence (candidates.SOURCES), stable within a source."""
    return sorted(candidates, key=lambda c: SOURCES.index(c.source))


def search(
    candidates: list[Candidate],
    oracle: Oracle,
    *,
    rounds: int,
    budget: Budget,
    try_all: bool = False,
    max_rounds: int | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_trial: Callable[[list[Trial], int], None] = lambda trials, rounds: None,
    globalize: Callable[[Candidate], Candidate | None] | None = None,
    check: Checker | None = None,
) -> Outcome:
    """The search (module docstring). oracle(candidate, rounds): the candidate measured `rounds` more
    rounds (a second call for one candidate adds to its first), its Trial so far; it raises
    SearchCancelled to stop. max_rounds: a candidate's rounds at most (default 3 x `rounds`).
    on_trial(trials, rounds spent): after every measurement (progress). globalize(candidate): its
    global twin or None (effects.global_twin); check(global candidate): its side effects."""
    started = clock()
    limit = max_rounds if max_rounds is not None else 3 * rounds
    trials: list[Trial] = []
    spent = 0
    queue = ordered(candidates)

    def minutes() -> float:
        return (clock() - started) / 60

    def affordable(more: int) -> bool:
        return spent + more <= budget.rounds and minutes() < budget.minutes

    def extendable(after: int) -> bool:
        # an extension never takes the rounds a candidate not yet measured needs for its first look
        return affordable(EXTENSION_STEP + rounds * max(len(queue) - after, 0))

    def end(outcome: OutcomeName, remaining: list[Candidate]) -> Outcome:
        restoring = next((t.name for t in trials if t.status == "restores"), None)
        restoring_global = next(
            (t.name for t in trials if t.status == "restores" and t.scope == "global"), None
        )
        name: OutcomeName = "restored" if restoring and outcome != "cancelled" else outcome
        more = rounds * len(remaining) if outcome == "out of budget" else 0
        pace = minutes() / spent if spent else 0.0  # minutes per round so far
        return Outcome(name, restoring, trials, [c.name for c in remaining], spent, minutes(),
                       restoring_global, more, more * pace)  # fmt: skip

    def verify_global(candidate: Candidate, trial: Trial) -> None:
        # a global remedy restores only with its side effects checked on the whole replay
        if trial.status != "restores":
            return
        if check is None:
            trial.status = "undecided"
            trial.reason = f"restores its fingerprint, but its side effects were not checked: {trial.reason}"
            return
        effects = check(candidate)
        trial.side_effects = effects.as_dict()
        if effects.complete:
            trial.reason = f"{trial.reason}; {effects.said()}"
        else:
            trial.status = "undecided"
            trial.reason = f"restores its fingerprint, but {effects.said()}: not offered as a remedy"

    def measure(candidate: Candidate, after: int) -> Trial:
        nonlocal spent
        trial = oracle(candidate, rounds)
        spent += trial.rounds
        while trial.status == "undecided" and trial.rounds < limit and extendable(after):
            before = trial.rounds
            trial = oracle(candidate, min(EXTENSION_STEP, limit - trial.rounds))
            spent += trial.rounds - before
        trial.scope, trial.apply = candidate.scope, candidate.apply
        trial.set_global = candidate.extra.get("set_global")
        if candidate.scope == "global":
            verify_global(candidate, trial)
        return trial

    for position, candidate in enumerate(queue):
        if not affordable(rounds):
            return end("out of budget", queue[position:])
        try:
            trial = measure(candidate, position + 1)
            trials.append(trial)
            on_trial(trials, spent)
            wanted = trial.status == "restores" or trial.plan_identity is not None
            twin = globalize(candidate) if globalize and wanted else None
            if twin is not None:
                if not affordable(rounds):
                    return end("out of budget", [twin, *queue[position + 1 :]])
                measured = measure(twin, position + 1)
                if trial.status != "restores" and trial.plan_identity:
                    measured.plan_identity = trial.plan_identity
                    measured.reason = f"measured as a global remedy: {trial.plan_identity}; {measured.reason}"
                trials.append(measured)
                on_trial(trials, spent)
        except SearchCancelled:  # the candidate measured already is not listed again (its twin was cut)
            done = any(t.name == candidate.name for t in trials)
            return end("cancelled", queue[position + 1 :] if done else queue[position:])
        restored = trial.status == "restores" or trials[-1].status == "restores"  # or its global twin
        if restored and not try_all:
            return end("restored", queue[position + 1 :])
    return end("no remedy found", [])
