"""A captured server's configuration: every global variable with the default of its version's binary
and whether it differs, where the server says its value came from, and the host facts the server
gives (captures/defaults.py compares).

    Configuration(version, flavor, defaults_from, variables=[Variable], host=HostFacts)

Where a value came from is the server's own word (`origin`): MariaDB's
information_schema.SYSTEM_VARIABLES.GLOBAL_VALUE_ORIGIN (COMPILE-TIME, AUTO, CONFIG, COMMAND-LINE,
SQL, ENVIRONMENT), MySQL's performance_schema.variables_info.VARIABLE_SOURCE (COMPILED, EXPLICIT,
GLOBAL, SERVER, EXTRA, USER, LOGIN, COMMAND_LINE, PERSISTED, DYNAMIC). A value that differs from its
default but that the team did not set (the server computed it, AUTO, or another setting implies it:
MariaDB's old_alter_table=1 shows alter_algorithm=COPY with origin COMPILE-TIME, and old_alter_table's
help names alter_algorithm) is "implied", never the team's; `implied_by` names the team's settings
whose help mentions it. "Compiled in" is not always true of a value that differs (COMPILED_ORIGINS):
without such a setting naming it, the value decides, as it does on a capture made before origins were
read (or a server that hides them: `origin` None).

Values are the server's text, kept as data: nothing captured is ever executed or written into SQL,
a file or a command line on the lab's host.
"""

import re
from typing import Literal

from pydantic import BaseModel

from upgradelab.captures.defaults import HOST_DEPENDENT, BinaryDefaults, comparable, same_value

Comparison = Literal["default", "differs", "implied", "unknown"]
_BYTES_PER_MIB = 1024 * 1024
# origins that say the value is the binary's own (compiled in, computed at start, from the
# environment): the team did not set it
NOT_SET_ORIGINS = frozenset({"COMPILE-TIME", "AUTO", "ENVIRONMENT", "COMPILED"})
# computed at start from the host or other settings
COMPUTED_ORIGINS = frozenset({"AUTO", "ENVIRONMENT"})
# "compiled in": but a server keeps it for some values set in its option file (measured: MariaDB
# 10.11's character_set_server / collation_server, MySQL 9.7's transaction_isolation, all set in the
# option file, show COMPILE-TIME / COMPILED), so a value that differs with this origin is the team's
# unless another setting of the team's names it (old_alter_table=1 shows alter_algorithm=COPY)
COMPILED_ORIGINS = frozenset({"COMPILE-TIME", "COMPILED"})
# set at run time (SET GLOBAL, or a session variable's own): one that does not differ from its default
# is no setting (the lab's own capability check sets max_connect_errors to itself; MySQL shows the
# session-only foreign_key_checks as DYNAMIC)
RUNTIME_ORIGINS = frozenset({"SQL", "DYNAMIC"})


class DefaultsFrom(BaseModel):
    """Where the defaults came from: the lab target whose binary printed them, its `server` ("mariadbd
    10.11.19-MariaDB-0+deb12u1") and `match`: "exact" (same version string) or "series" (same
    major.minor). None in a Configuration: the lab has no binary of that series (every default unknown)."""

    target: str
    server: str
    match: Literal["exact", "series"]


class Variable(BaseModel):
    """One global variable: its `value`, its binary's `default` (None: unknown or none), `comparison`
    ("differs" only against a known default; "implied" when it differs but its origin says the team
    did not set it), `host_dependent` (its default is computed from the host at start: a difference
    may be the hardware, captures/defaults.py HOST_DEPENDENT), `origin` (the server's word, module
    docstring; None: not read) and `implied_by` (the team's settings whose help names it)."""

    name: str
    value: str
    default: str | None
    comparison: Comparison
    host_dependent: bool = False
    origin: str | None = None
    implied_by: list[str] = []

    def set_by_team(self) -> bool | None:
        """Whether the team set it, by its origin (module docstring); None where the origin does not
        tell (none read, or "compiled in" for a value that differs: the value decides)."""
        if self.origin is None:
            return None
        origin = self.origin.upper()
        if origin in RUNTIME_ORIGINS:
            return self.comparison == "differs"
        if origin in COMPILED_ORIGINS and self.comparison == "differs":
            return None
        return origin not in NOT_SET_ORIGINS


class HostFacts(BaseModel):
    """What the server says about its host: `hostname`, `os` / `machine` (version_compile_*),
    `buffer_pool_mib` (innodb_buffer_pool_size), `cpus` where visible with `cpus_from` (how it was
    read, or why it is not visible)."""

    hostname: str | None
    os: str | None
    machine: str | None
    buffer_pool_mib: float | None
    cpus: int | None
    cpus_from: str


class Configuration(BaseModel):
    """A server's configuration as captured: version (SELECT VERSION()), flavor, where the defaults
    came from, the variables (by name) and the host facts; `differs` counts the variables marked."""

    version: str
    version_comment: str
    flavor: str
    defaults_from: DefaultsFrom | None
    variables: list[Variable]
    host: HostFacts
    differs: int


def compare(
    variables: dict[str, str], defaults: BinaryDefaults | None, origins: dict[str, str] | None = None
) -> list[Variable]:
    """Each variable (by name) against `defaults`: "unknown" without defaults, for a variable the
    binary's table does not list (not an option: hostname) or lists without a default to compare
    (captures/defaults.py `comparable`); "implied" when it differs and its origin (`origins`, lower-case
    names) says the server computed it, or says compiled in while a team setting's help names it."""
    origins = origins or {}
    out = []
    for name in sorted(variables):
        value = variables[name]
        default = defaults.values.get(name.lower()) if defaults else None
        if default is None or not comparable(name.lower(), default):
            comparison: Comparison = "unknown"
        else:
            comparison = "default" if same_value(name.lower(), value, default) else "differs"
        origin = origins.get(name.lower())
        if comparison == "differs" and origin is not None and origin.upper() in COMPUTED_ORIGINS:
            comparison = "implied"
        out.append(Variable(name=name, value=value, default=default, comparison=comparison,
                            host_dependent=name.lower() in HOST_DEPENDENT, origin=origin))  # fmt: skip
    return _implying(out, defaults)


def _implying(variables: list[Variable], defaults: BinaryDefaults | None) -> list[Variable]:
    """Each variable that differs with an origin that says the team did not set it, with
    `implied_by`: the team's settings whose help description names it as a whole word
    (old_alter_table's "Alias for alter_algorithm"); one compiled in that none names stays the team's
    ("differs": module docstring)."""
    if defaults is None:
        return variables
    team = [v.name.lower() for v in variables if v.set_by_team()]
    out = []
    for variable in variables:
        origin = (variable.origin or "").upper()
        if variable.comparison in ("implied", "differs") and origin in NOT_SET_ORIGINS:
            name = variable.name.lower()
            pattern = re.compile(rf"(?<![a-z0-9_-]){re.escape(name)}(?![a-z0-9_-])", re.IGNORECASE)
            by = [other for other in team if other in defaults.options
                  and pattern.search(defaults.options[other].description.replace("-", "_"))]  # fmt: skip
            if by:
                variable = variable.model_copy(update={"implied_by": by, "comparison": "implied"})
        out.append(variable)
    return out


def host_facts(flavor: str, variables: dict[str, str], compared: list[Variable]) -> HostFacts:
    """HostFacts from the variables. CPUs: MariaDB's thread_pool_size defaults to the host's CPU count,
    so it is read as one when the configuration does not set it (its origin says so, or without an
    origin its value is read anyway, saying when it differs from the lab's); MySQL shows no CPU count
    through SQL."""
    lowered = {k.lower(): v for k, v in variables.items()}
    pool = lowered.get("innodb_buffer_pool_size", "")
    cpus: int | None = None
    cpus_from = "not visible through SQL on MySQL"
    if flavor == "mariadb":
        pool_size = lowered.get("thread_pool_size", "")
        marked = next((v for v in compared if v.name.lower() == "thread_pool_size"), None)
        set_by_team = marked.set_by_team() if marked is not None else None
        origin = marked.origin if marked is not None else None
        if set_by_team:
            cpus_from = f"not visible: thread_pool_size is set (its origin: {origin}), which hides it"
        elif pool_size.isdigit():
            cpus = int(pool_size)
            cpus_from = "thread_pool_size (its default is the host's CPU count; a configured value hides it)"
            if set_by_team is False:
                cpus_from = f"thread_pool_size, computed from the host's CPUs (its origin: {origin})"
            elif marked is not None and marked.comparison == "differs":
                cpus_from += "; it differs from the lab host's default, which may be the host or a setting"
        else:
            cpus_from = "not visible: no thread_pool_size"
    return HostFacts(
        hostname=lowered.get("hostname"),
        os=lowered.get("version_compile_os"),
        machine=lowered.get("version_compile_machine"),
        buffer_pool_mib=round(int(pool) / _BYTES_PER_MIB, 1) if pool.isdigit() else None,
        cpus=cpus,
        cpus_from=cpus_from,
    )


def build(
    flavor: str,
    version: str,
    version_comment: str,
    variables: dict[str, str],
    defaults: BinaryDefaults | None,
    defaults_from: DefaultsFrom | None,
    origins: dict[str, str] | None = None,
) -> Configuration:
    """The Configuration of a captured server (see the module docstring); `origins`: {lower-case
    name: the server's origin word} (captures/reading.py variable_origins), None when not read."""
    compared = compare(variables, defaults, origins)
    return Configuration(
        version=version,
        version_comment=version_comment,
        flavor=flavor,
        defaults_from=defaults_from,
        variables=compared,
        host=host_facts(flavor, variables, compared),
        differs=sum(1 for v in compared if v.comparison == "differs"),
    )
