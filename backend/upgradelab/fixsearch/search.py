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
- it stops at the first that restores unless `try_all`; before a candidate (or more rounds of one)
  that the budget cannot hold: at most `budget.rounds` rounds in all, nothing started once
  `budget.minutes` have passed. A refused candidate costs no round, nor one not measured.
- global remedies (effects.py): with `globalize` (scope "both"), a statement-level remedy that
  restores and is a setting is measured again as a global one (its twin, right after it, within the
  same budget); a global candidate (scope "global", or such a twin) that restores its fingerprint is
  then checked on the whole replay by `check` (its side effects). A global remedy is never said to
  restore without a complete check: without one (no `check`, or the check's budget ended first) it
  is "undecided", its reason says why; with one its trial carries the list (empty: checked, none).
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
from upgradelab.replay.compare import THRESHOLD
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
    (replay/timing.py pair_clock: "server" or "client")."""

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

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("ratio_to_baseline", "ratio_to_variant", "variant_to_baseline"):
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "remedy": self.remedy,
            "global_remedy": self.global_remedy,
            "tried": len(self.trials),
            "not_tried": self.not_tried,
            "rounds": self.rounds,
            "minutes": round(self.minutes, 3),
        }


def search_looks(rounds: int, max_rounds: int | None = None) -> int:
    """How many times a candidate may be judged: after its `rounds`, then after every EXTENSION_STEP
    up to `max_rounds` (default 3 x rounds, as `search`), experiments/schedule.py `looks`."""
    return looks(rounds, max_rounds if max_rounds is not None else 3 * rounds)


def ratio(baseline: Rounds, other: Rounds, confidence: float = verdicts.CONFIDENCE) -> VerdictRead | None:
    """other / baseline paired by round, its interval at `confidence`, decided at the replay's
    THRESHOLD (compare.time_ratio with a confidence)."""
    found = verdicts.interval(baseline, other, paired=True, confidence=confidence)
    return verdicts.read(found, THRESHOLD)


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
    to_base = ratio(baseline, candidate, confidence)
    to_variant = ratio(variant, candidate, confidence)
    variant_gap = ratio(baseline, variant, confidence)
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

    def end(outcome: OutcomeName, remaining: list[Candidate]) -> Outcome:
        restoring = next((t.name for t in trials if t.status == "restores"), None)
        restoring_global = next(
            (t.name for t in trials if t.status == "restores" and t.scope == "global"), None
        )
        name: OutcomeName = "restored" if restoring and outcome != "cancelled" else outcome
        return Outcome(name, restoring, trials, [c.name for c in remaining], spent, minutes(),
                       restoring_global)  # fmt: skip

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

    def measure(candidate: Candidate) -> Trial:
        nonlocal spent
        trial = oracle(candidate, rounds)
        spent += trial.rounds
        while trial.status == "undecided" and trial.rounds < limit and affordable(EXTENSION_STEP):
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
            trial = measure(candidate)
            trials.append(trial)
            on_trial(trials, spent)
            twin = globalize(candidate) if globalize and trial.status == "restores" else None
            if twin is not None:
                if not affordable(rounds):
                    return end("out of budget", [twin, *queue[position + 1 :]])
                trials.append(measure(twin))
                on_trial(trials, spent)
        except SearchCancelled:  # the candidate measured already is not listed again (its twin was cut)
            measured = bool(trials) and trials[-1].name == candidate.name
            return end("cancelled", queue[position + 1 :] if measured else queue[position:])
        if trial.status == "restores" and not try_all:
            return end("restored", queue[position + 1 :])
    return end("no remedy found", [])
