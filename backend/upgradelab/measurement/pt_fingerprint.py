"""Query classes as percona-toolkit writes them: pt-query-digest's fingerprint of a statement and its
class ID, so a class the lab reports is found in a team's pt-query-digest or pt-upgrade report.

The rules are percona-toolkit's (QueryRewriter::fingerprint, as pt-query-digest 3.2.1, Debian's
`percona-toolkit`, runs it), restated here and written for this module; the tests check them against
the installed pt-query-digest and pt-fingerprint (tests/replay/querylog/). pt's fingerprint is a
string rewrite, not a parse: its crude parts are kept on purpose, since the class ID is the MD5 of
the exact text. In order, on the statement as the log holds it (pt's `arg`):

1. Whole-statement classes, checked first: a mysqldump `SELECT /*!40001 SQL_NO_CACHE */ * FROM \\``
   is "mysqldump"; a statement holding a percona-toolkit checksum comment (`/*db.tbl:1/2*/`) is
   "percona-toolkit"; `administrator command: ...` stays as it is; `CALL name(...)` is
   "call name" (lower-cased, arguments dropped; only with the `(` right after the name).
2. A multi-row `INSERT|REPLACE [IGNORE] INTO ... VALUES (...), (...)` is cut after its first row.
3. Comments go: `/* ... */` unless it is a version comment (`/*!...*/`, which stays, its digits then
   `?`), then `--` or `#` up to the line's end (unless a quote follows on that line).
4. `USE db` alone is "use ?" (returned as is, not lower-cased past `use`).
5. Strings: every backslash-quote pair (`\\'`, `\\"`) is dropped, then each `"..."` and then each
   `'...'` (shortest, across lines) is `?`.
6. `true` and `false` (whole words, any case) are `?` (pt-query-digest; pt-fingerprint 3.2.1 keeps
   them: its copy of the rules predates this one, the one difference the tests find between them).
7. Anything that looks like a number is `?`: a digit, `+` or `-` and what follows of `0-9 a-f . x b
   + -` (lower case only: the text is not lower-cased yet), also inside names (`t1` -> `t?`,
   `a-b` -> `a?`); then `x?`, `b?`, `.?`, `+?`, `-?` are `?` (hex and bit strings, signs, decimals).
8. Leading whitespace and one trailing newline go, each run of space, tab, newline, return or
   form feed is one space, ASCII letters are lower-cased, `null` is `?`.
9. `in (...)`, `value(s) (...)` lists of `?` (and repeated `(...), (...)`) are `in(?+)` /
   `values(?+)`.
10. `select X union [all] select X ...` (the same select repeated) is `select X /*repeat union[ all]*/`.
11. The first `limit ?, ?` / `limit ? offset ?` is `limit ?`.
12. After the first `order by `, every whitespace-then-`asc` is dropped (also the `asc` that begins
    a word: pt's rule has no word boundary there).

Spacing is not normalized (`id=?` and `id = ?` are two classes, `count(*)` and `count (*)` too), nor
are backquotes (`` `t` `` and `t` are two). Newer percona-toolkit (3.4+) reads strings with
escaped backslashes differently (step 5: `'a\\\\'` stays a string there; here, as 3.2.1, the quote
after `\\\\` is dropped as escaped); the rest is the same (tests/replay/querylog/test_pt_fingerprint.py).

The class ID (`class_id`) is the last 16 hex digits of the fingerprint's MD5, upper case, as pt-upgrade
and pt-query-digest before 3.5 print it; pt-query-digest 3.2.1 as Debian builds it, and 3.5.4+, print
the whole MD5 (`checksum`), whose last 16 digits are that ID, so a search for it finds both.

Text is processed as pt processes bytes: ASCII rules only (a non-ASCII character is neither a word
character nor whitespace, and is not lower-cased); the MD5 is of the UTF-8 bytes (undecodable bytes
kept as read, `surrogateescape`). The repeated-union step is bounded (UNION_WORK candidate checks
per statement, about 0.1 s): past it the rest of that statement stays as it is, where pt's regex
would take minutes.
"""

import hashlib
import re
from bisect import bisect_left
from collections.abc import Iterator
from functools import lru_cache

_A = re.ASCII
_MYSQLDUMP = re.compile(r"SELECT /\*!40001 SQL_NO_CACHE \*/ \* FROM `")
_TOOLKIT_COMMENT = re.compile(r"/\*\w+\.\w+:[0-9]/[0-9]\*/", _A)
_CALL = re.compile(r"\s*(call\s+\S+)\(", _A | re.IGNORECASE)
# step 2 as two linear searches: pt's one pattern (first row: `.*?\)` up to `\s*,\s*\(`) retried
# from every later VALUES, scanning to the end each time (47 s on 30,000 `VALUES (1)`)
_ROWS_START = re.compile(
    r"(?:INSERT|REPLACE)(?: IGNORE)?\s+INTO.+?VALUES\s*\(", _A | re.IGNORECASE | re.DOTALL
)
_NEXT_ROW = re.compile(r"\)\s*,\s*\(", _A)
_BLOCK_COMMENT = re.compile(r"/\*[^!].*?\*/", re.DOTALL)
_LINE_BREAK = re.compile(r"([\r\n])")
_USE = re.compile(r"use \S+(?=\n?\Z)", _A | re.IGNORECASE)  # at the start
_ESCAPED_QUOTE = re.compile(r"\\[\"']")
_DOUBLE_QUOTED = re.compile(r'".*?"', re.DOTALL)
_SINGLE_QUOTED = re.compile(r"'.*?'", re.DOTALL)
_BOOLEAN = re.compile(r"\bfalse\b|\btrue\b", _A | re.IGNORECASE)
_NUMBER = re.compile(r"[0-9+-][0-9a-f.xb+-]*")
_NUMBER_PREFIX = re.compile(r"[xb.+-]\?")
_LEADING_SPACE = re.compile(r"\A\s+", _A)
_SPACE_RUN = re.compile(r"[ \n\t\r\f]+")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_NULL = re.compile(r"\bnull\b", _A)
_LISTS = re.compile(r"\b(in|values?)(?:[\s,]*\([\s?,]*\))+", _A)
_LIMIT = re.compile(r"\blimit \?(?:, ?\?| offset \?)?", _A)
_ORDER_BY = re.compile(r"\border by ", _A)
_ASC = re.compile(r"\s+asc", _A | re.IGNORECASE)
# step 10: where a repeated select may start, and where a union keyword is
_SELECT_START = re.compile(r"\bselect\s", _A)
_UNION_AT = re.compile(r"(?=\sunion)", _A)
_SPACE_CHARS = frozenset(" \t\n\r\f\v")
UNION_WORK = 200_000
_KEY = 32
# texts this long and shorter are cached (a log repeats its statements)
_CACHED_CHARS = 2000


def _union_keywords(text: str, at: int) -> list[str]:
    """The union keywords at `at` (a whitespace, then `union`), longest first as pt's greedy
    `(\\sunion(?:\\sall)?)` tries them, each with the whitespace that must follow it: `" union all "`,
    `" union "`; [] when none starts there."""
    if not (at < len(text) and text[at] in _SPACE_CHARS and text.startswith("union", at + 1)):
        return []
    found = []
    base = at + 6
    if text[base : base + 1] in _SPACE_CHARS:
        if text.startswith("all", base + 1) and text[base + 4 : base + 5] in _SPACE_CHARS:
            found.append(text[at : base + 5])
        found.append(text[at : base + 1])
    return found


def _candidates(
    text: str, start: int, unions: list[int], by_key: dict[str, list[tuple[int, int]]]
) -> Iterator[tuple[int, int]]:
    """Where the body of a select starting at `start` may end, in pt's order (leftmost union
    first, `union all` before `union`): (union position, keyword rank)."""
    for at in unions[bisect_left(unions, start + 7) :]:
        if at >= start + _KEY:
            break
        yield at, 0
        yield at, 1
    far = by_key.get(text[start : start + _KEY], [])
    yield from far[bisect_left(far, (start + _KEY, -1)) :]


def _collapse_unions(text: str) -> str:
    """Step 10: from the left, the first select (`select` and a whitespace, at a word start) whose
    shortest body up to a union keyword is followed by that same body; as many further union
    keyword + body as follow; replaced by the body and `/*repeat<last keyword>*/`."""
    unions = [m.start() for m in _UNION_AT.finditer(text)]
    # candidates by the _KEY characters after their keyword: a body of _KEY or more characters can
    # only repeat where those are its own first ones (distinct selects cost one lookup each)
    by_key: dict[str, list[tuple[int, int]]] = {}
    for at in unions:
        for rank, keyword in enumerate(_union_keywords(text, at)):
            after = at + len(keyword)
            by_key.setdefault(text[after : after + _KEY], []).append((at, rank))
    out: list[str] = []
    done = 0
    work = 0
    for start in (m.start() for m in _SELECT_START.finditer(text)):
        if start < done:
            continue
        found = None
        for at, rank in _candidates(text, start, unions, by_key):
            work += 1
            keywords = _union_keywords(text, at)
            if rank < len(keywords) and text.startswith(text[start:at], at + len(keywords[rank])):
                found = keywords[rank], at
                break
            if work > UNION_WORK:
                return "".join(out) + text[done:]
        if found is None:
            continue
        keyword, at = found
        body = text[start:at]
        end = at + len(keyword) + len(body)
        while more := [k for k in _union_keywords(text, end) if text.startswith(body, end + len(k))]:
            keyword = more[0]  # pt's `+`: as many more as follow, each trying `union all` first
            end += len(keyword) + len(body)
        out.append(text[done:start] + body + " /*repeat" + keyword[:-1] + "*/")
        done = end
    return "".join(out) + text[done:]


def _first_row(text: str) -> str:
    """Step 2: a multi-row INSERT / REPLACE cut after its first row's `)` (the first `)` after
    the first `VALUES (` that a `,` and another `(` follow)."""
    start = _ROWS_START.match(text)
    if start is None:
        return text
    row_end = _NEXT_ROW.search(text, start.end())
    return text if row_end is None else text[: row_end.start() + 1]


def _drop_order_by_asc(text: str) -> str:
    """Step 12: after the first `order by `, each `\\s+asc` at least one character past the end of
    the previous one (pt's `\\G(.+?)\\s+ASC`, applied once with /g) is dropped."""
    anchor = _ORDER_BY.search(text)
    if anchor is None:
        return text
    kept = []
    done = anchor.end()
    while (found := _ASC.search(text, done + 1)) is not None:
        kept.append(text[done : found.start()])
        done = found.end()
    return text[: anchor.end()] + "".join(kept) + text[done:]


def _drop_block_comments(text: str) -> str:
    """Step 3's `/* ... */` (not `/*!`): only up to the last `*/` (past it none can close, and pt's
    pattern would scan to the end from every opener there)."""
    last = text.rfind("*/")
    if last < 0:
        return text
    return _BLOCK_COMMENT.sub("", text[: last + 2]) + text[last + 2 :]


def _drop_line_comments(text: str) -> str:
    """Step 3's `--` / `#` comments: on each line (split at CR or LF), from the first opener after
    the line's last quote to the line's end (pt's `(?:--|#)[^'"\\r\\n]*` followed by a line end: the
    leftmost opener with no quote after it on its line), one per line, in linear time."""
    if "--" not in text and "#" not in text:
        return text
    pieces = _LINE_BREAK.split(text)
    for index in range(0, len(pieces), 2):
        line = pieces[index]
        tail = max(line.rfind("'"), line.rfind('"')) + 1
        openers = [at for at in (line.find("--", tail), line.find("#", tail)) if at >= 0]
        if openers:
            pieces[index] = line[: min(openers)]
    return "".join(pieces)


def _fingerprint(query: str) -> str:
    if _MYSQLDUMP.match(query):
        return "mysqldump"
    if _TOOLKIT_COMMENT.search(query):
        return "percona-toolkit"
    if query.startswith("administrator command: "):
        return query
    call = _CALL.match(query)
    if call:
        return call[1].translate(_LOWER)
    query = _first_row(query)
    query = _drop_line_comments(_drop_block_comments(query))
    use = _USE.match(query)
    if use:
        return "use ?" + query[use.end() :]
    query = _ESCAPED_QUOTE.sub("", query)
    query = _DOUBLE_QUOTED.sub("?", query)
    query = _SINGLE_QUOTED.sub("?", query)
    query = _BOOLEAN.sub("?", query)
    query = _NUMBER.sub("?", query)
    query = _NUMBER_PREFIX.sub("?", query)
    query = _LEADING_SPACE.sub("", query)
    if query.endswith("\n"):
        query = query[:-1]
    query = _SPACE_RUN.sub(" ", query).translate(_LOWER)
    query = _NULL.sub("?", query)
    query = _LISTS.sub(r"\1(?+)", query)
    if "union" in query:
        query = _collapse_unions(query)
    query = _LIMIT.sub("limit ?", query, count=1)
    return _drop_order_by_asc(query)


_cached = lru_cache(maxsize=8192)(_fingerprint)


def pt_fingerprint(statement: str) -> str:
    """The statement's fingerprint as pt-query-digest writes it (module docstring: the rules, in
    order). `statement` is the text as the log holds it (a slow log's statement without its final
    `;`); a str, processed with ASCII rules. Never raises."""
    return _cached(statement) if len(statement) <= _CACHED_CHARS else _fingerprint(statement)


def checksum(fingerprint: str) -> str:
    """The fingerprint's whole MD5 in upper-case hex (32 digits), as pt-query-digest 3.2.1 (Debian)
    and 3.5.4+ print a class's ID (`ID 0x...`, JSON `checksum`)."""
    digest = hashlib.md5(fingerprint.encode("utf-8", "surrogateescape"), usedforsecurity=False)
    return digest.hexdigest().upper()


def class_id(fingerprint: str) -> str:
    """The class ID of a fingerprint: the last 16 hex digits of its MD5, upper case (pt-upgrade's
    and older pt-query-digest's `0x...`; the tail of checksum())."""
    return checksum(fingerprint)[-16:]
