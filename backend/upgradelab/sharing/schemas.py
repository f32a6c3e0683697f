"""Share link API shapes."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from upgradelab.request_model import RequestModel
from upgradelab.results.views.comparison_schemas import ComparisonQuery
from upgradelab.users.tokens import ShownOnce


class ShareCreate(RequestModel):
    """POST /api/shares: a run (run_id), a comparison (comparison) or a replay run (replay_id)."""

    kind: Literal["run", "comparison", "replay"]
    run_id: int | None = None
    comparison: ComparisonQuery | None = None
    replay_id: int | None = None

    @model_validator(mode="after")
    def _one_subject(self) -> "ShareCreate":
        if self.kind == "run" and self.run_id is None:
            raise ValueError("run_id is required for a run share")
        if self.kind == "comparison" and self.comparison is None:
            raise ValueError("comparison is required for a comparison share")
        if self.kind == "replay" and self.replay_id is None:
            raise ValueError("replay_id is required for a replay share")
        return self


class ShareRead(BaseModel):
    """A share link of any kind (sharing/models.py JobShare: kind, its job_id or its comparison);
    `token` and `path` (the UI address, /share/<token>, that opens without signing in) only in the
    answer that made it: the database keeps the token's sha256 alone. run_id / replay_id: job_id
    again for a run's / a replay's link."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    token: ShownOnce = None
    kind: str
    job_id: int | None = None
    run_id: int | None
    comparison: ComparisonQuery | None
    replay_id: int | None = None
    created_at: datetime
    revoked_at: datetime | None
    path: str | None = None
