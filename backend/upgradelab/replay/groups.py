"""The report's groups as an OpenAPI enum (component `ReplayGroup`, GET /api/replays/groups), in the
report's order, so the UI reads the order from the generated client instead of copying it. Built from
replay/schemas.py GROUPS, the one list."""

import enum

from pydantic import BaseModel

from upgradelab.replay.schemas import GROUPS

# Members named by their values ("slower, plan changed"): the values are what the report and the UI use.
ReplayGroup = enum.StrEnum("ReplayGroup", [(group, group) for group in GROUPS])  # type: ignore[misc]


class ReplayGroups(BaseModel):
    """GET /api/replays/groups: a replay report's groups in its order ("refused", writes a read-only
    replay did not run, comes apart, last)."""

    groups: list[ReplayGroup] = list(ReplayGroup)
