"""A captured workload: the statement digests of `performance_schema.events_statements_summary_by_digest`
and the query set a replay takes, weighted by executions.

Each digest keeps the server's own numbers: COUNT_STAR (executions), SUM/AVG/MAX_TIMER_WAIT
(picoseconds, stored in seconds), QUANTILE_95/99 (MySQL 8.0.3+, picoseconds; None where the server has
no such column), rows sent and examined. Its statement text is, in this order of preference:

- "sample": QUERY_SAMPLE_TEXT (MySQL 8.0.3+): one statement as a client sent it;
- "history": SQL_TEXT of a statement of that digest in events_statements_history(_long) (MariaDB has
  no sample column; the history tables hold recent statements when their consumers are on, and
  events_statements_current with them: MariaDB's defaults have all three off);
- "digest_text": DIGEST_TEXT, the normalized form with `?` for literals: not executable as it is,
  marked and kept out of the query set.

Every text is data: it is stored and shown, never executed on the lab's host; a replay executes the
query set on lab servers only, through its own read-only filter (measurement/sources.py).
"""

from typing import Any, Literal

from pydantic import BaseModel

from upgradelab.captures.workload_problems import WorkloadProblem

TextSource = Literal["sample", "history", "digest_text"]
# how the captured server's parser took the text (captures/statement_parse.py ask_old)
OldParse = Literal["prepared", "parses", "fails", "not_asked"]
PICOSECONDS = 1e12
# a text longer than this is cut (and marked); the servers cut theirs at 1024 bytes by default
MAX_TEXT_CHARS = 65_536
MAX_LAB_TEXTS = 200  # digest texts kept of the lab's own statements left out (their count is whole)


class Digest(BaseModel):
    """One statement digest as captured (module docstring); `weight` = its executions / all
    executions captured; `truncated`: the text was cut at MAX_TEXT_CHARS; `errors`: SUM_ERRORS,
    its executions that ended in an error (None: a capture made before it was read);
    `old_parse` / `old_words`: how the captured server's parser took its text, asked by PREPARE
    (captures/statement_parse.py; None: not asked); `bound_text`: a digest text with its
    placeholders bound to values of the captured server's columns, the text a replay runs
    (captures/digest_values.py; None: not bound, or not a digest text)."""

    digest: str | None
    schema_name: str | None
    text: str
    text_source: TextSource
    digest_text: str | None
    executions: int
    weight: float
    total_s: float | None
    avg_s: float | None
    max_s: float | None
    p95_s: float | None
    p99_s: float | None
    rows_sent: int | None
    rows_examined: int | None
    truncated: bool = False
    errors: int | None = None
    old_parse: OldParse | None = None
    old_words: str = ""
    bound_text: str | None = None


class Workload(BaseModel):
    """The digests, most executed first; `executions` in all; `quantiles`: the server has
    QUANTILE_95/99; `samples`: it has QUERY_SAMPLE_TEXT; `error`: why the digests could not be read
    (performance_schema off, no privilege), with the server's words; `limit`: at most that many
    digests were read (the most executed); `lab_digests` / `lab_executions`: the lab's own
    statements among those read, left out of `digests` (captures/own_statements.py), `lab_texts`
    their digest texts (most executed first, at most MAX_LAB_TEXTS); `problems`: why it is empty
    or not all replayable, each with its fix (captures/workload_problems.py); `replayable`: the
    digests queries.sql holds; `empty`: it holds none, the capture succeeded without a workload
    (None / False on a capture made before they were read)."""

    digests: list[Digest]
    executions: int
    quantiles: bool
    samples: bool
    limit: int
    error: str | None = None
    lab_digests: int = 0
    lab_executions: int = 0
    lab_texts: list[str] = []
    problems: list[WorkloadProblem] = []
    replayable: int | None = None
    empty: bool = False


def _seconds(row: dict[str, Any], column: str) -> float | None:
    value = row.get(column)
    return None if value is None else int(value) / PICOSECONDS


def _int(row: dict[str, Any], column: str) -> int | None:
    value = row.get(column)
    return None if value is None else int(value)


def _text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)


def build(
    rows: list[dict[str, Any]], history: dict[str, str], limit: int, lab: list[dict[str, Any]] | None = None
) -> Workload:
    """The Workload of digest-summary rows (dicts by column name, as the server named them) and
    `history` {digest: SQL_TEXT}: texts chosen as the module docstring says, weights by executions
    (of these rows only); `lab`: the rows of the lab's own statements, counted and listed apart."""
    lab = lab or []
    columns = set(rows[0]) if rows else set(lab[0]) if lab else set()
    total = sum(int(row.get("COUNT_STAR") or 0) for row in rows)
    digests = []
    for row in rows:
        digest = row.get("DIGEST")
        digest_id = None if digest is None else _text(digest)
        sample = _text(row.get("QUERY_SAMPLE_TEXT")).strip()
        source: TextSource
        if sample:
            text, source = sample, "sample"
        elif digest_id is not None and history.get(digest_id, "").strip():
            text, source = history[digest_id].strip(), "history"
        else:
            text, source = _text(row.get("DIGEST_TEXT")), "digest_text"
        executions = int(row.get("COUNT_STAR") or 0)
        digests.append(
            Digest(
                digest=digest_id,
                schema_name=None if row.get("SCHEMA_NAME") is None else _text(row["SCHEMA_NAME"]),
                text=text[:MAX_TEXT_CHARS],
                text_source=source,
                digest_text=None if row.get("DIGEST_TEXT") is None else _text(row["DIGEST_TEXT"]),
                executions=executions,
                weight=executions / total if total else 0.0,
                total_s=_seconds(row, "SUM_TIMER_WAIT"),
                avg_s=_seconds(row, "AVG_TIMER_WAIT"),
                max_s=_seconds(row, "MAX_TIMER_WAIT"),
                p95_s=_seconds(row, "QUANTILE_95"),
                p99_s=_seconds(row, "QUANTILE_99"),
                rows_sent=_int(row, "SUM_ROWS_SENT"),
                rows_examined=_int(row, "SUM_ROWS_EXAMINED"),
                truncated=len(text) > MAX_TEXT_CHARS,
                errors=_int(row, "SUM_ERRORS"),
            )
        )
    digests.sort(key=lambda d: -d.executions)
    return Workload(
        digests=digests,
        executions=total,
        quantiles="QUANTILE_95" in columns,
        samples="QUERY_SAMPLE_TEXT" in columns,
        limit=limit,
        lab_digests=len(lab),
        lab_executions=sum(int(row.get("COUNT_STAR") or 0) for row in lab),
        lab_texts=[_text(row.get("DIGEST_TEXT")) for row in lab][:MAX_LAB_TEXTS],
    )


def replayable_text(digest: Digest) -> str | None:
    """The text of `digest` a replay runs, or None when it cannot: a digest text whose placeholders
    were not bound (`bound_text` None: captures/digest_values.py), a cut text, or a text holding `;`
    outside its end (the plain format would split it into statements nobody sent)."""
    if digest.truncated:
        return None
    if digest.text_source == "digest_text":
        if digest.bound_text is None:
            return None
        text = digest.bound_text.strip().rstrip(";").strip()
    else:
        text = digest.text.strip().rstrip(";").strip()
    return text if text and ";" not in text else None


def query_set(workload: Workload) -> str:
    """The replayable digests (replayable_text) as a plain SQL text a replay takes (measurement/sources.py
    "sql"): most executed first, each after a `-- digest D executions N weight W` comment line and a
    `USE schema;` when its schema is known."""
    lines = []
    for digest in workload.digests:
        text = replayable_text(digest)
        if text is None:
            continue
        bound = " (digest text, values read from its columns)" if digest.text_source == "digest_text" else ""
        lines.append(
            f"-- digest {digest.digest} executions {digest.executions} weight {digest.weight:.6f}{bound}"
        )
        if digest.schema_name and digest.schema_name.replace("_", "").isalnum():
            lines.append(f"USE `{digest.schema_name}`;")
        lines.append(f"{text};")
    return "\n".join(lines) + ("\n" if lines else "")


def count_replayable(workload: Workload) -> None:
    """`workload.replayable` and `empty` set from its digests as they are now (replayable_text)."""
    workload.replayable = sum(1 for one in workload.digests if replayable_text(one) is not None)
    workload.empty = workload.replayable == 0
