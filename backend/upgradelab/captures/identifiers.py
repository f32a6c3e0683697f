"""The schema's names (tables, columns, routines) and whether a server's parser still takes each one
unquoted: asked of the server itself, never of a keyword list (information_schema.KEYWORDS mislabels
MySQL 8.4/9.x words, MySQL bug 114874; and whether a keyword may stand as a name depends on where it
stands: measured on the lab's binaries, `vector` fails as a column on MariaDB 11.8 and parses as a
table, `manual` fails as a column on MySQL 9.7 and parses as a table).

Each name is put where the schema uses it, in a statement that reads nothing:

    table    SELECT 1 FROM <name> WHERE 1 = 0
    column   SELECT <name> FROM DUAL WHERE 1 = 0
    routine  SELECT <name>() FROM DUAL WHERE 1 = 0

ER_PARSE_ERROR (1064) is "does not parse" with the server's words; any other answer (no such table,
no database selected, unknown column, rows) is "parses". Only a bare word (`[A-Za-z_][A-Za-z0-9_]*`,
not all digits) is ever put into SQL: a name with any other character needs backticks on every
version, so whoever uses it quotes it already; it is listed "quoted" and never sent. The capture asks
the captured server (`old`); the check asks the new version's scratch instance the names that parse
on the old one (captures/schema_check.py).
"""

import re
from typing import Literal

import pymysql
from pydantic import BaseModel

from upgradelab.targets.provisioners.base import ServerConnection

Kind = Literal["table", "column", "routine"]
Parse = Literal["parses", "fails", "quoted", "not_probed"]
PROBES: dict[str, str] = {
    "table": "SELECT 1 FROM {} WHERE 1 = 0",
    "column": "SELECT {} FROM DUAL WHERE 1 = 0",
    "routine": "SELECT {}() FROM DUAL WHERE 1 = 0",
}
PARSE_ERROR = 1064
MAX_PROBES = 3000  # distinct (kind, name) asked; a larger schema's rest is "not_probed"
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SYSTEM = ("mysql", "sys", "performance_schema", "information_schema")


class Identifier(BaseModel):
    """A name of the captured schema: its `kind`, `schema`, `table` (a column's), `name`, and `old`:
    whether the captured server parses it unquoted where it stands (`words`: its error when not)."""

    kind: Kind
    schema_name: str
    table: str | None = None
    name: str
    old: Parse
    words: str = ""


def bare(name: str) -> bool:
    """Whether `name` is a bare word, the only kind of name a probe ever sends."""
    return bool(_BARE.fullmatch(name)) and not name.isdigit()


def probe_sql(kind: str, name: str) -> str:
    """The probe of `name` as a `kind` (PROBES); ValueError for a name that is not a bare word."""
    if not bare(name):
        raise ValueError(f"{name!r} is not a bare word: it is never sent unquoted")
    return PROBES[kind].format(name)


def parse_error(connection: ServerConnection, kind: str, name: str) -> str | None:
    """The server's words when it cannot parse `name` as a `kind` (ER_PARSE_ERROR), else None."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(probe_sql(kind, name))
            cursor.fetchall()
    except pymysql.MySQLError as error:
        if error.args and error.args[0] == PARSE_ERROR:
            return f"ERROR {error.args[0]}: {error.args[1] if len(error.args) > 1 else ''}"
    return None


def schema_names(connection: ServerConnection) -> list[tuple[Kind, str, str | None, str]]:
    """[(kind, schema, table, name)] of the server's tables, columns and routines, the server's own
    databases left out."""
    marks = ", ".join(["%s"] * len(_SYSTEM))
    found: list[tuple[Kind, str, str | None, str]] = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
            f"WHERE TABLE_SCHEMA NOT IN ({marks}) ORDER BY 1, 2",
            _SYSTEM,
        )
        found += [("table", _text(s), None, _text(t)) for s, t in cursor.fetchall()]
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS "
            f"WHERE TABLE_SCHEMA NOT IN ({marks}) ORDER BY 1, 2, ORDINAL_POSITION",
            _SYSTEM,
        )
        found += [("column", _text(s), _text(t), _text(c)) for s, t, c in cursor.fetchall()]
        cursor.execute(
            "SELECT ROUTINE_SCHEMA, ROUTINE_NAME FROM information_schema.ROUTINES "
            f"WHERE ROUTINE_SCHEMA NOT IN ({marks}) ORDER BY 1, 2",
            _SYSTEM,
        )
        found += [("routine", _text(s), None, _text(r)) for s, r in cursor.fetchall()]
    return found


def read_identifiers(connection: ServerConnection, limit: int = MAX_PROBES) -> list[Identifier]:
    """The schema's names (schema_names) each with how the captured server parses it (module
    docstring); one probe per distinct (kind, lower-case name), at most `limit`."""
    asked: dict[tuple[str, str], str | None] = {}
    out: list[Identifier] = []
    for kind, schema, table, name in schema_names(connection):
        key = (kind, name.lower())
        if not bare(name):
            out.append(Identifier(kind=kind, schema_name=schema, table=table, name=name, old="quoted"))
            continue
        if key not in asked:
            if len(asked) >= limit:
                out.append(
                    Identifier(kind=kind, schema_name=schema, table=table, name=name, old="not_probed")
                )
                continue
            asked[key] = parse_error(connection, kind, name)
        words = asked[key]
        out.append(
            Identifier(
                kind=kind,
                schema_name=schema,
                table=table,
                name=name,
                old="fails" if words else "parses",
                words=words or "",
            )
        )
    return out


def _text(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)
