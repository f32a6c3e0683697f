"""A capture: what a team's server says about itself, read once from a target (captures/runner.py)
and stored as data: its configuration, accounts and statement digests. Executed as a job like a run's
(captures/jobs.py): its lease and heartbeat go through execution/, and it holds its target's lock while
it reads, so no run's SET GLOBAL on a shared server shows in it.
"""

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.default_check import DefaultFinding
from upgradelab.captures.digests import Workload
from upgradelab.captures.dump import DumpRecord
from upgradelab.captures.host_defaults import CheckHosts
from upgradelab.captures.identifiers import Identifier
from upgradelab.captures.schema_check import CharsetFinding, IdentifierFinding, SqlModeFinding
from upgradelab.captures.schema_load import LoadFinding
from upgradelab.captures.schema_trial import SchemaTrial
from upgradelab.captures.schemas import (
    Account,
    AccountFindingRead,
    CaptureProgress,
    OptionFindingRead,
    TeamHost,
)
from upgradelab.captures.statement_parse import ParseFinding
from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.sharing.models import live_share, unshared_when_made
from upgradelab.users.models import User


@unshared_when_made
class Capture(Base):
    """Row of `capture`.

    configuration: captures/configuration.py `Configuration` as JSON (version, host facts, every
    global variable with its default and whether it differs); accounts: [{"user", "host", "plugin"}]
    (never a hash) or None with `accounts_error`; workload: captures/digests.py `Workload` as JSON
    (digests, the query set a replay takes). `schema_only` / `data_limit_mb`: what the dataset dump
    holds; `dataset_id`: the dataset it was stored as (None: no dump, `dump["error"]` says why);
    `dump`: captures/dump.py `DumpRecord` as JSON; `identifiers`: the schema's names as the captured
    server parses them unquoted (captures/identifiers.py `Identifier` as JSON). Each JSON column is
    read and written as its model (db.ModelJSON).
    """

    __tablename__ = "capture"

    id: Mapped[int] = mapped_column(primary_key=True)
    # the target's name as it was (a capture outlives its target)
    target: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued, index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    schema_only: Mapped[bool] = mapped_column(default=False)
    data_limit_mb: Mapped[int | None] = mapped_column(default=None)
    flavor: Mapped[str | None] = mapped_column(String(16), default=None)
    version: Mapped[str | None] = mapped_column(String(200), default=None)
    configuration: Mapped[Configuration | None] = mapped_column(ModelJSON(Configuration), default=None)
    accounts: Mapped[list[Account] | None] = mapped_column(ModelJSON(list[Account]), default=None)
    accounts_error: Mapped[str | None] = mapped_column(Text, default=None)
    workload: Mapped[Workload | None] = mapped_column(ModelJSON(Workload), default=None)
    # a dataset row is never deleted (a record): no foreign key needed (migration 0024)
    dataset_id: Mapped[int | None] = mapped_column(default=None)
    dump: Mapped[DumpRecord | None] = mapped_column(ModelJSON(DumpRecord), default=None)
    identifiers: Mapped[list[Identifier] | None] = mapped_column(ModelJSON(list[Identifier]), default=None)
    # whether a read-only link is live (sharing/models.py job_share, migration 0032), read with the row
    shared: Mapped[bool] = live_share("capture", id)
    # {"phase", "message"}
    progress: Mapped[CaptureProgress | None] = mapped_column(ModelJSON(CaptureProgress), default=None)
    # who created it (app_user.id); only they or an admin may cancel it (users/auth.py require_owner)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)


@unshared_when_made
class CaptureCheck(Base):
    """Row of `capture_check`: a capture's settings checked against a new version's binary (the lab
    target `target`, a local or tarball one: captures/option_check.py). findings: [{"name", "line",
    "outcome", "words"}] (refused, deprecated, accepted, not_tried, in that order); account_findings:
    the captured accounts' plugins on the started new version (option_check.AccountFinding); server: the
    binary checked ("mariadbd 11.8.9-MariaDB..."), from its option-name list. Each JSON column is read
    and written as its model (db.ModelJSON; findings: schemas.OptionFindingRead, account_findings:
    schemas.AccountFindingRead, the others as named below)."""

    __tablename__ = "capture_check"

    id: Mapped[int] = mapped_column(primary_key=True)
    capture_id: Mapped[int] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), index=True)
    target: Mapped[str] = mapped_column(String(64))
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued, index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    server: Mapped[str | None] = mapped_column(String(200), default=None)
    findings: Mapped[list[OptionFindingRead] | None] = mapped_column(
        ModelJSON(list[OptionFindingRead]), default=None
    )
    # [{"plugin", "accounts", "outcome", "words"}] (missing, not_loaded, available)
    account_findings: Mapped[list[AccountFindingRead] | None] = mapped_column(
        ModelJSON(list[AccountFindingRead]), default=None
    )
    # captures/schema_check.py: names that no longer parse, sql_mode values refused, character set
    # defaults that change, defaults changed under settings the team leaves unset (migration 0024)
    identifier_findings: Mapped[list[IdentifierFinding] | None] = mapped_column(
        ModelJSON(list[IdentifierFinding]), default=None
    )
    sql_mode_findings: Mapped[list[SqlModeFinding] | None] = mapped_column(
        ModelJSON(list[SqlModeFinding]), default=None
    )
    charset_findings: Mapped[list[CharsetFinding] | None] = mapped_column(
        ModelJSON(list[CharsetFinding]), default=None
    )
    default_findings: Mapped[list[DefaultFinding] | None] = mapped_column(
        ModelJSON(list[DefaultFinding]), default=None
    )
    # the team's server's {"cpus", "memory_mib"} as given on the check (None: not given), and the
    # two hosts its defaults were resolved for (host_defaults.CheckHosts; migration 0027)
    team_host: Mapped[TeamHost | None] = mapped_column(ModelJSON(TeamHost), default=None)
    hosts: Mapped[CheckHosts | None] = mapped_column(ModelJSON(CheckHosts), default=None)
    # captures/schema_trial.py: the captured schema's statements the new version refuses
    # (schema_load.LoadFinding), the captured statements its parser refuses
    # (statement_parse.ParseFinding), and what the trial asked and why not the rest (SchemaTrial);
    # None on a check made before (migration 0030)
    load_findings: Mapped[list[LoadFinding] | None] = mapped_column(
        ModelJSON(list[LoadFinding]), default=None
    )
    parse_findings: Mapped[list[ParseFinding] | None] = mapped_column(
        ModelJSON(list[ParseFinding]), default=None
    )
    schema_load: Mapped[SchemaTrial | None] = mapped_column(ModelJSON(SchemaTrial), default=None)
    # whether a read-only link is live (sharing/models.py job_share, migration 0032), read with the row
    shared: Mapped[bool] = live_share("capture_check", id)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
