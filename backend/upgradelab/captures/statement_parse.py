"""The team's captured statements asked of both parsers, never executed: PREPARE, nothing else.

Each captured digest with a text (captures/digests.py: a sample, a statement from the history, or
the digest text with `?` for its literals and `(...)` for its lists, which is asked with `(?)`, a
VALUES row with one `?` per column listed (sql_text.py rows_sized), and with a word's `(` joined to
it, `COUNT(*)` where the server printed `COUNT ( * )`: as printed, a built-in's name before a space
reads as a stored function's, sql_text.py calls_joined) is asked twice:

- by the capture, of the captured server (`ask_old`): `PREPARE upgradelab_parse FROM <text>` (the
  text a bound parameter: data) in the digest's schema, then DEALLOCATE. "prepared": it parsed and
  its names resolved; "parses": it parsed but stopped at a privilege or a missing object (the
  capture's account reads only; its words kept); "fails": its own server does not parse it (a
  digest text's normalization, a cut text): it is never asked of the new one; "not_asked": the
  server does not prepare such a statement (ER_UNSUPPORTED_PS) or the bound ended it;
- by the check, of the new version's scratch instance with the captured schema loaded
  (`parse_statements`, after captures/schema_load.py), as the check's account, in the digest's
  schema, under the team's sql_mode less the values the new version refuses. Where PREPARE cannot
  take a statement the new version still parses (ER_UNSUPPORTED_PS), EXPLAIN asks for its plan
  instead, on the scratch instance only and only for a text without `?` (EXPLAIN runs nothing).

A refusal on the new version is a "no longer parses" finding when the old server took the same
text: a parse refusal when it parsed there; another refusal (a native function the new version
lacks, an unknown column) when it prepared there, or when the digest ran without an error there at
least once (SUM_ERRORS below COUNT_STAR). A refusal for the lab's reason, or for a table whose own
statement the new version refused (that load finding lists it: "also"), or that the dump does not
hold (a temporary table), is no finding: counted in the summary with its reason. A parse refusal
near a word the new version reserves is asked again with the word quoted (schema_load's quoting),
so the action says where to quote and that the new parser then takes it.

Every statement is bounded (targets/statement_timeout.py: MariaDB's max_statement_time and a KILL
QUERY watchdog); a prepared statement is deallocated at once.

One concept: a captured statement's question to both parsers, and what each answer means.
"""

import logging
import re
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Literal

import pymysql
from pydantic import BaseModel

from upgradelab.captures.digests import Digest, Workload
from upgradelab.captures.quoting import NewServer, QuotedWord, quote_action, quote_until_taken
from upgradelab.captures.refusals import action_for, classify, missing_name, words_of
from upgradelab.captures.schema_load import Loaded
from upgradelab.captures.sql_text import calls_joined, first_word, rows_sized, tokens
from upgradelab.captures.workload_problems import WorkloadProblem
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint
from upgradelab.targets.statement_timeout import StatementBound, StatementTimedOut

log = logging.getLogger(__name__)

STATEMENT_NAME = "upgradelab_parse"
PREPARE = f"PREPARE {STATEMENT_NAME} FROM %s"
DEALLOCATE = f"DEALLOCATE PREPARE {STATEMENT_NAME}"
PARSE_TIMEOUT_S = 10.0  # one PREPARE (a parse and name resolution: milliseconds)
SHOWN_CHARS = 2000
UNSUPPORTED_PS = 1295
WRONG_VALUE_COUNT = 1136  # ER_WRONG_VALUE_COUNT_ON_ROW
_LIST = re.compile(r"\(\s*\.\.\.\s*\)")
_EXPLAINABLE = frozenset({"SELECT", "WITH", "TABLE", "INSERT", "UPDATE", "DELETE", "REPLACE"})


class ParseFinding(BaseModel):
    """A captured statement the new version refuses and the old one took: its `digest`, schema,
    the `sample` asked (cut at SHOWN_CHARS) and where it came from (`text_source`), its
    `executions`, `asked` how (prepare, explain), the server's `words`; `quoted` the words that,
    quoted, make the new parser take it (`parses_quoted`: tried and taken); `action`."""

    digest: str | None
    schema_name: str | None
    sample: str
    text_source: str
    executions: int
    asked: Literal["prepare", "explain"]
    words: str
    quoted: list[QuotedWord] = []
    parses_quoted: bool = False
    action: str = ""


class NotAsked(BaseModel):
    """Digests not asked of the new version, or asked and not judged, for one `reason`: `count`."""

    reason: str
    count: int


class ParseSummary(BaseModel):
    """The statements' parse: `digests` captured, `asked` of the new version, `parses` there,
    `refused` (findings), `folded` (refused for a table whose own statement was refused: listed
    under that load finding), `not_asked` by reason, `error` when none could be asked; the captured
    workload's `workload_problems`, whether it is `empty`, its digests a replay runs (`replayable`,
    None: not counted) (captures/digests.py Workload), so a check says why it asked few or none."""

    digests: int = 0
    asked: int = 0
    parses: int = 0
    refused: int = 0
    folded: int = 0
    not_asked: list[NotAsked] = []
    error: str | None = None
    workload_problems: list[WorkloadProblem] = []
    empty: bool = False
    replayable: int | None = None


def parse_text(digest: Digest) -> str | None:
    """The text a parser is asked for `digest`: its text without a trailing `;`; a digest text's
    `(...)` as `(?)` (a VALUES row: one `?` a column listed, rows_sized) and its calls joined
    (`SUM ( k )` as `SUM( k )`, calls_joined: without IGNORE_SPACE the text as printed calls a stored
    function `SUM`: ERROR 1630 "FUNCTION shop.SUM does not exist" on 10.11, 11.8 and 9.7, or does not
    parse, `COUNT ( * )`); None when there is none or it was cut (digests.py MAX_TEXT_CHARS)."""
    if digest.truncated:
        return None
    text = digest.text.strip().rstrip(";").strip()
    if digest.text_source == "digest_text":
        text = _LIST.sub("(?)", rows_sized(calls_joined(text)))
    return text or None


def prepare_refusal(bound: StatementBound, text: str) -> pymysql.MySQLError | None:
    """None when the server prepares `text` (then deallocated), else its error."""
    try:
        bound.run(PREPARE, (text,))
    except pymysql.MySQLError as error:
        return error
    bound.run(DEALLOCATE)
    return None


def _prepare(bound: StatementBound, text: str) -> tuple[int | None, str] | None:
    """None when the server prepares `text`, else its (code, words)."""
    error = prepare_refusal(bound, text)
    return None if error is None else words_of(error)


def use_database(bound: StatementBound, schema: str | None) -> None:
    """The digest's schema as the default database (COM_INIT_DB: the name is data), when it exists."""
    if schema:  # not there or not readable: its names then resolve (or not) without it
        with suppress(pymysql.MySQLError):
            bound.connection.select_db(schema)


def ask_old(bound: StatementBound, workload: Workload, default: str | None = None) -> None:
    """Ask the captured server's parser each digest's parse_text (module docstring) and keep the
    answer on the digest (`old_parse`, `old_words`), in the digest's schema or, for one without, in
    `default` (the connection's default database is left as the last one: the caller's own
    connection for this)."""
    for digest in workload.digests:
        text = parse_text(digest)
        if text is None:
            continue
        use_database(bound, digest.schema_name or default)
        try:
            answer = _prepare(bound, text)
        except StatementTimedOut as timed_out:
            digest.old_parse, digest.old_words = "not_asked", str(timed_out)
            continue
        if answer is None:
            digest.old_parse = "prepared"
            continue
        code, words = answer
        refusal = classify(code, words)
        digest.old_words = words
        if code == UNSUPPORTED_PS:
            digest.old_parse = "not_asked"
        else:
            digest.old_parse = "fails" if refusal == "parse" else "parses"


def ask_old_server(endpoint: Endpoint, workload: Workload, flavor: str) -> None:
    """ask_old on a connection of its own to the captured server at `endpoint` (the capture's
    account), each PREPARE within PARSE_TIMEOUT_S; a server that cannot be reached leaves the
    digests not asked (logged)."""
    if not any(parse_text(digest) for digest in workload.digests):
        return
    on_captured_server(
        endpoint,
        flavor,
        PARSE_TIMEOUT_S,
        lambda bound: ask_old(bound, workload, endpoint.database),
        "the captured statements' parse on their server",
    )


def on_captured_server(
    endpoint: Endpoint, flavor: str, seconds: float, work: Callable[[StatementBound], object], what: str
) -> None:
    """`work` on a connection of its own to the captured server at `endpoint` (the capture's
    account), every statement within `seconds` (targets/statement_timeout.py); a server that cannot
    be reached, or an error that stops `work`, is logged with `what` and leaves the rest as it is."""
    try:
        connection = endpoint.connect(read_timeout_s=seconds + ADMIN_READ_TIMEOUT_S)
    except pymysql.MySQLError as error:
        log.warning("%s: not started: %s", what, error)
        return
    try:
        admin = partial(endpoint.connect, read_timeout_s=ADMIN_READ_TIMEOUT_S)
        bound = StatementBound(connection, seconds, flavor, admin)
        bound.apply()
        work(bound)
    except pymysql.MySQLError as error:
        log.warning("%s: stopped: %s", what, error)
    finally:
        connection.close()


def _placeholders(text: str) -> bool:
    return any(token.kind == "other" and token.text == "?" for token in tokens(text))


def parse_statements(
    bound: StatementBound,
    workload: Workload,
    loaded: Loaded,
    server: NewServer,
    default: str | None = None,
) -> tuple[list[ParseFinding], ParseSummary]:
    """Ask the new version's parser each captured statement the old one took (module docstring),
    on `bound`'s connection (the check's account, the schema `loaded`), in the digest's schema or,
    for one without, in `default` (a database of the dump: an unqualified function name resolves in
    some database, as it did on the old server); `server`: the new version as findings say it."""
    summary = ParseSummary(digests=len(workload.digests))
    skipped: Counter[str] = Counter()
    found: list[ParseFinding] = []
    for digest in workload.digests:
        text = parse_text(digest)
        reason = _not_asked(digest, text)
        if reason is not None or text is None:
            skipped[reason or "no text"] += 1
            continue
        summary.asked += 1
        use_database(bound, digest.schema_name or default)
        try:
            answer, asked = _ask_new(bound, text)
        except StatementTimedOut:
            skipped["the new version's parse ran past its bound"] += 1
            continue
        if answer is None:
            summary.parses += 1
            continue
        code, words = answer
        refusal = classify(code, words, loaded.own_routines)
        if refusal == "missing":
            cause = loaded.refused_names.get((missing_name(words) or "").lower())
            if cause is not None:
                summary.folded += 1
                cause.also.append(f"needed by captured statement {_label(digest)}: {words}")
            else:
                skipped[f"needs {missing_name(words) or 'an object'} which the dump does not hold"] += 1
            continue
        unsized = code == WRONG_VALUE_COUNT and digest.text_source == "digest_text"  # `VALUES (?)`
        if refusal == "lab" or (refusal == "refused" and not _ran_on_old(digest)) or unsized:
            skipped[_lab_reason(code, refusal)] += 1
            continue
        summary.refused += 1
        found.append(_finding(bound, digest, text, asked, words, refusal, server))
    summary.not_asked = [NotAsked(reason=reason, count=count) for reason, count in skipped.most_common()]
    return found, summary


def _not_asked(digest: Digest, text: str | None) -> str | None:
    """Why `digest` is not asked of the new version, or None."""
    if text is None:
        return "no whole text captured (empty or cut)"
    if digest.old_parse in ("fails", "not_asked"):
        return "its own server did not parse or prepare this text (a digest text's normalization, a cut text)"
    if digest.old_parse is None and digest.text_source == "digest_text":
        return "only its digest text, not asked of its own server (a capture made before this check)"
    return None


def _ran_on_old(digest: Digest) -> bool:
    """Whether the old server took `digest` whole: prepared there, or executed without an error."""
    ran = digest.errors is not None and digest.errors < digest.executions
    return digest.old_parse == "prepared" or ran


def _lab_reason(code: int | None, refusal: str) -> str:
    if code == UNSUPPORTED_PS:
        return "the new version does not prepare this kind of statement, nor EXPLAIN it"
    if code == WRONG_VALUE_COUNT:
        return "a digest text's row of values `(...)` with no column list: its count is not known"
    if refusal == "refused":
        return "refused by the new version, not known to have run whole on its own server (its account reads)"
    return "the lab's account or protocol, not the new version (a privilege, no default database)"


def _ask_new(
    bound: StatementBound, text: str
) -> tuple[tuple[int | None, str] | None, Literal["prepare", "explain"]]:
    """The new server's answer to PREPARE, or to EXPLAIN where PREPARE cannot take the statement."""
    answer = _prepare(bound, text)
    if answer is None or answer[0] != UNSUPPORTED_PS:
        return answer, "prepare"
    if first_word(text) not in _EXPLAINABLE or _placeholders(text):
        return answer, "prepare"
    try:
        bound.run(f"EXPLAIN {text}")
    except pymysql.MySQLError as error:
        return words_of(error), "explain"
    return None, "explain"


def _label(digest: Digest) -> str:
    return f"{(digest.digest or 'no digest')[:16]} ({digest.executions} executions)"


def _finding(
    bound: StatementBound,
    digest: Digest,
    text: str,
    asked: Literal["prepare", "explain"],
    words: str,
    refusal: str,
    server: NewServer,
) -> ParseFinding:
    """The finding of a refused statement, its quotes tried (a parse refusal) and its action."""
    quotes: list[QuotedWord] = []
    taken, last = False, words
    if refusal == "parse" and asked == "prepare":

        def run(sql: str) -> None:
            error = prepare_refusal(bound, sql)
            if error is not None:
                raise error

        quotes, taken, last = quote_until_taken(run, text, words, server)
    what = "this statement"
    action = (
        quote_action(
            quotes, taken, what, server.name, action_for(last, text, server.name, server.flavor, what)
        )
        if quotes
        else action_for(words, text, server.name, server.flavor, what)
    )
    return ParseFinding(
        digest=digest.digest,
        schema_name=digest.schema_name,
        sample=text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + " ... (cut)",
        text_source=digest.text_source,
        executions=digest.executions,
        asked=asked,
        words=words,
        quoted=quotes,
        parses_quoted=taken,
        action=action,
    )
