"""What the captured schema and settings meet on the new version, asked of its scratch instance (started
with the team's settings the binary takes: captures/option_check.py) and of its binary's defaults:

- names that no longer parse: each name the captured server parsed unquoted (captures/identifiers.py)
  probed the same way on the new server; ER_PARSE_ERROR there is the finding, its words the evidence;
- sql_mode values it refuses: the team's sql_mode SET (as a bound parameter) on the new server; the
  value its error names is taken out and the rest SET again, until it takes what is left;
- character set and collation defaults that change what new tables get: the captured server's
  values against the started new server's (the team's settings applied). Existing databases keep
  their own default (db.opt): the change reaches new databases and tables created without one;
- defaults changed under settings the team leaves unset: the captured value is its binary's default
  (comparison "default") and the new binary's help table gives another (captures/defaults.py
  `same_value`); paths (log files, directories, sockets: the host's, not the version's) are left out.
  Host-dependent ones (captures/defaults.py HOST_DEPENDENT) are resolved by their documented formula
  (captures/host_defaults.py) for the team's host and for the lab's, both shown: the team leaves one
  unset when its value is the old version's formula for its host (else, without a formula, its old
  binary's default), and it is no finding when the new formula gives the team's host what it runs
  with ("same for your hardware"); one without a formula keeps the new binary's help value and says
  "depends on the host: not resolved". The value the new server took on the lab's host is kept too.
"""

import pymysql
from pydantic import BaseModel

from upgradelab.captures.configuration import Configuration, Variable
from upgradelab.captures.defaults import HOST_DEPENDENT, BinaryDefaults, comparable, same_value
from upgradelab.captures.host_defaults import CheckHosts, Resolution, flavor_of, formula_of, resolve
from upgradelab.captures.identifiers import Identifier, parse_error, probe_sql
from upgradelab.targets.provisioners.base import ServerConnection

CHARSET_VARIABLES = (
    "character_set_server",
    "collation_server",
    "character_set_collations",  # MariaDB 11.2+: the collation a charset's tables get by default
    "default_collation_for_utf8mb4",  # MySQL 8.0
)
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


def _binary_own(name: str) -> bool:
    return name.startswith(_IDENTITY_PREFIXES) or (
        name.startswith("performance_schema_max_") and name.endswith("_classes")
    )


MAX_SQL_MODE_ROUNDS = 40


class IdentifierFinding(BaseModel):
    """A name of the schema that parsed unquoted on the captured server and not on the new one:
    `probe` the statement sent, `words` the new server's parse error; `places` where the team's own
    SQL writes it unquoted (captures/schema_trial.py unquoted_places; [] before it was looked for)."""

    kind: str
    schema_name: str
    table: str | None
    name: str
    probe: str
    words: str
    places: list[str] = []


class SqlModeFinding(BaseModel):
    """A value of the team's sql_mode the new server refuses (`words`: its error); `team_sets`:
    the team's configuration sets sql_mode (else it is the old version's default)."""

    mode: str
    team_sets: bool
    words: str


class CharsetFinding(BaseModel):
    """A character set / collation default the new server gives new tables (`new`) where the
    captured one gave `old`; `team_sets`: the team's configuration sets it (and it still changed)."""

    name: str
    old: str
    new: str
    team_sets: bool
    words: str


class DefaultFinding(BaseModel):
    """A default changed between the two binaries under a setting the team leaves unset:
    `old_default` (the captured value) -> `new_default` (the new binary's help table, the lab host's
    figure for a host-dependent one), `lab_host_value` what the new server took on the lab's host,
    `host_dependent` (computed from CPUs / memory), `affects` results or performance. A
    host-dependent one carries the new default resolved by its formula for the team's host
    (`team_host_default`) and for the lab's (`lab_host_default`): value and words, value None when
    not resolved (captures/host_defaults.py); None on other variables and on checks made before."""

    name: str
    old_default: str
    new_default: str
    lab_host_value: str | None
    host_dependent: bool
    affects: str
    team_host_default: Resolution | None = None
    lab_host_default: Resolution | None = None


def identifier_findings(connection: ServerConnection, names: list[Identifier]) -> list[IdentifierFinding]:
    """The names that parsed on the captured server (`old` "parses") and fail on this one; one probe
    per distinct (kind, lower-case name)."""
    asked: dict[tuple[str, str], str | None] = {}
    found = []
    for name in names:
        if name.old != "parses":
            continue
        key = (name.kind, name.name.lower())
        if key not in asked:
            asked[key] = parse_error(connection, name.kind, name.name)
        if asked[key]:
            found.append(
                IdentifierFinding(
                    kind=name.kind,
                    schema_name=name.schema_name,
                    table=name.table,
                    name=name.name,
                    probe=probe_sql(name.kind, name.name),
                    words=asked[key] or "",
                )
            )
    return found


def sql_mode_findings(connection: ServerConnection, config: Configuration) -> list[SqlModeFinding]:
    """The team's sql_mode values the new server refuses (module docstring)."""
    variable = next((v for v in config.variables if v.name.lower() == "sql_mode"), None)
    if variable is None:
        return []
    team_sets = variable.comparison == "differs"
    left = [mode.strip() for mode in variable.value.split(",") if mode.strip()]
    found: list[SqlModeFinding] = []
    for _ in range(MAX_SQL_MODE_ROUNDS):
        words = _refusal(connection, ",".join(left))
        if words is None:
            break
        named = [mode for mode in left if f"'{mode.upper()}'" in words.upper()]
        if not named:  # the words name no single value: ask each alone
            named = [mode for mode in left if _refusal(connection, mode) is not None]
            if not named:
                break
        found += [SqlModeFinding(mode=mode, team_sets=team_sets, words=words) for mode in named]
        left = [mode for mode in left if mode not in named]
    return found


def _refusal(connection: ServerConnection, value: str) -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET SESSION sql_mode = %s", (value,))  # the captured value bound: data
    except pymysql.MySQLError as error:
        return f"ERROR {error.args[0]}: {error.args[1] if len(error.args) > 1 else ''}"
    return None


def server_variables(connection: ServerConnection) -> dict[str, str]:
    """SHOW GLOBAL VARIABLES of the new server, names lower case."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL VARIABLES")
        return {str(name).lower(): "" if value is None else str(value) for name, value in cursor.fetchall()}


def charset_findings(
    config: Configuration, new: dict[str, str], server: str, new_defaults: BinaryDefaults | None = None
) -> list[CharsetFinding]:
    """CHARSET_VARIABLES whose captured value is not the started new server's; the words give the two
    binaries' defaults too (the captured variable's, `new_defaults`' when known)."""
    captured = {v.name.lower(): v for v in config.variables}
    found = []
    for name in CHARSET_VARIABLES:
        old = captured.get(name)
        if name not in new and old is None:
            continue
        old_value = old.value if old else ""
        if old is not None and name in new and same_value(name, old_value, new[name]):
            continue
        words = (
            f"captured {name}={old_value or '(none: no such variable)'}; {server} with the team's settings "
            f"gives {new.get(name) or '(no such variable)'}: tables created without their own charset get it"
        )
        old_default = old.default if old else None
        new_default = new_defaults.values.get(name) if new_defaults else None
        if old_default or new_default:
            words += f" (binaries' defaults: old {old_default or 'unknown'}, new {new_default or 'unknown'})"
        found.append(
            CharsetFinding(
                name=name,
                old=old_value,
                new=new.get(name, ""),
                team_sets=bool(old and old.comparison == "differs"),
                words=words,
            )
        )
    return found


def default_findings(
    config: Configuration, new_defaults: BinaryDefaults, new: dict[str, str], hosts: CheckHosts | None = None
) -> list[DefaultFinding]:
    """The captured variables at their old default whose new binary's default differs (module
    docstring), results-affecting first, then by name; host-dependent ones resolved for `hosts`
    (None: marked only, with the lab host's values)."""
    found = []
    settings = {v.name.lower(): v.value for v in config.variables}
    for variable in config.variables:
        name = variable.name.lower()
        if name in CHARSET_VARIABLES or name.endswith(_PATH_SUFFIXES) or _binary_own(name):
            continue  # the character set ones are charset_findings
        if hosts is not None and name in HOST_DEPENDENT:
            one = _host_finding(name, variable, config, new_defaults, new, hosts, settings)
            found += [one] if one else []
            continue
        if variable.comparison != "default" or variable.default is None:
            continue
        new_default = new_defaults.values.get(name)
        if new_default is None or not comparable(name, new_default):
            continue
        if same_value(name, variable.value, new_default):
            continue
        found.append(
            DefaultFinding(
                name=name,
                old_default=variable.value,
                new_default=new_default,
                lab_host_value=new.get(name),
                host_dependent=name in HOST_DEPENDENT,
                affects="results" if name in RESULT_VARIABLES else "performance",
            )
        )
    return sorted(found, key=lambda f: (f.affects != "results", f.name))


def _host_finding(
    name: str,
    variable: Variable,
    config: Configuration,
    new_defaults: BinaryDefaults,
    new: dict[str, str],
    hosts: CheckHosts,
    settings: dict[str, str],
) -> DefaultFinding | None:
    """A host-dependent variable's finding (module docstring), None when the team sets it or its
    new default for the team's host is what it runs with."""
    value = variable.value
    old = resolve(config.flavor, config.version, name, hosts.team, settings)
    unset = same_value(name, value, old.value) if old.value is not None else variable.comparison == "default"
    if not unset:
        return None
    version = new_defaults.version
    team = resolve(flavor_of(version), version, name, hosts.team, settings)
    help_default = new_defaults.values.get(name)
    if team.value is not None and same_value(name, value, team.value):
        return None  # same for your hardware
    if team.value is None and formula_of(flavor_of(version), version, name) is None:
        # no formula: the help's figure (the lab host's), as without hosts
        if help_default is None or not comparable(name, help_default):
            return None
        if same_value(name, value, help_default):
            return None
    return DefaultFinding(
        name=name,
        old_default=value,
        new_default=help_default if help_default is not None else "(not in its help)",
        lab_host_value=new.get(name),
        host_dependent=True,
        affects="results" if name in RESULT_VARIABLES else "performance",
        team_host_default=team,
        lab_host_default=resolve(flavor_of(version), version, name, hosts.lab, settings),
    )
