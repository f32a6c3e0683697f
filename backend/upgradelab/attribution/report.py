"""What an attribution found, from its search (attribution/search.py): pure, stored as result JSON.

Each member's own contribution is the share of the found set minus the share of the set without it
(what is lost when only it is left at the variant's value). Shares come from different step runs, so
a contribution's interval adds the two intervals' half-widths in quadrature (independent runs, normal
approximation); the share of the empty set is exactly 0. When the contributions do not add up to the
set's share (by more than INTERACTION_TOLERANCE of the gap), the parts interact and the difference is
reported as the interaction. `also`: candidates outside the set that moved the time on their own,
decided beside the set (search.py `beside`: on ddmin's own measurement of them alone, "screening", or on
fresh measurements, "confirmation" / "group"; false discoveries held to search.ALPHA in all): they overlap
with the set (the set closes the gap without them), and are named, never hidden; each says how it was
decided, on which interval, in how many runs. `beside`: every test of that phase, decided or not. The
unexplained share is what the found set leaves (1 - its share); with no closing set, what all candidates
together leave: never a cause that was not measured.
"""

import math
from collections.abc import Mapping
from typing import Any

from upgradelab.attribution.search import Beside, Outcome, Search, screening

INTERACTION_TOLERANCE = 0.10


def _half(outcome: Outcome) -> float:
    return (outcome.high - outcome.low) / 2


def _share(outcome: Outcome | None) -> dict[str, float] | None:
    if outcome is None:
        return None
    return {"share": outcome.share, "low": outcome.low, "high": outcome.high}


def _beside(test: Beside) -> dict[str, Any]:
    return {
        "subset": list(test.subset),
        "stage": test.stage,
        **(_share(test.outcome) or {"share": None, "low": None, "high": None}),
        "runs": test.runs,
        "p": test.p,
        "level": test.level,
        "decided": test.decided,
        "screening": _share(test.screening),
    }


def build(
    found: Search, candidates: Mapping[str, Mapping[str, Any]], target_share: float, runs: int, minutes: float
) -> dict[str, Any]:
    """The result: outcome ("explained", "unexplained", "out of budget", "cannot be tested"), the set
    and its share, `also` (candidates that matter alone but overlap with the set: name, `alone` the
    share [95 % interval] decided on, `decided_by` its stage, `runs`, one-sided `p` and the `level` it met,
    `screening` ddmin's measurement when confirmed on fresh ones), `beside` (every test beside the set),
    members with contribution [low, high] (fractions of the log-ratio gap), interaction, unexplained
    share, the lines that reproduce the baseline's behaviour, the runs and minutes spent."""
    all_share = found.outcome(found.candidates) if found.candidates else None
    base: dict[str, Any] = {
        "target_share": target_share,
        "complete": found.complete,
        "runs": runs,
        "minutes": round(minutes, 2),
        "all_share": _share(all_share),
        "tested": [
            {
                "subset": list(subset),
                **(_share(outcome) or {}),
                "closes": outcome.closes,
                "error": outcome.error,
            }
            for subset, outcome in found.tested.items()
        ],
    }
    if found.found is None:
        measured = all_share is not None and all_share.error is None
        # at most the whole gap: all candidates together moving the time away from the baseline's
        # (a negative share) leave the whole gap unexplained, not more
        left = min(1.0, max(0.0, 1 - all_share.share)) if all_share is not None and measured else None
        outcome = "unexplained" if found.complete and measured else "out of budget"
        if all_share is not None and all_share.error is not None:
            outcome = "cannot be tested"  # the server refused the baseline's values for all of them
        return {
            **base,
            "outcome": outcome,
            "set": [],
            "set_share": None,
            "members": [],
            "interaction": None,
            "unexplained": left,
            "lines": [],
            "also": [],
            "beside": [],
            "beside_complete": False,
        }
    chosen = list(found.found)
    whole = found.outcome(chosen)
    assert whole is not None  # found sets are tested sets
    members = []
    for name in chosen:
        without = found.outcome([n for n in chosen if n != name])
        alone = found.outcome([name])
        candidate = candidates.get(name, {})
        member: dict[str, Any] = {
            "name": name,
            "known": candidate.get("known"),
            "baseline": candidate.get("baseline"),
            "variant": candidate.get("variant"),
            "lines": candidate.get("lines", []),
            "alone": _share(alone),
            "contribution": None,
            "low": None,
            "high": None,
        }
        if without is not None:
            half = math.hypot(_half(whole), _half(without))
            point = whole.share - without.share
            member.update(contribution=point, low=point - half, high=point + half)
        members.append(member)
    # without the phase beside the set (a search run without it): ddmin's singletons, screened
    tests = found.beside if found.beside is not None else screening(found)
    also = []
    for test in tests:
        if test.decided and len(test.subset) == 1 and test.outcome is not None:
            name = test.subset[0]
            candidate = candidates.get(name, {})
            also.append(
                {
                    "name": name,
                    "alone": _share(test.outcome),
                    "lines": candidate.get("lines", []),
                    "known": candidate.get("known"),
                    "decided_by": test.stage,
                    "runs": test.runs,
                    "p": test.p,
                    "level": test.level,
                    "screening": _share(test.screening),
                }
            )
    known = [m["contribution"] for m in members if m["contribution"] is not None]
    interaction = whole.share - sum(known) if len(known) == len(members) else None
    return {
        **base,
        "outcome": "explained" if found.complete else "out of budget",
        "set": chosen,
        "set_share": _share(whole),
        "members": members,
        "interaction": interaction,
        "interacts": interaction is not None and abs(interaction) > INTERACTION_TOLERANCE,
        "unexplained": max(0.0, 1 - whole.share),
        "lines": [line for m in members for line in m["lines"]],
        "also": also,
        "beside": [_beside(test) for test in tests],
        "beside_complete": found.beside_complete if found.beside is not None else False,
    }
