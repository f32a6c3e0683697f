"""The groups table of a replay report: the groups a fingerprint falls in on a variant against the
baseline (`Group`), in the order the report lists them (`GROUPS`, the one list; replay/findings.py gives
the order a fingerprint is tried against them), and the same as an OpenAPI enum (component
`ReplayGroup`, GET /api/replays/groups), so the UI reads the order from the generated client instead of
copying it."""

import enum
from typing import Literal

from pydantic import BaseModel

Group = Literal[
    "breaks",
    "slower, plan changed",
    "slower (timed out)",
    "timed out",
    "slower",
    "slower: per-statement cost only",
    "plan changed",
    "plan changes",  # reports stored before per-variant groups
    "faster, plan changed",
    "faster",
    "faster: per-statement cost only",
    "same",
    "undecided",
    "refused",
]
# In the order the report lists them; "refused" (writes a read-only replay did not run) comes apart,
# last: not a finding about the variants. compare.py gives the order a fingerprint falls into them.
# "...: per-statement cost only": slower (faster) by the variant's per-statement cost, no change of its
# own net of it (measurement/statement_cost.py cost_only), after every group that changed for a reason of
# its own (a fingerprint's overall group is its variants' first: a plan change on one variant names
# it before the cost).
GROUPS: tuple[Group, ...] = (
    "breaks",
    "slower, plan changed",
    "slower (timed out)",
    "timed out",
    "slower",
    "plan changed",
    "faster, plan changed",
    "faster",
    "slower: per-statement cost only",
    "faster: per-statement cost only",
    "same",
    "undecided",
    "refused",
)

# Members named by their values ("slower, plan changed"): the values are what the report and the UI use.
ReplayGroup = enum.StrEnum("ReplayGroup", [(group, group) for group in GROUPS])  # type: ignore[misc]


class ReplayGroups(BaseModel):
    """GET /api/replays/groups: a replay report's groups in its order ("refused", writes a read-only
    replay did not run, comes apart, last)."""

    groups: list[ReplayGroup] = list(ReplayGroup)
