"""What the captured schema and settings meet on the new version, asked of its scratch instance (started
with the team's settings the binary takes: captures/option_check.py) and of its binary's defaults:

- names that no longer parse: each name the captured server parsed unquoted (captures/identifiers.py)
  probed the same way on the new server; ER_PARSE_ERROR there is the finding, its words the evidence;
- sql_mode values it refuses: the team's sql_mode SET (as a bound parameter) on the new server; the
  value its error names is taken out and the rest SET again, until it takes what is left;
- character set and collation defaults that change what new tables get: the captured server's
  values against the started new server's (the team's settings applied). Existing databases keep
  their own default (db.opt): the change reaches new databases and tables created without one;
- the defaults changed under settings the team leaves unset: captures/default_check.py.
"""

import pymysql
from pydantic import BaseModel

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.defaults import BinaryDefaults, same_value
from upgradelab.captures.identifiers import Identifier, parse_error, probe_sql
from upgradelab.targets.provisioners.base import ServerConnection

CHARSET_VARIABLES = (
    "character_set_server",
    "collation_server",
    "character_set_collations",  # MariaDB 11.2+: the collation a charset's tables get by default
    "default_collation_for_utf8mb4",  # MySQL 8.0
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
