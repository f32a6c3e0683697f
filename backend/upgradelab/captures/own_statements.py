"""The lab's own statements among a captured server's digests: left out of the workload, and counted.

A capture reads `performance_schema.events_statements_summary_by_digest`, and the lab has talked to
that server before it reads it: the target's capability check when it was added (targets/
capabilities.py), the capture's own reads (captures/reading.py, identifiers.py, dump.py), the name
probes and the dump client it runs, and every earlier capture of the same server. Those are not the
team's workload; replayed, they would measure the lab.

Why by digest text and not by account: the summary is kept per (schema, digest) only. MariaDB 10.11 /
11.8 and MySQL 9.7 have no per-account digest table (their statement summaries by account, user, host
and thread are by event name, not by digest: checked in the binaries' table names), and the history
tables that name a thread hold only the newest statements, and only where their consumers are on
(MariaDB's defaults have them off). So who ran a digest cannot be read; what the lab sends is a fixed
set of shapes, and each is matched here against the server's DIGEST_TEXT, normalized (case,
backticks and spacing differ between flavors and versions). A team statement of the very same shape
(its own `SHOW GLOBAL VARIABLES`, its own mysqldump's reads) is left out with them: the digest cannot
tell them apart. Nothing disappears silently: the capture keeps the count of digests and executions
left out and their digest texts (captures/digests.py Workload.lab_digests, lab_executions, lab_texts).

The shapes: the lab's code's statements (its connector's `SET NAMES`, every fixed text those modules
send); the dump client's, measured on MariaDB 10.11's mariadb-dump (a capture after a capture of the
team's server in tests/captures) and on MySQL 9.7's mysqldump (the lab's reads and a dump, twice, on
the lab's mysql-9.7: every statement but the test's own matched; its `USE db`, `SHOW TABLES` and
`FLUSH LOCAL TABLES` are common words a team's client may send too, left out with them);
information_schema.FILES and COLUMN_STATISTICS reads of older mysqldumps from its source.
"""

import re
from typing import Any

_ID = r"\S+"  # one identifier as the digest prints it (backticks dropped)
_SHAPES = [
    # the connector (PyMySQL sends it on every connection) and the capability check of targets
    r"SET NAMES \S+",
    r"SELECT VERSION \( \) , @@VERSION_COMMENT( , CURRENT_USER \( \))?",
    r"SHOW GLOBAL VARIABLES( WHERE VARIABLE_NAME IN \(\.\.\.\)| LIKE \?)?",
    r"SHOW GLOBAL STATUS LIKE \?",
    r"SHOW GRANTS",
    r"SET GLOBAL MAX_CONNECT_ERRORS = @@GLOBAL \. MAX_CONNECT_ERRORS",
    r"ALTER INSTANCE ENABLE INNODB REDO_LOG",
    r"SELECT COUNT \( \* \) , COALESCE \( SUM \( ENABLED = \? AND TIMED = \? \) , \? \) "
    r"FROM PERFORMANCE_SCHEMA \. SETUP_INSTRUMENTS WHERE NAME LIKE \?",
    r"SELECT NAME , ENABLED FROM PERFORMANCE_SCHEMA \. SETUP_CONSUMERS WHERE NAME IN \(\.\.\.\)",
    rf"(CREATE TABLE|DROP TABLE IF EXISTS) {_ID} \. UPGRADELAB_CAPABILITY_CHECK\b.*",
    # the capture's reads (captures/reading.py, identifiers.py, dump.py); MariaDB prints `User` as
    # SYSTEM_USER in a digest (measured on 10.11)
    r"SELECT (SYSTEM_)?USER , HOST , PLUGIN( , (IS_ROLE|\?) , (ACCOUNT_LOCKED|\?))? FROM MYSQL \. USER "
    r"ORDER BY (SYSTEM_)?USER , HOST",
    r"SELECT (SYSTEM_)?USER , HOST FROM MYSQL \. GLOBAL_PRIV WHERE JSON_VALUE \( PRIV , \? \) IN \(\.\.\.\)",
    r"SELECT VARIABLE_NAME , (GLOBAL_VALUE_ORIGIN FROM INFORMATION_SCHEMA \. SYSTEM_VARIABLES|"
    r"VARIABLE_SOURCE FROM PERFORMANCE_SCHEMA \. VARIABLES_INFO)",
    r"SELECT \* FROM PERFORMANCE_SCHEMA \. EVENTS_STATEMENTS_SUMMARY_BY_DIGEST "
    r"ORDER BY COUNT_STAR DESC LIMIT \?",
    r"SELECT DIGEST , SQL_TEXT FROM PERFORMANCE_SCHEMA \. EVENTS_STATEMENTS_HISTORY(_LONG)? "
    r"WHERE DIGEST IN .*",
    r"SELECT TABLE_SCHEMA , TABLE_NAME( , COLUMN_NAME)? FROM INFORMATION_SCHEMA \. (TABLES|COLUMNS) "
    r"WHERE TABLE_SCHEMA NOT IN \(\.\.\.\) ORDER BY .*",
    r"SELECT ROUTINE_SCHEMA , ROUTINE_NAME FROM INFORMATION_SCHEMA \. ROUTINES "
    r"WHERE ROUTINE_SCHEMA NOT IN \(\.\.\.\) ORDER BY .*",
    r"SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA \. SCHEMATA ORDER BY SCHEMA_NAME",
    r"SELECT TABLE_SCHEMA , TABLE_NAME , COALESCE \( DATA_LENGTH , \? \) FROM INFORMATION_SCHEMA \. TABLES "
    r"WHERE TABLE_TYPE = \? AND TABLE_SCHEMA IN .*",
    # the workload's problems (workload_problems.py: the account; the consumers and instruments are
    # the capability check's shapes) and the statements asked of the parser (statement_parse.py:
    # PREPARE under a fixed name, its bound's session limit and watchdog)
    r"SELECT CURRENT_USER \( \)",
    # the digest texts' values (digest_values.py VALUE_READ: one value of a column)
    rf"SELECT {_ID} FROM {_ID} \. {_ID} WHERE {_ID} IS NOT NULL LIMIT \?",
    r"PREPARE UPGRADELAB_PARSE FROM \?",
    r"DEALLOCATE PREPARE UPGRADELAB_PARSE",
    r"SET SESSION MAX_STATEMENT_TIME = \?",
    r"KILL QUERY \?",
    # the name probes (identifiers.PROBES): a table, a column, a routine
    rf"SELECT \? FROM {_ID} WHERE \? = \?",
    rf"SELECT {_ID}( \( \))? FROM DUAL WHERE \? = \?",
    # the dump client (mariadb-dump, measured; mysqldump from its source)
    r"SET SESSION CHARACTER_SET_RESULTS = \?",
    r"SET (OPTION )?SQL_QUOTE_SHOW_CREATE = \?",
    r"SELECT @@COLLATION_DATABASE",
    r"SET @@SQL_MODE = \?",
    r"SET TIME_ZONE = \?",
    r"SET @@MAX_STATEMENT_TIME = \?",
    r"SET WAIT_TIMEOUT = DEFAULT",
    r"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
    r"START TRANSACTION WITH CONSISTENT SNAPSHOT",
    r"UNLOCK TABLES",
    r"(ROLLBACK TO |RELEASE )?SAVEPOINT SP",
    r"SHOW FULL TABLES",
    r"SHOW CREATE (SCHEMA|DATABASE|TABLE|VIEW|FUNCTION|PROCEDURE|TRIGGER|EVENT) .*",
    r"SHOW EVENTS",
    r"SHOW (FUNCTION|PROCEDURE|PACKAGE|PACKAGE BODY) STATUS WHERE DB = \?",
    rf"SELECT SQL_NO_CACHE .* FROM {_ID}",
    r"SELECT ENGINE , TABLE_TYPE FROM INFORMATION_SCHEMA \. TABLES "
    r"WHERE TABLE_SCHEMA = (SCHEMA|DATABASE) \( \) .*",
    r"SELECT COLUMN_NAME , EXTRA , GENERATION_EXPRESSION , DATA_TYPE FROM INFORMATION_SCHEMA \. COLUMNS .*",
    r"SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA \. TRIGGERS WHERE EVENT_OBJECT_SCHEMA = .*",
    r"SHOW (VARIABLES|TABLE STATUS|TRIGGERS) LIKE \?",
    # MySQL 9.7's mysqldump (measured)
    r"FLUSH LOCAL TABLES( WITH READ LOCK)?",
    r"SET SESSION NET_READ_TIMEOUT = \? , SESSION NET_WRITE_TIMEOUT = \?",
    r"SET SESSION INFORMATION_SCHEMA_STATS_EXPIRY = \?",
    r"SET @@SESSION \. TERMINOLOGY_USE_PREVIOUS = NONE",
    r"SELECT @@GLOBAL \. GTID_EXECUTED",
    r"SELECT POLICY_NAME FROM PERFORMANCE_SCHEMA \. COLUMN_MASKING_POLICY",
    r"SELECT LIBRARY_NAME FROM INFORMATION_SCHEMA \. LIBRARIES WHERE .*",
    r"SHOW TABLES",
    rf"USE {_ID}",
    r"SHOW (FULL )?FIELDS FROM .*",
    r"SELECT .* FROM INFORMATION_SCHEMA \. (FILES|COLUMN_STATISTICS) .*",
]
_OWN = re.compile("|".join(f"(?:{shape})" for shape in _SHAPES))


_QUOTED = re.compile(r"`((?:[^`]|``)*)`")
_WORD = re.compile(r"\w+")


def normalized(digest_text: str) -> str:
    """A DIGEST_TEXT as the shapes are written: upper case, single spaces, a quoted name without its
    backticks when it is one word, else as the one word QUOTED_NAME (a name may hold spaces)."""

    def name(quoted: re.Match[str]) -> str:
        return quoted.group(1) if _WORD.fullmatch(quoted.group(1)) else "QUOTED_NAME"

    return " ".join(_QUOTED.sub(name, digest_text).upper().split())


def is_own(digest_text: str | None) -> bool:
    """Whether a digest's DIGEST_TEXT is of a statement the lab (or the dump client it runs) sends;
    None (the summary's row of digests past its size) is never the lab's."""
    return digest_text is not None and _OWN.fullmatch(normalized(digest_text)) is not None


def split(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the team's rows, the lab's rows) of digest-summary rows (dicts by column name)."""
    team: list[dict[str, Any]] = []
    lab: list[dict[str, Any]] = []
    for row in rows:
        text = row.get("DIGEST_TEXT")
        if isinstance(text, bytes | bytearray):
            text = bytes(text).decode("utf-8", "replace")
        (lab if is_own(None if text is None else str(text)) else team).append(row)
    return team, lab
