"""The team's settings as a variant (issue 35, Deliver 3): a capture's settings as the startup
options of a replay's or a run's variant on lab target T, so an experiment measures the team's
settings rather than the lab's defaults.

- The settings are the ones a check tries (option_check.team_lines): the captured variables that
  differ from their version's defaults, host-dependent ones left out (their difference may be the
  hardware), each as an option-file line.
- Dropped, each with its reason: a line the lab never writes (the check's "not tried", the lab's
  reason), and a line the newest succeeded check of this capture against T refused (the server's own
  words). Without such a check nothing is dropped for a refusal and `checked_by` is None: the
  variant's server then says at its start what it refuses (check first to know before).
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

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.option_check import team_lines
from upgradelab.execution.instances import DEFAULT_BUFFER_POOL_BYTES, buffer_pool_bytes, mem_available_bytes
from upgradelab.execution.status import JobStatus
from upgradelab.targets.models import Target
from upgradelab.targets.option_lists import names_or_503
from upgradelab.targets.option_names import ServerNames, check_lines
from upgradelab.targets.options import OptionError

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
class TeamVariant:
    """A capture's settings for target `target`: `options` (name -> value, a variant spec's startup
    options), what was `dropped` and `scaled`, and `checked_by`: the check whose refusals were
    dropped (None: no succeeded check of this capture against `target`)."""

    capture_id: int
    target: str
    options: dict[str, str | None] = field(default_factory=dict)
    dropped: list[DroppedSetting] = field(default_factory=list)
    scaled: list[ScaledSetting] = field(default_factory=list)
    checked_by: int | None = None


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
    check: tuple[int, str, list[dict[str, Any]]] | None = None,
    *,
    takes_options: bool = True,
    names: ServerNames | None = None,
    allowed: list[str] | None = None,
) -> TeamVariant:
    """The TeamVariant of a capture's `config` on `target` (the module docstring); `check`: the
    newest succeeded check against `target` as (id, its server, its findings as stored), or None;
    `takes_options` False for an existing target (every line dropped); `names`: the option names of
    `target`'s binary (None: not checked here) with its admin-listed `allowed` options."""
    lines, skipped = team_lines(config)
    dropped = [DroppedSetting(f.name, None, f"not tried: {f.words}") for f in skipped]
    if not takes_options:
        dropped += [DroppedSetting(name, line, NO_OPTION_FILE) for name, line in lines]
        return TeamVariant(capture_id, target, {}, dropped)
    server, findings = (check[1], check[2]) if check is not None else ("", [])
    refused = {f["name"]: f["words"] for f in findings if f.get("outcome") == "refused"}
    options: dict[str, str | None] = {}
    scaled: list[ScaledSetting] = []
    for name, line in lines:
        if name in refused:
            dropped.append(DroppedSetting(name, line, f"refused by {server}: {refused[name]}"))
            continue
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
    return TeamVariant(
        capture_id, target, options, dropped, scaled, checked_by=check[0] if check is not None else None
    )


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
    check = None if newest is None else (newest.id, newest.server or target.name, list(newest.findings or []))
    memory = MemoryShare(mem_available_bytes(), instances, allowance_mb)
    config = Configuration.model_validate(capture.configuration)
    takes_options = target.provisioner != "existing"
    names = await names_or_503(target) if takes_options else None
    allowed = list(target.settings.get("allowed_options") or [])
    return team_variant(
        capture.id,
        target.name,
        config,
        memory,
        check,
        takes_options=takes_options,
        names=names,
        allowed=allowed,
    )
