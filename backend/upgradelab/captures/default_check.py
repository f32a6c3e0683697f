"""Defaults that change under the settings a team leaves unset, as the two versions' started servers
show them: the team's own server (the capture) and the check's scratch instance of the new version.

- Left unset: the captured variable's origin says the binary gave it (COMPILE-TIME, COMPILED, or set at
  run time back to its default; not AUTO: computed from the host or other settings) and no other
  setting implies it (captures/configuration.py), or, on a capture without origins, its value is its
  old binary's help default (comparison "default").
- The new version's value is what its scratch instance, started by the lab with the team's settings,
  shows for a variable nobody set there (its origin COMPILE-TIME, COMPILED or AUTO: MySQL 9.7 runs
  innodb_flush_method=O_DIRECT where its help prints fsync); a variable that instance took from an
  option file (the lab's own lines, or the server's origins unread) falls back to the new binary's
  help table (captures/defaults.py `comparable`). Only options of the new binary are compared, never
  its identity (version, instrument class counts), paths and file names (the host's, not the
  version's: a value starting with `/` or a file name such as ca.pem), a value either side leaves
  empty (the server then chooses: MariaDB's default_tmp_storage_engine '' is default_storage_engine)
  nor one either binary resolves at start from the device or other settings (captures/defaults.py
  RESOLVED_AT_START).
- Equal spellings are equal (captures/defaults.py `same_value`: ON/TRUE/1, case, numbers by value, a
  type's largest value as "no limit"); a flag list (optimizer_switch, sql_mode, ...) is compared
  member by member (`flag_changes`), each changed flag a line of its own, and is no finding when no
  flag both versions know changed.
- A variable the new binary's own help marks unused or without effect (captures/option_help.py
  `no_effect`: 11.8's optimizer_adjust_secondary_key_costs) is never a default change, nor one the
  old binary's help says did nothing there (10.11's innodb_buffer_pool_chunk_size).
- Host-dependent ones (captures/defaults.py HOST_DEPENDENT) are resolved by their documented formula
  (captures/host_defaults.py) for the team's host and for the lab's, both shown: it is no finding when
  the new formula gives the team's host what it runs with ("same for your hardware"). One without a
  formula, or whose formula needs a figure of the team's host not known (and the old version's formula
  reads it too), compares the lab's two versions on the lab's host: when the old binary's default (or
  formula) there is the team's value, the
  team's host sizes it as the lab's does and the new version's value on the lab's host stands for it
  (`resolved_on_lab`; no finding when it is the same); otherwise it depends on the host and is not
  resolved (a note).
"""

import re

from pydantic import BaseModel

from upgradelab.captures.configuration import COMPUTED_ORIGINS, NOT_SET_ORIGINS, Configuration, Variable
from upgradelab.captures.defaults import (
    AUTOSIZED,
    HOST_DEPENDENT,
    RESOLVED_AT_START,
    BinaryDefaults,
    comparable,
    flag_changes,
    is_flag_list,
    same_value,
)
from upgradelab.captures.host_defaults import CheckHosts, Resolution, flavor_of, formula_of, resolve
from upgradelab.captures.option_help import as_taken, no_effect
from upgradelab.captures.schema_check import CHARSET_VARIABLES

# Settings whose value changes what a statement returns or whether it succeeds (the rest change how
# fast): SQL semantics, text comparison, isolation, types and arithmetic.
RESULT_VARIABLES = frozenset(
    {
        "sql_mode",
        "old_mode",
        "character_set_server",
        "collation_server",
        "character_set_collations",
        "default_collation_for_utf8mb4",
        "innodb_snapshot_isolation",
        "transaction_isolation",
        "tx_isolation",
        "explicit_defaults_for_timestamp",
        "div_precision_increment",
        "lower_case_table_names",
        "group_concat_max_len",
        "max_sort_length",
        "default_week_format",
        "autocommit",
        "sql_require_primary_key",
        "time_zone",
        "default_storage_engine",
        "block_encryption_mode",
        "updatable_views_with_limit",
        "event_scheduler",  # events start running
    }
)
# A path's default is the host's (its name, the datadir): no change of version, not compared.
_PATH_SUFFIXES = ("_file", "_dir", "_path", "dir", "socket")
# The server's identity (version, version_comment, version_source_revision, version_ssl_library) and
# performance_schema's instrument class counts (sized from the binary's own list of instruments): they
# differ on every new binary and are no default a team leaves unset (seen on 10.11 -> 11.8: 5 of 11
# "changes performance" findings were these).
_IDENTITY_PREFIXES = ("version",)
# a file name the server makes up (MySQL's ca.pem, binlog.index, <host>-relay-bin)
_FILE_NAME = re.compile(r"^[\w.-]+\.(?:pem|index|log|pid|sock|cnf)$|^[\w.-]+-(?:relay-)?bin$", re.IGNORECASE)


def _a_path(value: str) -> bool:
    return value.startswith("/") or bool(_FILE_NAME.match(value.strip()))


def _binary_own(name: str) -> bool:
    return name.startswith(_IDENTITY_PREFIXES) or (
        name.startswith("performance_schema_max_") and name.endswith("_classes")
    )


class FlagChange(BaseModel):
    """One flag of a list variable whose state changed: `flag`, its `old` and `new` state ("on" /
    "off"; a member of a plain set such as sql_mode is "on" where the list holds it)."""

    flag: str
    old: str
    new: str


class DefaultFinding(BaseModel):
    """A default changed between the two versions under a setting the team leaves unset:
    `old_default` (the captured value) -> `new_default` (`new_from` "started": what the new version's
    scratch instance shows; "help": its binary's help table, the lab host's figure for a host-dependent
    one), `lab_host_value` what the new server took on the lab's host, `host_dependent` (computed
    from CPUs / memory), `affects` results or performance. A host-dependent one carries the new default
    resolved by its formula for the team's host (`team_host_default`) and for the lab's
    (`lab_host_default`): value and words, value None when not resolved (captures/host_defaults.py);
    `resolved_on_lab` when it has no formula but the lab's host stands for the team's (module docstring).
    A flag list's changed flags are in `flags`, the flags only one version knows in `flags_only_old` /
    `flags_only_new`. The fields after `lab_host_default` are absent on checks made before (defaults)."""

    name: str
    old_default: str
    new_default: str
    lab_host_value: str | None
    host_dependent: bool
    affects: str
    team_host_default: Resolution | None = None
    lab_host_default: Resolution | None = None
    new_from: str = "help"
    resolved_on_lab: bool = False
    flags: list[FlagChange] = []
    flags_only_old: list[str] = []
    flags_only_new: list[str] = []


def _left_unset(variable: Variable) -> bool:
    """The team left it at its binary's own value (module docstring)."""
    if variable.origin is None:
        return variable.comparison == "default" and variable.default is not None
    computed = variable.origin.upper() in COMPUTED_ORIGINS  # from the host or other settings: no default
    return variable.set_by_team() is False and not computed and variable.comparison != "implied"


def _new_value(
    name: str, new: dict[str, str], new_origins: dict[str, str] | None, new_defaults: BinaryDefaults
) -> tuple[str | None, str]:
    """(the new version's value of `name`, "started" or "help"; None when neither gives one)."""
    origin = (new_origins or {}).get(name)
    if name in new and origin is not None and origin.upper() in NOT_SET_ORIGINS:
        return new[name], "started"
    help_default = new_defaults.values.get(name)
    if help_default is not None and comparable(name, help_default):
        return help_default, "help"
    return None, ""


def _autosized(name: str, variable: Variable, new_defaults: BinaryDefaults) -> bool:
    """Either binary's help says it sizes `name` itself (-1: performance_schema_*_size)."""
    return AUTOSIZED in (variable.default, new_defaults.values.get(name))


def _as_new_takes(name: str, value: str, old: BinaryDefaults | None, new: BinaryDefaults) -> str:
    """The captured `value` in the form the new option takes (10.11's old_alter_table DEFAULT is
    MySQL's OFF: captures/option_help.py as_taken)."""
    return as_taken(value, old.options.get(name) if old else None, new.options.get(name))


def _ignored_by(name: str, *helps: BinaryDefaults | None) -> bool:
    """Whether either binary's help says option `name` does nothing."""
    options = [one.options.get(name) for one in helps if one is not None]
    return any(option is not None and no_effect(option.description) is not None for option in options)


def default_findings(
    config: Configuration,
    new_defaults: BinaryDefaults,
    new: dict[str, str],
    hosts: CheckHosts | None = None,
    new_origins: dict[str, str] | None = None,
    old_defaults: BinaryDefaults | None = None,
) -> list[DefaultFinding]:
    """The captured variables the team left unset whose new version's value differs (module
    docstring), results-affecting first, then by name; `new` and `new_origins`: the new version's
    started server's SHOW GLOBAL VARIABLES and their origins (lower-case names; origins None: not
    read, the help decides); host-dependent ones resolved for `hosts` (None: marked only, with the lab
    host's values); `old_defaults`: the capture's old binary's help (None: not read)."""
    found = []
    settings = {v.name.lower(): v.value for v in config.variables}
    for variable in config.variables:
        name = variable.name.lower()
        if name in CHARSET_VARIABLES or name.endswith(_PATH_SUFFIXES) or _binary_own(name):
            continue  # the character set ones are charset_findings
        if name not in new_defaults.values or _ignored_by(name, new_defaults, old_defaults):
            continue  # not an option of the new binary, or one a binary ignores
        if hosts is not None and name in HOST_DEPENDENT:
            one = _host_finding(name, variable, config, new_defaults, new, new_origins, hosts, settings)
            found += [one] if one else []
            continue
        if not _left_unset(variable) or name in RESOLVED_AT_START or _autosized(name, variable, new_defaults):
            continue  # set, implied, resolved at start (RESOLVED_AT_START) or autosized
        if (new_origins or {}).get(name, "").upper() in COMPUTED_ORIGINS:
            continue  # the new server computed it from the host or other settings: no default
        new_value, new_from = _new_value(name, new, new_origins, new_defaults)
        if new_value is None or _a_path(variable.value) or _a_path(new_value):
            continue
        old_value = _as_new_takes(name, variable.value, old_defaults, new_defaults)
        flags: list[FlagChange] = []
        only_old: list[str] = []
        only_new: list[str] = []
        if is_flag_list(name):
            changed, only_old, only_new = flag_changes(name, variable.value, new_value)
            if not changed:
                continue
            flags = [FlagChange(flag=flag, old=old, new=now) for flag, old, now in changed]
        elif not old_value.strip() or not new_value.strip() or same_value(name, old_value, new_value):
            continue  # an empty value: the server chooses, no value to compare
        found.append(
            DefaultFinding(
                name=name,
                old_default=variable.value,
                new_default=new_value,
                lab_host_value=new.get(name),
                host_dependent=name in HOST_DEPENDENT,
                affects="results" if name in RESULT_VARIABLES else "performance",
                new_from=new_from,
                flags=flags,
                flags_only_old=only_old,
                flags_only_new=only_new,
            )
        )
    return sorted(found, key=lambda f: (f.affects != "results", f.name))


def _host_finding(
    name: str,
    variable: Variable,
    config: Configuration,
    new_defaults: BinaryDefaults,
    new: dict[str, str],
    new_origins: dict[str, str] | None,
    hosts: CheckHosts,
    settings: dict[str, str],
) -> DefaultFinding | None:
    """A host-dependent variable's finding (module docstring), None when the team sets it or its
    new default for the team's host is what it runs with."""
    value = variable.value
    by_origin = variable.set_by_team()
    if by_origin is not None:
        unset = not by_origin
    else:
        old = resolve(config.flavor, config.version, name, hosts.team, settings)
        by_value = variable.comparison == "default"
        unset = same_value(name, value, old.value) if old.value is not None else by_value
    if not unset:
        return None
    version = new_defaults.version
    team = resolve(flavor_of(version), version, name, hosts.team, settings)
    new_value, new_from = _new_value(name, new, new_origins, new_defaults)
    if team.value is not None and same_value(name, value, team.value):
        return None  # same for your hardware
    resolved_on_lab = False
    lab = resolve(flavor_of(version), version, name, hosts.lab, settings)
    if team.value is None and formula_of(flavor_of(version), version, name) is None:
        # no formula: the new version on the lab's host, standing for the team's when the old one
        # gives the lab's host what the team runs with
        if new_value is None or same_value(name, value, new_value):
            return None
        resolved_on_lab = variable.default is not None and same_value(name, value, variable.default)
    elif team.value is None:
        # a formula, a figure of the team's host not known: the lab's host stands for it when the old
        # version's formula reads that figure too and gives the lab's host what the team runs with
        old_lab = resolve(config.flavor, config.version, name, hosts.lab, settings)
        reads_it = set(team.uses) <= set(old_lab.uses)
        if (
            reads_it
            and old_lab.value is not None
            and lab.value is not None
            and same_value(name, value, old_lab.value)
        ):
            if same_value(name, value, lab.value):
                return None
            resolved_on_lab = True
    return DefaultFinding(
        name=name,
        old_default=value,
        new_default=new_value if new_value is not None else "(not in its help)",
        lab_host_value=new.get(name),
        host_dependent=True,
        affects="results" if name in RESULT_VARIABLES else "performance",
        team_host_default=team,
        lab_host_default=lab,
        new_from=new_from or "help",
        resolved_on_lab=resolved_on_lab,
    )
