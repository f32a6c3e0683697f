"""Capture API shapes: CaptureCreate / CheckCreate in, CaptureRead / CheckRead out (typed to the last
field: the configuration, accounts and workload the capture stored, captures/configuration.py and
captures/digests.py; a check's findings, captures/option_check.py)."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.default_check import DefaultFinding
from upgradelab.captures.digests import Workload
from upgradelab.captures.dump import DumpRecord
from upgradelab.captures.findings import Finding, ordered
from upgradelab.captures.host_defaults import CheckHosts
from upgradelab.captures.identifiers import Identifier
from upgradelab.captures.schema_check import CharsetFinding, IdentifierFinding, SqlModeFinding
from upgradelab.captures.schema_load import LoadFinding
from upgradelab.captures.schema_trial import SchemaTrial
from upgradelab.captures.statement_parse import ParseFinding
from upgradelab.execution.status import JobStatus
from upgradelab.request_model import RequestModel
from upgradelab.users.tokens import SharedFlag, ShownOnce

MAX_DATA_LIMIT_MB = 100_000
MAX_MY_CNF_CHARS = 1_000_000
# bounds of a team host the user gives: a server of up to 4096 logical CPUs and 64 TiB of RAM
MAX_TEAM_CPUS = 4096
MIN_TEAM_MEMORY_MIB, MAX_TEAM_MEMORY_MIB = 256, 64 * 1024 * 1024


class CaptureCreate(RequestModel):
    """Capture target `target` (an existing server with a read-only account, or a target the lab
    runs). `schema_only` / `data_limit_mb`: what its dataset dump is to hold (at most one of them;
    the dump itself is not built yet, the request is recorded)."""

    target: str = Field(min_length=1, max_length=64, description="The target's name.")
    schema_only: bool = Field(False, description="Dump the schema without data.")
    data_limit_mb: int | None = Field(
        None, ge=1, le=MAX_DATA_LIMIT_MB, description="Dump data up to this many MiB (default 100)."
    )

    @model_validator(mode="after")
    def _one_of(self) -> "CaptureCreate":
        if self.schema_only and self.data_limit_mb is not None:
            raise ValueError(
                "schema_only and data_limit_mb exclude each other: a schema-only dump holds no data"
            )
        return self


class MyCnfCreate(RequestModel):
    """An option file to check as a capture (captures/my_cnf.py): its `name` (shown) and `text`."""

    name: str = Field("my.cnf", min_length=1, max_length=200, description="The file's name, as shown.")
    text: str = Field(min_length=1, max_length=MAX_MY_CNF_CHARS, description="The option file's text.")


class Account(BaseModel):
    """An account of the captured server: user, host and authentication plugin (never its hash);
    `role` a role (MariaDB's is_role: no login), `locked` its account_locked (a MySQL role is one);
    both False on captures made before they were read."""

    user: str
    host: str
    plugin: str
    role: bool = False
    locked: bool = False


class CaptureProgress(BaseModel):
    """The step a capture is at: connecting, defaults, accounts, workload, done."""

    phase: str
    message: str = ""


class CaptureRead(BaseModel):
    """A capture: its target, status, what it stored (configuration with each variable's default and
    whether it differs, accounts or why they could not be read, workload digests, the schema's names
    as the server parses them), the dataset its dump was stored as (`dataset_id`, `dump`: what it
    holds, or why there is none) and its progress."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    target: str
    status: JobStatus
    error: str | None
    schema_only: bool
    data_limit_mb: int | None
    flavor: str | None
    version: str | None
    configuration: Configuration | None
    accounts: list[Account] | None
    accounts_error: str | None
    workload: Workload | None
    identifiers: list[Identifier] | None
    dataset_id: int | None
    dump: DumpRecord | None
    progress: CaptureProgress | None
    # its read-only link's token (/api/public/captures/{token}): in the share answer only
    share_token: ShownOnce = None
    shared: SharedFlag = False
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class CaptureSummary(BaseModel):
    """A capture in a list: what it is and how far it got, without the variables and digests."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    target: str
    status: JobStatus
    error: str | None
    flavor: str | None
    version: str | None
    differs: int | None
    accounts: int | None
    digests: int | None
    created_at: datetime
    finished_at: datetime | None

    @classmethod
    def of(cls, row: Any) -> "CaptureSummary":
        """The summary of a Capture row."""
        config, workload = row.configuration, row.workload
        return cls(
            id=row.id,
            target=row.target,
            status=row.status,
            error=row.error,
            flavor=row.flavor,
            version=row.version,
            differs=config.differs if config else None,
            accounts=None if row.accounts is None else len(row.accounts),
            digests=len(workload.digests) if workload else None,
            created_at=row.created_at,
            finished_at=row.finished_at,
        )


class TeamHost(RequestModel):
    """The team's server's hardware, for the defaults the new version computes from it (captures/
    host_defaults.py): `cpus` logical CPUs and `memory_mib` RAM in MiB; either may be left out (a
    capture shows MariaDB's CPU count; the memory it never shows)."""

    cpus: int | None = Field(None, ge=1, le=MAX_TEAM_CPUS, description="The team's server's logical CPUs.")
    memory_mib: int | None = Field(
        None, ge=MIN_TEAM_MEMORY_MIB, le=MAX_TEAM_MEMORY_MIB, description="The team's server's RAM in MiB."
    )


class CheckCreate(RequestModel):
    """Check a capture's settings against the binary of lab target `target` (the new version: a
    local or tarball target); `team_host`: the team's server's CPUs and memory, where the capture
    does not show them (given ones win over the capture's)."""

    target: str = Field(min_length=1, max_length=64, description="The new version's lab target.")
    team_host: TeamHost | None = Field(None, description="The team's server's CPUs and memory.")


class OptionFindingRead(BaseModel):
    """One of the team's settings on the new version (captures/option_check.py): `line` tried (None:
    not tried), `outcome` refused / no_effect / adjusted / deprecated / accepted / not_tried / implied,
    `words`: the server's (its [ERROR] or [Warning] lines, its help's) or the lab's reason for not
    trying it; `shown` the captured server's display of the value where the line writes it otherwise,
    `note` what becomes of the settings it implied, `action` what to do (the last three empty on
    checks made before)."""

    name: str
    line: str | None
    outcome: Literal["refused", "no_effect", "adjusted", "deprecated", "accepted", "not_tried", "implied"]
    words: str
    shown: str | None = None
    note: str = ""
    action: str = ""


class AccountFindingRead(BaseModel):
    """The captured accounts of one authentication `plugin` on the new version (`accounts` as
    'user'@'host'; captures/account_check.py): `outcome` missing (they cannot log in), not_loaded (the
    plugin can be loaded), available, anonymous (accounts without a user name: a hygiene note, plugin
    '') or no_login (roles and locked accounts, plugin ''); `words` say which server and why, `action`
    what to do ('' on checks made before)."""

    plugin: str
    accounts: list[str]
    outcome: Literal["missing", "not_loaded", "available", "anonymous", "no_login"]
    words: str
    action: str = ""


class CheckRead(BaseModel):
    """A capture check: its capture, the new version's target and binary (`server`), status and
    findings: the team's settings (refused first), its accounts' plugins (missing first), the
    schema's names that no longer parse, sql_mode values refused, character set defaults that
    change, defaults changed under settings left unset (host-dependent ones resolved for `hosts`:
    the team's and the lab's, and which defaults read its CPUs or memory), the captured schema's
    statements the new version refuses (`load_findings`) and the captured statements its parser
    refuses (`parse_findings`), with what that trial asked and why not the rest (`schema_load`: None
    on a check made before, and on an option file's); `ordered`: all of them in one severity order,
    each with what to do (captures/findings.py SEVERITIES)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    capture_id: int
    target: str
    status: JobStatus
    error: str | None
    server: str | None
    findings: list[OptionFindingRead] | None
    account_findings: list[AccountFindingRead] | None
    identifier_findings: list[IdentifierFinding] | None
    sql_mode_findings: list[SqlModeFinding] | None
    charset_findings: list[CharsetFinding] | None
    default_findings: list[DefaultFinding] | None
    # what the user gave (CheckCreate.team_host) and the two hosts the defaults were resolved for
    team_host: TeamHost | None = None
    hosts: CheckHosts | None = None
    load_findings: list[LoadFinding] | None = None
    parse_findings: list[ParseFinding] | None = None
    schema_load: SchemaTrial | None = None
    ordered: list[Finding] = []
    # its read-only link's token (/api/public/captures/checks/{token}): in the share answer only
    share_token: ShownOnce = None
    shared: SharedFlag = False
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @model_validator(mode="after")
    def _ordered(self) -> "CheckRead":
        def rows(items: list[Any] | None) -> list[dict[str, Any]]:
            return [item.model_dump(mode="json") for item in items or []]

        self.ordered = ordered(
            rows(self.findings),
            rows(self.account_findings),
            rows(self.identifier_findings),
            rows(self.sql_mode_findings),
            rows(self.charset_findings),
            rows(self.default_findings),
            rows(self.load_findings),
            rows(self.parse_findings),
            self.schema_load.model_dump(mode="json") if self.schema_load else None,
        )
        return self
