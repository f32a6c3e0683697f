"""A fix search: for one fingerprint of a replay that is slower on a variant, statement-level remedies
tried on the variant's server, each measured against the baseline and the variant as it is, until one
restores the baseline's time with equal results (docs/architecture.md, "Fix searches").

Executed by fixsearch/runner.py on two server instances of its own (the replay's baseline and the
variant, the replay's dataset loaded); its lease and heartbeat go through execution/ like a replay's
(fixsearch/jobs.py).
"""

import json
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.fixsearch.candidates import SOURCES, Source
from upgradelab.fixsearch.schemas import FixCandidateStored, FixSearchProgress, FixSearchResult, FixTrialRead
from upgradelab.measurement import ReplayVariantSpec, SourceStatement
from upgradelab.sharing.models import live_share, unshared_when_made
from upgradelab.users.models import User

# the kind a fix search starts from (its replay_id's): its measured workload is read through the
# measurement library (measurement/workload.py measured_workload), never from the replay's package
SOURCE_KIND = "replay"


@unshared_when_made
class FixSearch(Base):
    """Row of `fix_search`.

    replay_id / fingerprint_id / variant: what is fixed (the baseline is the replay's first variant,
    `baseline`); `variants`: the two replay variant specs as stored in the replay ([baseline,
    variant], replay/schemas.py ReplayVariantSpec JSON), so the search and its reaper need no replay
    row. statements: the fingerprint's sampled statements (measurement/sources.py SourceStatement each).
    rounds: rounds per candidate; passes: passes per round; budget_rounds / budget_minutes: the
    whole search's (budget_scaled: no rounds budget was given, budget_rounds is the one scaled to the
    candidates, 0 until they are built); try_all: measure every candidate (else stop at the first
    that restores).
    candidates: fixsearch/candidates.py Candidates in the order tried (built at the search's
    start, from both servers' variables), schemas.FixCandidateStored each; tried: fixsearch/search.py
    Trials (a global one with its side effects on the whole replay: effects.py), schemas.FixTrialRead
    each; scope, side_rounds, side_minutes: which
    remedies and the side-effect check's budget (effects.py); sources: the candidate sources tried
    (candidates.SOURCES, the others left out: evidence.py `only`); result:
    fixsearch/search.py Outcome as schemas.FixSearchResult; progress: schemas.FixSearchProgress (phase,
    tried, rounds_done, minutes, message); every JSON column typed (db.ModelJSON).
    """

    __tablename__ = "fix_search"

    id: Mapped[int] = mapped_column(primary_key=True)
    # a fix search belongs to its replay: deleted with it
    replay_id: Mapped[int] = mapped_column(ForeignKey("replay_run.id", ondelete="CASCADE"), index=True)
    fingerprint_id: Mapped[str] = mapped_column(String(64))
    fingerprint: Mapped[str] = mapped_column(Text, default="")
    variant: Mapped[str] = mapped_column(String(200))
    baseline: Mapped[str] = mapped_column(String(200))
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued, index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    variants: Mapped[list[ReplayVariantSpec]] = mapped_column(
        ModelJSON(list[ReplayVariantSpec]), default=list
    )
    statements: Mapped[list[SourceStatement]] = mapped_column(ModelJSON(list[SourceStatement]), default=list)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("dataset.id", ondelete="RESTRICT"))
    statement_timeout_s: Mapped[float] = mapped_column(default=30.0)
    rounds: Mapped[int] = mapped_column(default=5)
    passes: Mapped[int] = mapped_column(default=1)
    budget_rounds: Mapped[int] = mapped_column(default=60)
    # created without a rounds budget: budget_rounds is scaled to the candidates once they are built
    # (0 until then; search.py scaled_budget, runner.py)
    budget_scaled: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    budget_minutes: Mapped[float] = mapped_column(default=30.0)
    try_all: Mapped[bool] = mapped_column(default=False)
    # a remedy restores when at most this much slower than the baseline, decided (search.py)
    tolerance: Mapped[float] = mapped_column(default=0.10)
    # statement (statement-level only), both (a restoring setting re-verified as global), global
    # (fixsearch/effects.py); the side-effect check's rounds per fingerprint and minutes (its budget)
    scope: Mapped[str] = mapped_column(String(20), default="both", server_default="statement")
    # the candidate sources tried (candidates.SOURCES; every existing search: all of them)
    sources: Mapped[list[Source]] = mapped_column(
        ModelJSON(list[Source]), default=lambda: list(SOURCES), server_default=json.dumps(SOURCES)
    )
    side_rounds: Mapped[int] = mapped_column(default=5, server_default="5")
    side_minutes: Mapped[float] = mapped_column(default=10.0, server_default="10")
    candidates: Mapped[list[FixCandidateStored]] = mapped_column(
        ModelJSON(list[FixCandidateStored]), default=list
    )
    tried: Mapped[list[FixTrialRead]] = mapped_column(ModelJSON(list[FixTrialRead]), default=list)
    progress: Mapped[FixSearchProgress | None] = mapped_column(ModelJSON(FixSearchProgress), default=None)
    result: Mapped[FixSearchResult | None] = mapped_column(ModelJSON(FixSearchResult), default=None)
    # whether a read-only link is live (sharing/models.py job_share, migration 0032), read with the row
    shared: Mapped[bool] = live_share("fixsearch", id)
    # who created it (app_user.id): only they or an admin may cancel it (users/auth.py require_owner)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
