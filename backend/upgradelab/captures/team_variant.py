"""The team's settings as a variant (issue 35, Deliver 3): a capture's settings as the startup
options of a replay's or a run's variant on lab target T, so an experiment measures the team's
settings rather than the lab's defaults.

- The settings are the ones a check tries (option_check.team_lines): the team's own settings (by
  their origin, else those that differ from their version's defaults, host-dependent ones left out),
  each as an option-file line with the value as T's binary's option takes it (both binaries' help,
  where the lab can read them: old_alter_table=COPY is ON on MySQL).
- Dropped, each with its reason: a line the lab never writes (the check's "not tried", the lab's
  reason), and a line the newest succeeded check of this capture against T refused (the server's own
  words). Without such a check nothing is dropped for a refusal and `checked_by` is None: the
  variant's server then says at its start what it refuses (check first to know before).
- Trimmed: a refused list whose refused values that check named (sql_mode: its sql_mode findings)
  keeps the rest of its values (sql_mode minus NO_AUTO_CREATE_USER), listed with both.
- Scaled: innodb_buffer_pool_size above what the lab's memory check allows one of `instances`
  server instances (execution/instances.py check_memory: the buffer pools plus `allowance_mb` MiB per
  instance within MemAvailable) is set to that share, rounded down to a MiB, never below the
  servers' 128 MiB default; listed with both sizes and the numbers it came from. The memory check
  counts only the buffer pool, so other sizes are kept as captured.
- Dropped too: a line the lab's own option check refuses for T (targets/option_names.py check_lines,
  what a replay or a run checks its variants' options with: the exact name against T's binary's
  list, the refused categories): a removed option the new server still starts with and only warns
  about (MariaDB 11.8's `innodb-change-buffering`, "was removed") is no option name of its binary,
  so a variant carrying it would be refused (422) before it ran; its reason in the check's words.
- An existing target takes no option file (experiments/preflight.py): every line is dropped, saying so.
"""

import logging
from dataclasses import dataclass, field

from anyio import to_thread
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.defaults import BinaryDefaults
from upgradelab.captures.lab_binaries import binary_defaults, capture_binary_defaults
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.option_check import TeamLine, team_lines
from upgradelab.captures.schema_check import SqlModeFinding
from upgradelab.captures.schemas import OptionFindingRead
from upgradelab.db import sync_session
from upgradelab.execution.instances import DEFAULT_BUFFER_POOL_BYTES, buffer_pool_bytes, mem_available_bytes
from upgradelab.execution.status import JobStatus
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.option_lists import names_or_503
from upgradelab.targets.option_names import ServerNames, check_lines
from upgradelab.targets.options import OptionError

log = logging.getLogger(__name__)
_MIB = 1024**2
BUFFER_POOL = "innodb_buffer_pool_size"
NO_OPTION_FILE = "an existing server takes no option file (a dynamic variable can go in SET GLOBAL)"


@dataclass(frozen=True)
class DroppedSetting:
    """A team setting left out of the variant: `name`, the `line` (None: the lab never rendered it),
    `reason` ("not tried: ..." in the lab's words, or "refused by <server>: ..." in the server's)."""

    name: str
    line: str | None
    reason: str


@dataclass(frozen=True)
class ScaledSetting:
    """A memory size changed to fit the lab: `name`, the team's `captured` and the `used` value
    (bytes, as option values), and `reason` naming the numbers (MiB)."""

    name: str
    captured: str
    used: str
    reason: str


@dataclass(frozen=True)
class TrimmedSetting:
    """A list setting kept without the values the new version refuses: `name`, the team's `captured`
    value, the `used` one and `reason` (the refused values, in the check's words)."""

    name: str
    captured: str
    used: str
    reason: str


@dataclass(frozen=True)
class CheckUsed:
    """The newest succeeded check of the capture against the variant's target: its `id`, `server`,
    `findings` and `sql_modes` (its sql_mode_findings) as stored (typed, models.CaptureCheck)."""

    id: int
    server: str
    findings: list[OptionFindingRead]
    sql_modes: list[SqlModeFinding] = field(default_factory=list)


@dataclass(frozen=True)
class TeamVariant:
    """A capture's settings for target `target`: `options` (name -> value, a variant spec's startup
    options), what was `dropped`, `scaled` and `trimmed`, and `checked_by`: the check whose refusals
    were dropped (None: no succeeded check of this capture against `target`)."""

    capture_id: int
    target: str
    options: dict[str, str | None] = field(default_factory=dict)
    dropped: list[DroppedSetting] = field(default_factory=list)
    scaled: list[ScaledSetting] = field(default_factory=list)
    checked_by: int | None = None
    trimmed: list[TrimmedSetting] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryShare:
    """What the lab's memory check allows: `available_bytes` (MemAvailable) shared by `instances`
    server instances of a job, each needing `allowance_mb` MiB beyond its buffer pool."""

    available_bytes: int
    instances: int
    allowance_mb: int

    def buffer_pool_bytes(self) -> int:
        """The buffer pool one instance may have (bytes, a whole MiB, at least the default 128 MiB)."""
        share = self.available_bytes // max(self.instances, 1) - self.allowance_mb * _MIB
        return max(share // _MIB * _MIB, DEFAULT_BUFFER_POOL_BYTES)


def team_variant(
    capture_id: int,
    target: str,
    config: Configuration,
    memory: MemoryShare,
    check: CheckUsed | None = None,
    *,
    takes_options: bool = True,
    names: ServerNames | None = None,
    allowed: list[str] | None = None,
    helps: tuple[BinaryDefaults | None, BinaryDefaults | None] = (None, None),
) -> TeamVariant:
    """The TeamVariant of a capture's `config` on `target` (the module docstring); `check`: the
    newest succeeded check against `target`, or None; `takes_options` False for an existing target
    (every line dropped); `names`: the option names of `target`'s binary (None: not checked here) with
    its admin-listed `allowed` options; `helps`: the capture's old binary's and `target`'s binary's
    defaults and help (None: the values as captured)."""
    lines, skipped = team_lines(config, *helps)
    dropped = [
        DroppedSetting(f.name, None, f"not tried: {f.words}") for f in skipped if f.outcome == "not_tried"
    ]
    if not takes_options:
        dropped += [DroppedSetting(one.name, one.line, NO_OPTION_FILE) for one in lines]
        return TeamVariant(capture_id, target, {}, dropped)
    server, findings = (check.server, check.findings) if check is not None else ("", [])
    refused = {f.name: f.words for f in findings if f.outcome == "refused"}
    options: dict[str, str | None] = {}
    scaled: list[ScaledSetting] = []
    trimmed: list[TrimmedSetting] = []
    for one in lines:
        name, line = one.name, one.line
        if name in refused:
            kept = _trimmed(one, check, refused[name])
            if kept is None:
                dropped.append(DroppedSetting(name, line, f"refused by {server}: {refused[name]}"))
                continue
            trimmed.append(kept)
            line = f"{line.partition('=')[0]}={kept.used}"
        if names is not None:
            try:
                check_lines(names, [line], allowed or [])
            except OptionError as error:
                dropped.append(DroppedSetting(name, line, f"refused by the lab's option check: {error}"))
                continue
        option, equals, value = line.partition("=")
        if name.lower() == BUFFER_POOL:
            fitted = _fit_buffer_pool(name, line, memory)
            if fitted is not None:
                scaled.append(fitted)
                value = fitted.used
        options[option] = value if equals else None
    checked_by = check.id if check is not None else None
    return TeamVariant(capture_id, target, options, dropped, scaled, checked_by, trimmed)


def _trimmed(line: TeamLine, check: CheckUsed | None, words: str) -> TrimmedSetting | None:
    """A refused sql_mode line without the values the check's sql_mode findings name (None: not a list
    the check named values of, or nothing would be left)."""
    if check is None or line.name.lower() != "sql_mode" or not check.sql_modes:
        return None
    refused = {mode.mode.upper(): mode.words for mode in check.sql_modes}
    captured = line.line.partition("=")[2]
    kept = [mode for mode in captured.split(",") if mode.strip() and mode.strip().upper() not in refused]
    if not kept:
        return None
    reason = f"{', '.join(refused)} refused by {check.server}: " + "; ".join(sorted(set(refused.values())))
    return TrimmedSetting(line.name, captured, ",".join(kept), reason)


def _fit_buffer_pool(name: str, line: str, memory: MemoryShare) -> ScaledSetting | None:
    captured = buffer_pool_bytes([line])
    allowed = memory.buffer_pool_bytes()
    if captured <= allowed:
        return None
    return ScaledSetting(
        name,
        line.partition("=")[2],
        str(allowed),
        f"{captured // _MIB} MiB -> {allowed // _MIB} MiB: the lab's memory check allows "
        f"{memory.available_bytes // _MIB} MiB available / {memory.instances} instances - "
        f"{memory.allowance_mb} MiB each",
    )


async def team_variant_of(
    session: AsyncSession, capture: Capture, target: Target, instances: int, allowance_mb: int
) -> TeamVariant:
    """team_variant of a stored capture (its configuration; ValueError when it holds none) on
    `target`, with the newest succeeded check of it against `target` and this machine's
    MemAvailable shared by `instances` instances, its lines checked against `target`'s option names
    (HTTP 503 naming the target when they cannot be read: targets/option_lists.py)."""
    if capture.configuration is None:
        raise ValueError(f"capture {capture.id} holds no configuration ({capture.status})")
    query = (
        select(CaptureCheck)
        .where(CaptureCheck.capture_id == capture.id, CaptureCheck.target == target.name)
        .where(CaptureCheck.status == JobStatus.succeeded)
        .order_by(CaptureCheck.id.desc())
        .limit(1)
    )
    newest = await session.scalar(query)
    check = None
    if newest is not None:
        findings, modes = list(newest.findings or []), list(newest.sql_mode_findings or [])
        check = CheckUsed(newest.id, newest.server or target.name, findings, modes)
    memory = MemoryShare(mem_available_bytes(), instances, allowance_mb)
    config = capture.configuration
    takes_options = target.provisioner != "existing"
    names = await names_or_503(target) if takes_options else None
    allowed = list(target.settings.allowed_options or [])
    helps = await to_thread.run_sync(lambda: _helps(config, target)) if takes_options else (None, None)
    return team_variant(
        capture.id,
        target.name,
        config,
        memory,
        check,
        takes_options=takes_options,
        names=names,
        allowed=allowed,
        helps=helps,
    )


def _helps(config: Configuration, target: Target) -> tuple[BinaryDefaults | None, BinaryDefaults | None]:
    """The capture's old binary's and `target`'s binary's defaults and help, each None when the lab
    cannot read it (logged: the values are then used as captured)."""
    settings = get_settings()
    with sync_session() as session:
        old = capture_binary_defaults(session, config, settings)
    try:
        new: BinaryDefaults | None = binary_defaults(target, settings)
    except Exception as error:  # its help unreadable
        log.warning("the defaults of %s: %s", target.name, error)
        new = None
    return old, new
