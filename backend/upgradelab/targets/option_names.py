"""A server binary's own option names (`mysqld --verbose --help`), and the exact-name check built on them.

MySQL and MariaDB expand a unique prefix to the option it starts (`init-fil` is `init-file`,
`datadi` is `datadir`), so a refusal list alone is never enough: every name a variant writes must
be one the target's binary lists, spelt out in full. `loose-` and the boolean prefixes
`skip-`/`enable-`/`disable-` are the only prefixes taken; `_` and `-` are one character.

The list is read once per binary and version through the provisioner (`option_help()`: a chroot,
the host binary, a throwaway container) and cached as JSON in `{state_dir}/option-names/<target>.json`
with the binary's identity (`binary_identity()`); the API reads it, or builds it when it is missing
or stale, before it accepts an experiment, a run or a replay (targets/option_lists.py); pre-flight
refreshes it whenever the identity changed.
"""

import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from upgradelab.settings import Settings, get_settings
from upgradelab.targets.option_categories import option_refusal
from upgradelab.targets.options import OptionError, normalize_name, shown

# `  --name`, `  -h, --name=name`, `  --name[=#]`: an option line of the help's first part.
_OPTION_LINE = re.compile(r"^  (?:-[A-Za-z#?], )?--([a-z0-9][a-z0-9_-]*)(\[?=[^\s\]]+\]?)?")
# `name   value` rows of the "Variables (--variable-name=value)" table.
_TABLE_START = re.compile(r"^-{20,} -+$")
_BOOLEAN_PREFIXES = ("skip-", "enable-", "disable-")
_VERSION_LINE = re.compile(r"^(\S+)\s+Ver\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class ServerNames:
    """Option names of one server binary (dashed): all of them, and those that take no value or an
    optional one (the boolean and plugin options the `skip-`/`enable-`/`disable-` prefixes apply to)."""

    server: str
    options: frozenset[str]
    flags: frozenset[str]

    def canonical(self, name: str) -> str:
        """The dashed option line name for `name` (prefixes kept), or OptionError naming it.

        Refused: a name the binary does not list exactly, a boolean prefix on an option that takes
        a value, and `loose-X` where X is unlisted but starts a listed name (the server would
        expand it); `loose-X` naming nothing is kept (the server ignores it with a warning)."""
        dashed = normalize_name(name)
        bare = dashed.removeprefix("loose-")
        if bare in self.options or self._flag(bare):
            return dashed
        prefixed = {prefix + flag for prefix in _BOOLEAN_PREFIXES for flag in self.flags}
        if dashed.startswith("loose-") and not any(
            known.startswith(bare) for known in self.options | prefixed
        ):
            return dashed
        raise OptionError(
            f"option {shown(name)}: not an option name of {self.server}; exact names only "
            "(the server would expand a prefix or an abbreviation to another option)"
        )

    def _flag(self, name: str) -> bool:
        return any(name.startswith(p) and name.removeprefix(p) in self.flags for p in _BOOLEAN_PREFIXES)


def parse_help(text: str) -> ServerNames:
    """ServerNames from `mysqld --verbose --help` output (MySQL 5.7-9.x, MariaDB 10.x-11.x)."""
    found = _VERSION_LINE.search(text)
    server = f"{found[1].rsplit('/', 1)[-1]} {found[2]}" if found else "the server"
    options: set[str] = set()
    flags: set[str] = set()
    in_table = False
    for line in text.splitlines():
        if _TABLE_START.match(line):
            in_table = True
            continue
        if in_table:
            name, _, value = line.partition(" ")
            if name and not line.startswith(" "):
                options.add(name)
                if value.strip() in {"TRUE", "FALSE"}:
                    flags.add(name)
            continue
        found = _OPTION_LINE.match(line)
        if found:
            name = normalize_name(found[1])
            options.add(name)
            if found[2] is None or found[2].startswith("["):
                flags.add(name)
    return ServerNames(server, frozenset(options), frozenset(flags))


# an option's description that says the server no longer uses it ("Unused.", MariaDB 11.x's
# optimizer_adjust_secondary_key_costs; "Deprecated parameter with no effect"; "(deprecated, has no effect)")
_UNUSED = re.compile(r"^Unused\b|parameter with no effect|\(deprecated, has no effect\)", re.IGNORECASE)
_DESCRIPTION = re.compile(r"^ {10,}(\S.*)$")
_ANY_OPTION_LINE = re.compile(r"^  (?:-[A-Za-z#?], )?--([A-Za-z0-9][A-Za-z0-9_-]*)(\[?=[^\s\]]+\]?)?")


def unused_variables(text: str) -> frozenset[str]:
    """The variables (underscored, as SHOW VARIABLES names them) whose option the binary's own
    `--verbose --help` describes as unused or without effect (`_UNUSED`), read from the description
    lines under each `  --name` line; an option whose description only says it is deprecated is in
    use still and not listed."""
    found: set[str] = set()
    name: str | None = None
    description: list[str] = []

    def close() -> None:
        if name is not None and _UNUSED.search(" ".join(description)):
            found.add(name.replace("-", "_"))

    for line in text.splitlines():
        option = _ANY_OPTION_LINE.match(line)
        if option:
            close()
            name, description = option[1].lower(), []
            rest = line[option.end() :].strip()
            if rest:
                description.append(rest)
        elif name is not None and (more := _DESCRIPTION.match(line)):
            description.append(more[1])
        elif name is not None:
            close()
            name, description = None, []
    close()
    return frozenset(found)


class HasOptionHelp(Protocol):
    """What the name list needs from a provisioner."""

    target_name: str

    def binary_identity(self) -> str:
        """A string that changes when the server binary changes (path, size, mtime; image id)."""

    def option_help(self) -> str:
        """`<server> --no-defaults --verbose --help` output of the target's binary."""


def cache_path(target_name: str, settings: Settings | None = None) -> Path:
    """`{state_dir}/option-names/<target>.json`."""
    return (settings or get_settings()).state_dir / "option-names" / f"{target_name}.json"


def cached_names(target_name: str, settings: Settings | None = None) -> ServerNames | None:
    """The cached names of a target's binary (whatever its identity), or None before they are built."""
    try:
        data = json.loads(cache_path(target_name, settings).read_text())
        return ServerNames(data["server"], frozenset(data["options"]), frozenset(data["flags"]))
    except (OSError, ValueError, KeyError):
        return None


def server_names(provisioner: HasOptionHelp, settings: Settings | None = None) -> ServerNames:
    """The names of the provisioner's binary: from the cache while the binary's identity is the
    same, otherwise from its `--verbose --help` (then cached). ProvisionError from the provisioner."""
    path = cache_path(provisioner.target_name, settings)
    identity = provisioner.binary_identity()
    try:
        data = json.loads(path.read_text())
        if data.get("identity") == identity:
            return ServerNames(data["server"], frozenset(data["options"]), frozenset(data["flags"]))
    except (OSError, ValueError, KeyError):
        pass
    names = parse_help(provisioner.option_help())
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"identity": identity, "server": names.server, "options": sorted(names.options)}
    # Written aside, then renamed: the API and another worker process never read half a file.
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps({**record, "flags": sorted(names.flags)}))
    partial.replace(path)
    return names


def check_lines(names: ServerNames, lines: list[str], allowed: Collection[str] = ()) -> None:
    """Check option-file lines (`name` or `name=value`) by exact name and by category.

    The category first (its reason says more than "unknown name"). Raises OptionError naming the
    first refused option and the reason; `allowed` holds the
    target's admin-listed exceptions (any spelling)."""
    exceptions = {normalize_name(name) for name in allowed}
    for line in lines:
        name, equals, value = line.partition("=")
        refusal = option_refusal(strip_prefixes(normalize_name(name)), value if equals else None, exceptions)
        if refusal is not None:
            raise OptionError(f"option {shown(name)} is refused: {refusal.reason}")
        names.canonical(name)


def strip_prefixes(dashed: str) -> str:
    """The name the category rules see: `loose-` and one boolean prefix removed
    (`loose-skip-grant-tables` -> `grant-tables`, which they refuse as `skip-grant-tables`)."""
    bare = dashed.removeprefix("loose-")
    for prefix in _BOOLEAN_PREFIXES:
        if bare.startswith(prefix):
            return bare.removeprefix(prefix)
    return bare
