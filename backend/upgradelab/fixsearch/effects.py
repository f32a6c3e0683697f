"""Global remedies and their side effects (issue 34, Deliver 4), apart from any server.

A candidate that is a setting (an optimizer_switch flag or an optimizer variable, set back or a known
lever; not an index hint, which names one statement's tables) can also be applied to the whole
server: an option-file line in the variant's [mysqld] group, or SET GLOBAL on its instance. Its
`global_twin` is that remedy: scope "global", what to apply the option line (and the SET GLOBAL in
`extra`). A global remedy changes every statement the server runs, so it is re-verified on the whole
replay: every other fingerprint of the replay (its sampled statements), timed on the variant as it is
and with the setting, interleaved round by round (the replay's machinery, measure.py), its ratio
(with the setting / without) decided by the replay's verdict at its threshold (compare.time_ratio),
and its results compared (compare.diff). A fingerprint the setting makes slower (the verdict
"regression") or whose results it changes is a SIDE EFFECT, listed with its ratio and interval.

The check's cost is bounded: `rounds` rounds per fingerprint (default MIN_ROUNDS, the fewest a
verdict rests on; no extension), and no fingerprint started once `minutes` have passed. With few
rounds a small slowdown stays "inconclusive" (not listed as a side effect but shown in `checked`
with its verdict): the check finds large side effects, which are the ones that hurt (gh-ost#1236's
full scan). A check that the budget cut short is not complete, and a global remedy whose check is not
complete is never said to restore (search.py).
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.rewrite import literal
from upgradelab.measurement import time_ratio
from upgradelab.results.stats.verdicts import Rounds, VerdictRead

Scope = Literal["statement", "both", "global"]
SCOPES: tuple[Scope, ...] = ("statement", "both", "global")
# "statement": statement-level remedies only; "both" (default): statement-level, and a restoring one
# that is a setting re-verified as a global remedy; "global": the settings tried as global remedies only


def option_line(name: str, value: str) -> str:
    """The [mysqld] option-file line for a setting (`optimizer_switch='semijoin=on'`: an option file
    takes a partial optimizer_switch, the flags it names changed, the others left at their defaults)."""
    return f"{name}={literal(value)}"


def set_global(settings: dict[str, str]) -> str:
    """`SET GLOBAL a=1, b='x'` (new connections start with it; a restart forgets it)."""
    return "SET GLOBAL " + ", ".join(f"{name}={literal(value)}" for name, value in settings.items())


def global_twin(candidate: Candidate) -> Candidate | None:
    """The candidate as a global remedy (module docstring); None for one that is not a setting (an
    index hint) or is global already."""
    if candidate.scope != "statement" or not candidate.settings or candidate.indexes:
        return None
    lines = [option_line(name, value) for name, value in candidate.settings.items()]
    return Candidate(
        f"{candidate.name} (global)",
        candidate.source,
        f"{candidate.note}; as a global setting",
        dict(candidate.settings),
        "\n".join(lines),
        scope="global",
        baseline=candidate.baseline,
        variant=candidate.variant,
        extra={"set_global": set_global(candidate.settings), "option_lines": lines},
    )


@dataclass
class FingerprintEffect:
    """One other fingerprint with the global setting against the variant as it is: its ratio (with /
    without, VerdictRead decided at the replay's THRESHOLD; None: no round measured on both), whether
    its results equal, the rounds it took, and `error` when its statements could not be run."""

    fingerprint_id: str
    fingerprint: str
    ratio: VerdictRead | None
    results_equal: bool
    rounds: int
    error: str | None = None

    @property
    def is_side_effect(self) -> bool:
        """Made slower (decided: the verdict "regression"), its results changed (an error or a timeout
        included: compare.diff), or not measured with the setting where it was without (`error`)."""
        slower = self.ratio is not None and self.ratio.verdict == "regression"
        return not self.results_equal or slower or self.error is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "fingerprint_id": self.fingerprint_id,
            "fingerprint": self.fingerprint,
            "ratio": self.ratio.model_dump(mode="json") if self.ratio is not None else None,
            "verdict": self.ratio.verdict if self.ratio is not None else None,
            "results_equal": self.results_equal,
            "rounds": self.rounds,
            "error": self.error,
            "side_effect": self.is_side_effect,
        }


def judge_effect(fingerprint_id: str, fingerprint: str, as_is: Rounds, remedied: Rounds,
                 results_equal: bool, rounds: int) -> FingerprintEffect:  # fmt: skip
    """A fingerprint's effect from its rounds ({round: [seconds per pass]}) without and with the setting;
    rounds measured without it and none with it (its statements timed out or failed with the
    setting: the worst side effect, a query that no longer ends) is said in `error`."""
    lost = "no round measured with the setting (timed out or failed)" if as_is and not remedied else None
    ratio = time_ratio(as_is, remedied)
    return FingerprintEffect(fingerprint_id, fingerprint, ratio, results_equal, rounds, lost)


@dataclass
class SideEffects:
    """A global remedy's check on the whole replay: every fingerprint checked (in the replay's
    order), those the budget left unchecked, rounds per fingerprint, rounds and minutes spent."""

    checked: list[FingerprintEffect]
    not_checked: list[str]
    rounds_per_fingerprint: int
    rounds: int = 0
    minutes: float = 0.0
    budget_minutes: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.not_checked

    @property
    def slower(self) -> list[FingerprintEffect]:
        return [effect for effect in self.checked if effect.is_side_effect]

    def said(self) -> str:
        """One sentence: what was checked and what it found."""
        total = len(self.checked) + len(self.not_checked)
        if not self.complete:
            return (
                f"side effects checked on {len(self.checked)} of {total} other fingerprints before the "
                f"check's budget ({self.budget_minutes:g} min) ended"
            )
        each = f"{self.rounds_per_fingerprint} rounds each"
        if not self.slower:
            return f"no side effect: checked on all {total} other fingerprints of the replay ({each})"
        names = ", ".join(e.fingerprint_id for e in self.slower)
        found = f"{len(self.slower)} side effects on the {total} other fingerprints of the replay"
        return f"{found} ({each}): {names}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "said": self.said(),
            "side_effects": [e.as_dict() for e in self.slower],
            "checked": [e.as_dict() for e in self.checked],
            "not_checked": list(self.not_checked),
            "rounds_per_fingerprint": self.rounds_per_fingerprint,
            "rounds": self.rounds,
            "minutes": round(self.minutes, 3),
            "budget_minutes": self.budget_minutes,
        }


Checker = Callable[[Candidate], SideEffects]


def check_all(
    fingerprints: list[tuple[str, str]],
    measure: Callable[[str], FingerprintEffect],
    *,
    rounds: int,
    minutes: float,
    clock: Callable[[], float] = time.monotonic,
) -> SideEffects:
    """Each fingerprint ((id, text), the replay's order) measured by `measure(id)`, none started once
    `minutes` have passed (the rest: not_checked)."""
    started = clock()
    effects = SideEffects([], [], rounds, budget_minutes=minutes)
    for position, (fingerprint_id, _) in enumerate(fingerprints):
        if (clock() - started) / 60 >= minutes:
            effects.not_checked = [f for f, _ in fingerprints[position:]]
            break
        effect = measure(fingerprint_id)
        effects.checked.append(effect)
        effects.rounds += effect.rounds
    effects.minutes = (clock() - started) / 60
    return effects
