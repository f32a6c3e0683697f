"""What a new server's refusal of the team's SQL means, and what to do about it (the check's schema
load, captures/schema_load.py, and statement parse, captures/statement_parse.py).

A refusal is the server's error: (code, message). Its class says whether it is a finding:

- `parse`: ER_PARSE_ERROR 1064, ER_SYNTAX_ERROR 1149: the new parser no longer takes the text;
- `lab`: what the lab's own way of asking causes, never the new version: a privilege the check's
  account does not hold (it holds only what a load needs, in the dump's databases), an empty
  statement (a comment to this server: MariaDB's `/*M!...*/` on MySQL), the prepared-statement
  protocol's own limits (ER_UNSUPPORTED_PS 1295);
- `missing`: an object the statement needs is not there (no such table, database or stored
  function): the dump does not hold it (a temporary table, a database left out) or its own
  statement was refused, which is that statement's finding;
- `refused`: anything else the new server says no to (an unknown engine, collation or native
  function, a feature it lacks): a finding.

Codes measured on the lab's MySQL 9.7, MariaDB 10.11 and 11.8 (tests/captures/test_schema_load.py).
"""

import re
from typing import Literal

import pymysql

from upgradelab.captures.sql_text import near_text

Refusal = Literal["parse", "lab", "missing", "refused"]
PARSE_CODES = frozenset({1064, 1149})
# ER_DBACCESS_DENIED, ER_ACCESS_DENIED, ER_TABLEACCESS_DENIED, ER_COLUMNACCESS_DENIED,
# ER_SPECIFIC_ACCESS_DENIED, ER_PROCACCESS_DENIED, ER_BINLOG_CREATE_ROUTINE_NEED_SUPER,
# ER_CANNOT_USER, ER_KILL_DENIED..., ER_EMPTY_QUERY, ER_UNSUPPORTED_PS, ER_NO_DB_ERROR
LAB_CODES = frozenset({1044, 1045, 1142, 1143, 1227, 1370, 1419, 1396, 1065, 1295, 1046, 3530})
# ER_NO_SUCH_TABLE, ER_BAD_DB_ERROR, ER_SP_DOES_NOT_EXIST (a stored one), ER_FK_CANNOT_OPEN_PARENT,
# ER_BAD_TABLE_ERROR (DROP of a table that is not there)
MISSING_CODES = frozenset({1146, 1049, 1305, 1824, 1051})
_MISSING_NAME = re.compile(
    r"(?:Table|table|database) '([^']+)'|(?:FUNCTION|PROCEDURE) (\S+) does not exist"
    r"|Unknown database '([^']+)'"
)


def classify(code: int | None, message: str, own_routines: frozenset[str] = frozenset()) -> Refusal:
    """The class of a refusal (module docstring). ER_SP_DOES_NOT_EXIST is `missing` only for a
    routine the dump itself defines (`own_routines`, lower case, unqualified): any other
    (`md5` on MySQL 9.7) is a native function the new version lacks, `refused`."""
    if code in PARSE_CODES:
        return "parse"
    if code in LAB_CODES or code is None:
        return "lab"
    if code == 1305:
        name = missing_name(message) or ""
        return "missing" if name.rsplit(".", 1)[-1].lower() in own_routines else "refused"
    if code in MISSING_CODES:
        return "missing"
    return "refused"


def missing_name(message: str) -> str | None:
    """The object a `missing` refusal names ("Table 'app.sv' doesn't exist" -> "app.sv"), else None."""
    found = _MISSING_NAME.search(message)
    return next((group for group in found.groups() if group), None) if found else None


def words_of(error: pymysql.MySQLError) -> tuple[int | None, str]:
    """(code, "ERROR <code>: <message>") of a server's error."""
    code = error.args[0] if error.args and isinstance(error.args[0], int) else None
    message = str(error.args[1]) if len(error.args) > 1 else str(error)
    return code, f"ERROR {code}: {message}" if code is not None else message


_FUNCTION = re.compile(r"FUNCTION (?:[^.' ]+\.)?([^' ]+) does not exist")
_ENGINE = re.compile(r"Unknown storage engine '([^']+)'")
_COLLATION = re.compile(r"Unknown (?:collation|character set): '([^']+)'")
_VARIABLE = re.compile(r"Variable '(\w+)' can't be set to the value of '([^']*)'")
_SEQUENCE = re.compile(r"\bSEQUENCE\b|\bNEXTVAL\s*\(|\bNEXT\s+VALUE\s+FOR\b|\bSETVAL\s*\(", re.I)
_VERSIONING = re.compile(r"\bSYSTEM\s+VERSIONING\b|\bFOR\s+SYSTEM_TIME\b|\bPERIOD\s+FOR\b", re.I)
# MariaDB's own column types (INET6 10.5+, UUID 10.7+, INET4 10.10+: refused by MySQL 9.7's parser)
_MARIADB_TYPES = {
    "uuid": "BINARY(16) with UUID_TO_BIN() (or CHAR(36))",
    "inet6": "VARBINARY(16) with INET6_ATON()",
    "inet4": "INT UNSIGNED with INET_ATON()",
}


def action_for(words: str, statement: str, server: str, flavor: str, name: str = "this statement") -> str:
    """One line saying what to do about a refusal the quoting did not settle: by what the server's
    `words` and the `statement` show (a sequence, system versioning, an engine, a collation, a
    native function, a sql_mode value), else to rewrite `name` ("table shop.t", or "this
    statement") for `server` (the new version, of `flavor` mysql or mariadb; its words beside)."""
    new_mysql = flavor == "mysql"
    if new_mysql and _SEQUENCE.search(statement) and "1064" in words:
        if name.startswith("sequence "):
            return (
                f"{server} has no sequences: replace {name} by an AUTO_INCREMENT column or a counter "
                "table (NEXTVAL()/NEXT VALUE FOR by LAST_INSERT_ID()) before the move"
            )
        return f"{server} has no sequences: rewrite {name} without them (AUTO_INCREMENT, LAST_INSERT_ID())"
    if new_mysql and _VERSIONING.search(statement) and "1064" in words:
        if name.startswith("table "):
            return (
                f"{server} has no system-versioned tables: drop the versioning of {name} (ALTER TABLE ... "
                "DROP SYSTEM VERSIONING) and keep its history in a table of its own before the move"
            )
        return f"{server} has no system-versioned tables: rewrite {name} without FOR SYSTEM_TIME"
    near = " ".join((near_text(words) or "").split())
    first = near.split(None, 1)[0].strip("`(),").lower() if near else ""
    if new_mysql and "1064" in words and first in _MARIADB_TYPES:
        return (
            f"{server} has no {first.upper()} column type: change it in {name} to "
            f"{_MARIADB_TYPES[first]} before the move"
        )
    if _ENGINE.search(words):
        return f"convert {name} to an engine {server} has (ALTER TABLE ... ENGINE=InnoDB) before the move"
    if collation := _COLLATION.search(words):
        return f"{server} has no {collation.group(1)!r}: give {name} a character set and collation it has"
    if function := _FUNCTION.search(words):
        return (
            f"{server} has no function {function.group(1)}(): rewrite {name} with one it has "
            "(e.g. SHA2(x, 256) for MD5/SHA1) before the move"
        )
    if variable := _VARIABLE.search(words):
        return (
            f"{server} refuses {variable.group(1)} value {variable.group(2)!r}: recreate the objects "
            f"created under it (listed) under a {variable.group(1)} without it"
        )
    if near:
        return f"rewrite {name} where {server}'s parser stops: near `{near[:60]}`"
    return f"rewrite {name} so {server} takes it (its words beside)"
