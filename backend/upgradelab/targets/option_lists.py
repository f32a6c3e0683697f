"""A target's option-name list, there before any experiment, run or replay on the target is accepted.

The API asks for the list when it accepts variants (runs/experiments.py at creation and when a
run is queued, replay/service.py): from the cache while the binary is the same, otherwise built
then, in a worker thread (targets/option_names.py `server_names`: `mysqld --verbose --help` of a
local or tarball target's binary on this host, a throwaway container of a docker target's image).
A list that cannot be built refuses the request (503 naming the target): never accepted unchecked,
as a name such as `init-fil` or `datadi` would be expanded by the server to `init-file`/`datadir`.
"""

import subprocess
import sys
import tarfile
from collections.abc import Iterable

from anyio import to_thread

from upgradelab.errors import field_error
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import ServerNames, check_lines, server_names
from upgradelab.targets.options import OptionError, validate_option
from upgradelab.targets.provisioners import ExistingProvisioner, ProvisionError, provisioner_for


class OptionListUnavailable(RuntimeError):
    """The target's option names could not be read; the message names the target and the cause."""


# what makes a list unreadable (OptionListUnavailable), with _docker_errors()
_UNREADABLE: tuple[type[Exception], ...] = (
    ProvisionError,
    OSError,
    subprocess.SubprocessError,
    tarfile.TarError,
)


def _docker_errors() -> tuple[type[Exception], ...]:
    # The Docker client's DockerException, when a docker target loaded the client (the build itself
    # may be its first use): only then can one be raised, and no start imports docker (~0.15 CPU-s)
    # for this check (issue 31). Read after the error, so a client loaded by the build counts.
    errors = sys.modules.get("docker.errors")
    return (errors.DockerException,) if errors is not None else ()


def build(target: Target, settings: Settings | None = None) -> ServerNames | None:
    """The option names of the target's server binary (cached per binary identity, built when the
    cache is missing or stale). None for an existing target: the lab writes no option file there,
    pre-flight refuses startup options by capability (experiments/preflight.py). Blocking (a subprocess
    of up to 120 s, a container, a tarball unpacked): call it in a worker thread.

    Raises OptionListUnavailable naming the target and what failed."""
    if target.provisioner == ExistingProvisioner.kind:
        return None
    try:
        return server_names(provisioner_for(target, settings), settings)
    except Exception as error:
        if not isinstance(error, _UNREADABLE + _docker_errors()):
            raise
        raise OptionListUnavailable(
            f"target {target.name}: the option names of its server cannot be read, so no option can "
            f"be checked: {str(error)[:300]}"
        ) from error


async def names_or_503(target: Target) -> ServerNames | None:
    """`build` in a worker thread; HTTP 503 naming the target when the list cannot be built."""
    try:
        return await to_thread.run_sync(build, target)
    except OptionListUnavailable as error:
        from fastapi import HTTPException, status  # the worker imports this module too (issue 31)

        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, str(error)) from error


async def check_target_lines(target: Target, lines: list[str]) -> None:
    """Check option-file lines (`name` or `name=value`) for `target`: category (the target's
    `allowed_options` excepted) and exact name against its binary's list (built if needed).

    Raises OptionError naming the first refused option; HTTP 503 when the list cannot be built."""
    if not lines:
        return
    names = await names_or_503(target)
    allowed = target.settings.allowed_options or []
    if names is not None:
        check_lines(names, lines, allowed)
        return
    for line in lines:  # an existing target: categories here, the rest by capability in pre-flight
        name, equals, value = line.partition("=")
        validate_option(name, value if equals else None, allowed)


async def check_named_lines(
    target: Target, named: Iterable[tuple[str, str]], field: list[str | int], label: str
) -> None:
    """Each (option name, option-file line) of a variant checked as `check_target_lines` does (the
    target's list built first if missing: HTTP 503 naming the target); the first refused is a 422
    whose location is `field` + ["options", its name (80 characters at most)] and whose message is
    "<label>: <why>" (a replay's and a concurrent replay's create)."""
    for option, line in named:
        try:
            await check_target_lines(target, [line])
        except OptionError as error:
            raise field_error([*field, "options", option[:80]], f"{label}: {error}") from error


__all__ = [
    "OptionError",
    "OptionListUnavailable",
    "build",
    "check_named_lines",
    "check_target_lines",
    "names_or_503",
]
