"""A captured server's configuration: every global variable with the default of its version's binary
and whether it differs, and the host facts the server gives (captures/defaults.py compares).

    Configuration(version, flavor, defaults_from, variables=[Variable], host=HostFacts)

Values are the server's text, kept as data: nothing captured is ever executed or written into SQL,
a file or a command line on the lab's host.
"""

from typing import Literal

from pydantic import BaseModel

from upgradelab.captures.defaults import HOST_DEPENDENT, BinaryDefaults, comparable, same_value

Comparison = Literal["default", "differs", "unknown"]
_BYTES_PER_MIB = 1024 * 1024


class DefaultsFrom(BaseModel):
    """Where the defaults came from: the lab target whose binary printed them, its `server` ("mariadbd
    10.11.19-MariaDB-0+deb12u1") and `match`: "exact" (same version string) or "series" (same
    major.minor). None in a Configuration: the lab has no binary of that series (every default unknown)."""

    target: str
    server: str
    match: Literal["exact", "series"]


class Variable(BaseModel):
    """One global variable: its `value`, its binary's `default` (None: unknown or none), `comparison`
    ("differs" only against a known default) and `host_dependent` (its default is computed from the
    host at start: a difference may be the hardware, captures/defaults.py HOST_DEPENDENT)."""

    name: str
    value: str
    default: str | None
    comparison: Comparison
    host_dependent: bool = False


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


def compare(variables: dict[str, str], defaults: BinaryDefaults | None) -> list[Variable]:
    """Each variable (by name) against `defaults`: "unknown" without defaults, for a variable the
    binary's table does not list (not an option: hostname) or lists without a default to compare
    (captures/defaults.py `comparable`)."""
    out = []
    for name in sorted(variables):
        value = variables[name]
        default = defaults.values.get(name.lower()) if defaults else None
        if default is None or not comparable(name.lower(), default):
            comparison: Comparison = "unknown"
        else:
            comparison = "default" if same_value(name.lower(), value, default) else "differs"
        out.append(Variable(name=name, value=value, default=default, comparison=comparison,
                            host_dependent=name.lower() in HOST_DEPENDENT))  # fmt: skip
    return out


def host_facts(flavor: str, variables: dict[str, str], compared: list[Variable]) -> HostFacts:
    """HostFacts from the variables. CPUs: MariaDB's thread_pool_size defaults to the host's CPU count,
    so it is read as one when the configuration does not set it (its value is the lab binary's
    default or no default is known); MySQL shows no CPU count through SQL."""
    lowered = {k.lower(): v for k, v in variables.items()}
    pool = lowered.get("innodb_buffer_pool_size", "")
    cpus: int | None = None
    cpus_from = "not visible through SQL on MySQL"
    if flavor == "mariadb":
        pool_size = lowered.get("thread_pool_size", "")
        marked = next((v.comparison for v in compared if v.name.lower() == "thread_pool_size"), "unknown")
        if pool_size.isdigit():
            cpus = int(pool_size)
            cpus_from = "thread_pool_size (its default is the host's CPU count; a configured value hides it)"
            if marked == "differs":
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
) -> Configuration:
    """The Configuration of a captured server (see the module docstring)."""
    compared = compare(variables, defaults)
    return Configuration(
        version=version,
        version_comment=version_comment,
        flavor=flavor,
        defaults_from=defaults_from,
        variables=compared,
        host=host_facts(flavor, variables, compared),
        differs=sum(1 for v in compared if v.comparison == "differs"),
    )
