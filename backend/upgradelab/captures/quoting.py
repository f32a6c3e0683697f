"""A word the new version's parser reserves, standing unquoted as a name in the team's SQL: quoted
where it stands and the statement asked again, word after word, until the new server takes it
(captures/schema_load.py for the schema's statements, captures/statement_parse.py for the captured
ones). The word is the one a parse refusal's "near '...'" starts with, asked of the new parser
first (`NewServer.reserved`: the word unquoted as a column); it is quoted wherever it stands as a
name (captures/sql_text.py bare_places: not after a `.`, not before `(`, not in strings or
comments). When the server takes the statement, the action says where to quote and that it was
tried; a word quoted in vain is kept only if the captured schema names it (a table, column or
routine the team called so), never a keyword the statement needs (`SYSTEM` of WITH SYSTEM
VERSIONING).
"""

from collections.abc import Callable
from dataclasses import dataclass

import pymysql
from pydantic import BaseModel

from upgradelab.captures.refusals import classify, words_of
from upgradelab.captures.sql_text import bare_places, near_text, near_word, quoted

MAX_QUOTED_WORDS = 8  # words quoted one after the other in one statement


class QuotedWord(BaseModel):
    """A word the new server reserves standing unquoted as a name: the statement's `lines`
    (1-based, one per place) where it stands."""

    word: str
    lines: list[int]


Run = Callable[[str], None]


@dataclass(frozen=True)
class NewServer:
    """The new version as the trial asks it: its `name` (the check's target, as actions say it),
    `flavor` (mysql, mariadb), `reserved(word)` (its parser does not take `word` unquoted as a
    name) and the captured schema's `names` (lower case: tables, columns, routines)."""

    name: str
    flavor: str
    reserved: Callable[[str], bool]
    names: frozenset[str] = frozenset()


def quote_until_taken(
    run: Run, text: str, words: str, server: NewServer
) -> tuple[list[QuotedWord], bool, str]:
    """(words quoted, whether the server then took it, its last words) for a parse refusal: the
    word the parser stopped at quoted wherever it stands as a name, while the server reserves it
    and quoting moves the refusal on (module docstring). When the server still refuses the
    statement, only the quoted words that are the schema's `names` (server.names: a table, column or
    routine the team named so) are kept: another word quoted may be a keyword the statement needs
    (`SYSTEM` of WITH SYSTEM VERSIONING)."""
    quotes: list[QuotedWord] = []
    current, last = text, words
    for _ in range(MAX_QUOTED_WORDS):
        word = near_word(last)
        if word is None or any(q.word.lower() == word.lower() for q in quotes):
            break
        places = bare_places(current, word)
        if not places or not server.reserved(word):
            break
        attempt = quoted(current, word)
        try:
            run(attempt)
        except pymysql.MySQLError as error:
            code, again = words_of(error)
            unmoved = (near_text(again) or "").lower().startswith(f"`{word.lower()}`")
            if classify(code, again) != "parse" or unmoved:
                break  # quoting it changed nothing the parser cares for (or the rest is no parse error)
            quotes.append(QuotedWord(word=word, lines=[place.line for place in places]))
            current, last = attempt, again
            continue
        quotes.append(QuotedWord(word=word, lines=[place.line for place in places]))
        return quotes, True, ""
    kept = [q for q in quotes if q.word.lower() in server.names]  # not taken: the team's names only
    return kept, False, last if kept else words


def quote_action(quotes: list[QuotedWord], taken: bool, what: str, server: str, then: str) -> str:
    """'quote `qualify` in these 3 places (lines 2, 4, 7 of the statement) in <what>: <server> then
    takes it (tried)'; when the server still refused it, '...; then: <then>'."""
    places = "; ".join(
        f"`{q.word}` in {'these ' + str(len(q.lines)) + ' places' if len(q.lines) > 1 else 'this place'}"
        f" (line{'s' if len(q.lines) > 1 else ''} {', '.join(map(str, q.lines))} of the statement)"
        for q in quotes
    )
    if taken:
        return f"quote {places} in {what}: {server} then takes it (tried)"
    return f"quote {places} in {what}; then: {then}"
