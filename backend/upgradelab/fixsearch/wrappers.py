"""Like with like for a statement-level setting (issue 46, Deliver 3): the candidate runs as
`SET STATEMENT x=v FOR <statement>` (MariaDB) or `SELECT /*+ SET_VAR(x=v) */ ...` (MySQL), and that
wrapper costs microseconds of its own (MariaDB 11.8 sets and restores the variable around the
statement; seen at several us on a ~20 us statement, more than the 10 % tolerance). Timed against the
bare statement on the baseline, a remedy that gives back the baseline's exact plan was "still slower".
So the baseline's and the variant's arms carry the same wrapper, a NO-OP: the same variables at the
values that side already has (`SET STATEMENT optimizer_switch='derived_merge=on' FOR ...` on a
baseline where derived_merge is on), and the wrapper's cost cancels in both ratios. The wrapper's own
cost is measured apart, as a fourth arm: the variant's bare statement against its no-op wrapper (the
trial's `wrapper_cost`, a ratio with its interval, and `wrapper_us` per statement).

What a side "already has" is its replay connection's SHOW SESSION VARIABLES (measure.py Side): an
optimizer_switch wrapper names the candidate's flags only, each at the side's value. A side without
one of the variables (the baseline's older version lacks a variable the variant has) cannot set it:
that variable is replaced by STAND_IN at the side's own value (a wrapper of the same shape: one
more assignment) and the note says so. Global remedies, index and view candidates and the
statistics carry no statement wrapper: their arms are bare, as before.
"""

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from upgradelab.fixsearch.candidates import Candidate, switch_flags
from upgradelab.fixsearch.rewrite import remedy_text
from upgradelab.fixsearch.search import Trial, judge
from upgradelab.measurement import THRESHOLD, time_ratio
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import Rounds

# a variable every MySQL and MariaDB server has, set to its own value where a side lacks the candidate's
STAND_IN = "optimizer_search_depth"


@dataclass(frozen=True)
class Wrapper:
    """The no-op wrapper of each side: `baseline` and `variant` the settings (each side's own values of
    the candidate's variables), `note` what the report says (the stand-ins, if any)."""

    baseline: dict[str, str]
    variant: dict[str, str]
    note: str

    def texts(self, flavor: str) -> dict[str, str]:
        """What each side's statements carry, as the report shows it."""
        return {"baseline": remedy_text(flavor, self.baseline), "variant": remedy_text(flavor, self.variant)}


def own_values(settings: dict[str, str], own: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """`settings`' variables at the values `own` ({lower-case name: value}, SHOW SESSION VARIABLES)
    has: an optimizer_switch value naming the same flags at own's states. Returns (the no-op
    settings, the variables or flags own lacks); a lacking one is replaced by STAND_IN."""
    out: dict[str, str] = {}
    lacking: list[str] = []
    for name, value in settings.items():
        if name.lower() == "optimizer_switch":
            flags = switch_flags(own.get("optimizer_switch"))
            wanted = list(switch_flags(value))
            have = [f for f in wanted if f in flags]
            lacking += [f"optimizer_switch flag {f}" for f in wanted if f not in flags]
            if have:
                out[name] = ",".join(f"{f}={flags[f]}" for f in have)
        elif name.lower() in own:
            out[name] = own[name.lower()]
        else:
            lacking.append(name)
    if lacking and STAND_IN not in out and STAND_IN in own:
        out[STAND_IN] = own[STAND_IN]
    return out, lacking


def wrapper_for(candidate: Candidate, baseline: dict[str, str], variant: dict[str, str]) -> Wrapper | None:
    """The no-op wrapper a candidate's baseline and variant arms carry (module docstring), or None for
    one whose remedy is no statement-level setting (an index or join-order hint, a global remedy,
    a schema change), or when a side has none of the variables nor the stand-in."""
    if candidate.scope != "statement" or not candidate.settings:
        return None
    on_base, base_lacks = own_values(candidate.settings, baseline)
    on_var, var_lacks = own_values(candidate.settings, variant)
    if not on_base or not on_var:
        return None
    notes = [
        f"the {side} has no {', '.join(lacking)}: its wrapper sets {STAND_IN} to its own value instead"
        for side, lacking in (("baseline", base_lacks), ("variant", var_lacks))
        if lacking
    ]
    said = (
        "the baseline and the variant ran under a no-op wrapper of the same variables at their own "
        "values, so the wrapper's own cost is in every arm"
    )
    return Wrapper(on_base, on_var, "; ".join([said, *notes]))


ArmSide = Literal["baseline", "variant", "candidate"]


@dataclass(frozen=True)
class ArmRole:
    """One arm of a candidate's rounds: whose statements (the baseline's server, the variant as it is,
    the candidate on the variant) and whether they carry the no-op wrapper (wrappers.py)."""

    side: ArmSide
    wrapped: bool


def arm_roles(wrapped: bool) -> list[ArmRole]:
    """The arms a candidate is timed in, in this order (the oracle's and `judge_arms`'): the
    baseline, the variant as it is, the candidate; with a statement-level setting (`wrapped`), the
    baseline and the variant under the no-op wrapper, and the variant bare last (the wrapper's own
    cost, shown apart)."""
    if not wrapped:
        return [ArmRole("baseline", False), ArmRole("variant", False), ArmRole("candidate", False)]
    return [ArmRole("baseline", True), ArmRole("variant", True), ArmRole("candidate", True),
            ArmRole("variant", False)]  # fmt: skip


def _per_statement_us(wrapped: Rounds, bare: Rounds, statements: int) -> float | None:
    """The median over rounds of (wrapped - bare) per pass, per statement, in microseconds."""
    differences = []
    for number in sorted(set(wrapped) & set(bare)):
        over, under = list(wrapped[number]), list(bare[number])
        if over and under:
            differences.append(sum(over) / len(over) - sum(under) / len(under))
    if not differences:
        return None
    median = statistics.median(differences)
    return median / max(statements, 1) * 1e6


def judge_arms(
    name: str,
    roles: list[ArmRole],
    measured: Sequence[Rounds],
    results_equal: bool,
    rounds: int,
    tolerance: float = THRESHOLD,
    looks: int = 1,
    statements: int = 1,
) -> Trial:
    """`judge` on the arms of `arm_roles` ({round: [seconds per pass]} each, in that order): the
    candidate against the baseline and the variant as they ran (under the same wrapper when the roles
    carry one, so its cost cancels); the wrapper's own cost (the variant under it / bare) in
    `wrapper_cost`, per statement in `wrapper_us`, and said in the reason."""
    trial = judge(name, measured[0], measured[1], measured[2], results_equal, rounds, tolerance, looks)
    if len(roles) > 3 and roles[1].wrapped and not roles[3].wrapped:
        cost = time_ratio(measured[3], measured[1], confidence=verdicts.confidence_for(looks))
        trial.wrapper_cost = cost
        trial.wrapper_us = _per_statement_us(measured[1], measured[3], statements)
        if cost is not None:
            us = f", {trial.wrapper_us:+.1f} us per statement" if trial.wrapper_us is not None else ""
            trial.reason = (
                f"{trial.reason}; like with like: every arm carried the wrapper, whose own cost "
                f"{cost.ratio:.3f} [{cost.low:.3f}, {cost.high:.3f}]{us} cancels"
            )
    return trial
