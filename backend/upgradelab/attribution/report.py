"""What an attribution found, from its search (attribution/search.py): pure, stored as result JSON.

Each member's own contribution is the share of the found set minus the share of the set without it
(what is lost when only it is left at the variant's value). Shares come from different step runs, so
a contribution's interval adds the two intervals' half-widths in quadrature (independent runs, normal
approximation); the share of the empty set is exactly 0. When the contributions do not add up to the
set's share (by more than INTERACTION_TOLERANCE of the gap), the parts interact and the difference is
reported as the interaction. `also`: candidates outside the set that were measured alone and moved the
time on their own (one-sided 95 % bound above 0): they overlap with the set (the set closes the gap without
them), and are named, never hidden. The unexplained share is what the found set leaves (1 - its share); with
no closing set, what all candidates together leave: never a cause that was not measured.
"""

import math
from collections.abc import Mapping
from typing import Any

from scipy import stats

from upgradelab.attribution.search import Outcome, Search

INTERACTION_TOLERANCE = 0.10


def _half(outcome: Outcome) -> float:
    return (outcome.high - outcome.low) / 2


def _above_zero(outcome: Outcome) -> bool:
    """Whether reverting the subset moved the time toward the baseline's, one-sided at 95 %: the
    direction is the question asked in advance, so the 95 % two-sided interval's half-width is scaled
    to the one-sided 95 % bound (z 0.95 / z 0.975, scipy.stats.norm)."""
    scale = float(stats.norm.ppf(0.95) / stats.norm.ppf(0.975))
    return outcome.share - (outcome.share - outcome.low) * scale > 0


def _share(outcome: Outcome | None) -> dict[str, float] | None:
    if outcome is None:
        return None
    return {"share": outcome.share, "low": outcome.low, "high": outcome.high}


def build(
    found: Search, candidates: Mapping[str, Mapping[str, Any]], target_share: float, runs: int, minutes: float
) -> dict[str, Any]:
    """The result: outcome ("explained", "unexplained", "out of budget", "cannot be tested"), the set
    and its share, `also` (candidates that matter alone but overlap with the set),
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
    also = []
    for name in found.candidates:
        alone = found.outcome([name])
        if name not in chosen and alone is not None and alone.error is None and _above_zero(alone):
            candidate = candidates.get(name, {})
            also.append({"name": name, "alone": _share(alone), "lines": candidate.get("lines", []),
                         "known": candidate.get("known")})  # fmt: skip
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
    }
