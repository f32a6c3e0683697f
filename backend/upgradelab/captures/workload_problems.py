"""Why a captured workload is empty or holds statements a replay cannot run, and what to change on
the team's server: each a WorkloadProblem (what was seen, and the fix in one line: the setting,
the consumer to enable, the grant to add, the history size).

What the server keeps, by what it says of itself (fixed statements only, each allowed to fail):
- `performance_schema` OFF (MariaDB's default): no digest at all; a startup option;
- the digest summary unreadable: its words, and the grant the capture's account needs;
- the `statements_digest` (or `global_instrumentation`) consumer off, or no `statement/%`
  instrument enabled: no digest is kept;
- no statement text: MySQL keeps a sample per digest (QUERY_SAMPLE_TEXT); MariaDB keeps none, and
  its statements come from the history tables, which hold statements only with the
  `events_statements_current` and `events_statements_history_long` (or `_history`) consumers on
  (MariaDB's defaults have all three off): the digests are then "digest text only", replayed
  only with values the capture reads from their columns (captures/digest_values.py);
  with them on, a digest whose statements left the history before the capture (its size,
  `performance_schema_events_statements_history_long_size`) has no text either: said when such
  digests carry at least MIN_UNREPLAYABLE_SHARE of the executions (a statement run once, long
  before, is no gap in the workload a replay runs);
- the summary full: digests past `performance_schema_digests_size` are counted in one row without a
  digest, their statements lost;
- nothing ran since the summary was reset (or since the server started).
"""

from typing import Any

import pymysql
from pydantic import BaseModel

from upgradelab.targets.provisioners.base import ServerConnection

_CONSUMERS = (
    "global_instrumentation",
    "statements_digest",
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
)
_ENABLE = "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ({})"
MIN_UNREPLAYABLE_SHARE = 0.01  # of the executions, in digests without a text, for the history's size


class WorkloadProblem(BaseModel):
    """Why the workload could not be read whole: `code` (performance_schema_off, not_readable,
    consumer_off, instruments_off, no_history, history_too_small, digests_full, nothing_ran),
    `words` (what the server showed) and `fix` (one line: what to change, then capture again)."""

    code: str
    words: str
    fix: str


class Instrumentation(BaseModel):
    """What the server says of its statement instrumentation: its `consumers` {name: YES/NO}
    (empty: not readable), `statement_instruments` enabled and timed (None: not readable) and the
    capture's account (`user`, CURRENT_USER())."""

    consumers: dict[str, str] = {}
    statement_instruments: int | None = None
    user: str = ""


def read_instrumentation(connection: ServerConnection) -> Instrumentation:
    """The consumers, statement instruments and account of the captured server (fixed reads; a read
    the account may not make is left empty)."""
    found = Instrumentation()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT CURRENT_USER()")
            found.user = str((cursor.fetchone() or [""])[0])
            marks = ", ".join(f"'{name}'" for name in _CONSUMERS)  # fixed names
            cursor.execute(
                f"SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN ({marks})"
            )
            found.consumers = {str(name): str(enabled).upper() for name, enabled in cursor.fetchall()}
            cursor.execute(
                "SELECT COUNT(*), COALESCE(SUM(ENABLED = 'YES' AND TIMED = 'YES'), 0) "
                "FROM performance_schema.setup_instruments WHERE NAME LIKE %s",
                ("statement/%",),
            )
            row = cursor.fetchone()
            found.statement_instruments = int(row[1]) if row else None
    except pymysql.MySQLError:
        pass  # what was read stands; the rest is unknown
    return found


def problems(
    variables: dict[str, str],
    seen: Instrumentation,
    *,
    digests: int,
    with_text: int,
    lost_rows: int,
    samples: bool,
    error: str | None,
    without_share: float = 1.0,
) -> list[WorkloadProblem]:
    """The problems of a workload read from a server whose SHOW GLOBAL VARIABLES were `variables`
    (names as the server gives them) and whose instrumentation `seen`: `digests` read, `with_text`
    of them with a statement's text (a sample or the history), `lost_rows` rows of digests past the
    summary's size, `samples` (the server has QUERY_SAMPLE_TEXT), `error` (the summary unreadable),
    `without_share` the executions' share in the digests without a text (0..1)."""
    lowered = {name.lower(): value for name, value in variables.items()}
    if lowered.get("performance_schema", "ON").upper() in ("OFF", "0"):
        return [
            WorkloadProblem(
                code="performance_schema_off",
                words="performance_schema is OFF on this server: it keeps no statement digests",
                fix="set performance_schema=ON in [mysqld] (a restart), let the workload run, capture again",
            )
        ]
    if error is not None:
        account = seen.user or "the capture's account"
        return [
            WorkloadProblem(
                code="not_readable",
                words=error,
                fix=f"GRANT SELECT ON performance_schema.* TO {account}, then capture again",
            )
        ]
    found: list[WorkloadProblem] = []
    off = [
        name for name in ("global_instrumentation", "statements_digest") if seen.consumers.get(name) == "NO"
    ]
    if off:
        found.append(_consumers_off(off, "no statement digest is kept"))
    if seen.statement_instruments == 0:
        found.append(
            WorkloadProblem(
                code="instruments_off",
                words="no statement/% instrument is enabled and timed: no statement is counted",
                fix="UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' "
                "WHERE NAME LIKE 'statement/%' "
                "(or performance-schema-instrument='statement/%=ON' in [mysqld])",
            )
        )
    if digests == 0 and not found:
        found.append(
            WorkloadProblem(
                code="nothing_ran",
                words="the digest summary holds no statement of the team's (reset, or none ran since start)",
                fix="let the workload run on this server (after any TRUNCATE of the summary), capture again",
            )
        )
    if digests > with_text and not samples:
        found += _history(lowered, seen, digests - with_text, digests, without_share)
    if lost_rows:
        size = lowered.get("performance_schema_digests_size", "?")
        found.append(
            WorkloadProblem(
                code="digests_full",
                words=f"the digest summary is full (performance_schema_digests_size = {size}): statements "
                "of new digests were counted without their digest and are lost to the capture",
                fix="raise performance_schema_digests_size in [mysqld] (a restart), then capture again",
            )
        )
    return found


def _consumers_off(names: list[str], what: str) -> WorkloadProblem:
    listed = ", ".join(f"'{name}'" for name in names)
    options = " and ".join(f"performance-schema-consumer-{name.replace('_', '-')}=ON" for name in names)
    return WorkloadProblem(
        code="consumer_off",
        words=f"performance_schema consumer{'s' if len(names) > 1 else ''} {listed} off: {what}",
        fix=f"{_ENABLE.format(listed)} (or {options} in [mysqld]), let the workload run, then capture again",
    )


def _history(
    lowered: dict[str, str], seen: Instrumentation, without: int, digests: int, share: float
) -> list[WorkloadProblem]:
    """Digests without a statement's text on a server without samples (MariaDB): the history's
    consumers off, or its size too small (when they carry `share` >= MIN_UNREPLAYABLE_SHARE of the
    executions)."""
    needed = ["events_statements_current", "events_statements_history_long"]
    history_on = seen.consumers.get("events_statements_history_long") == "YES" or (
        seen.consumers.get("events_statements_history") == "YES"
    )
    off = [name for name in needed if seen.consumers.get(name) != "YES"]
    if off and not (history_on and seen.consumers.get("events_statements_current") == "YES"):
        return [
            _consumers_off(
                off,
                f"{without} of {digests} digests have only their digest text (no statement kept: "
                "replayed only with values the lab reads from their columns, where it can bind them)",
            )
        ]
    if share < MIN_UNREPLAYABLE_SHARE:
        return []
    size = lowered.get("performance_schema_events_statements_history_long_size", "?")
    return [
        WorkloadProblem(
            code="history_too_small",
            words=f"{without} of {digests} digests ({100 * share:.0f} % of the executions) had left the "
            f"history before the capture (performance_schema_events_statements_history_long_size = {size})",
            fix="raise performance_schema_events_statements_history_long_size in [mysqld] (a restart), "
            "or capture right after the workload ran",
        )
    ]


def counts(rows: list[dict[str, Any]]) -> int:
    """The rows of digests past the summary's size (DIGEST NULL) among summary rows."""
    return sum(1 for row in rows if row.get("DIGEST") is None and int(row.get("COUNT_STAR") or 0) > 0)
