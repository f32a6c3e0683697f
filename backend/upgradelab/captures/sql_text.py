"""A dump's and a statement's SQL as the server reads it, for the check (captures/schema_load.py,
captures/statement_parse.py): the dump split into statements as the command-line client splits
it, what a statement creates, and where a word stands unquoted in it.

The reader follows the client (datasets/scan.py holds the client's reader byte for byte; this one
only needs where statements end): strings `'...'`, `"..."` with backslash escapes and doubled
quotes, `` `names` ``, `-- ` and `#` comments to the line's end, `/* ... */` comments, optimizer
hints `/*+ ... */` (SQL without strings, kept as they are), version comments `/*!50001 ... */`
and MariaDB's `/*M!100616 ... */`, whose content is SQL (the delimiter and strings count inside
them), and `DELIMITER xx` on a line of its own (mysqldump's `;;` around routines and triggers).
mariadb-dump's first line, `/*M!999999\\- enable the sandbox mode */`, is a comment to every server
(no version reaches 99.99.99) and to this reader.
The text is never changed here, but by quoted() and calls_joined(): the server decides what a
version comment means for its own version, as it would for `mysql < dump.sql`.

Nothing here executes anything: it is text in, text out.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<line>(?:--(?=[\s]|$)|\#)[^\n]*)
    |(?P<block>/\*M!999999.*?\*/|/\*(?!M?!).*?\*/)
    |(?P<open>/\*M?!\d*)
    |(?P<close>\*/)
    |(?P<string>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")
    |(?P<name>`(?:[^`]|``)*`)
    |(?P<word>[A-Za-z_$\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*)
    |(?P<other>.)""",
    re.S | re.X,
)
_DELIMITER = re.compile(r"[ \t]*delimiter[ \t]+(\S+)[^\n]*(?:\n|$)", re.I)


@dataclass(frozen=True)
class Token:
    """One token of a statement: `kind` (ws, line, open, block, close, string, name, word, other),
    its `text` and where it starts in the statement (`start`, 0-based, and `line`, 1-based)."""

    kind: str
    text: str
    start: int
    line: int


@dataclass(frozen=True)
class DumpStatement:
    """One statement of a dump: its `text` (without its delimiter) and the dump's `line` it starts on."""

    text: str
    line: int


def _step(text: str, position: int, depth: int) -> tuple[str, int, int]:
    """The token at `position`: (its kind, where it ends, the version-comment depth after it).
    `close` is a version comment's end only inside one; elsewhere `*` is an `other` token."""
    match = _TOKEN.match(text, position)
    assert match is not None  # `other` takes any one character
    kind = match.lastgroup or "other"
    if kind == "close" and depth == 0:
        return "other", position + 1, depth
    return kind, match.end(), depth + (kind == "open") - (kind == "close")


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text` in order (module docstring)."""
    position, line, depth = 0, 1, 0
    while position < len(text):
        kind, end, depth = _step(text, position, depth)
        found = text[position:end]
        yield Token(kind, found, position, line)
        line += found.count("\n")
        position = end


def split_dump(text: str) -> Iterator[DumpStatement]:
    """The statements of a dump's `text` as the client sends them, in order (module docstring);
    statements holding only blanks and comments are left out."""
    delimiter = ";"
    position, line, depth = 0, 1, 0
    start, start_line = 0, 1
    meaningful = False  # the statement being read holds something besides blanks and comments
    while position < len(text):
        if not meaningful and (position == 0 or text[position - 1] == "\n"):
            command = _DELIMITER.match(text, position)
            if command:
                delimiter = command.group(1)
                line += command.group(0).count("\n")
                position = start = command.end()
                start_line = line
                continue
        if text.startswith(delimiter, position):
            if meaningful:
                yield DumpStatement(text[start:position].strip(), start_line + _leading_lines(text, start))
            position += len(delimiter)
            start, start_line, meaningful = position, line, False
            continue
        kind, end, depth = _step(text, position, depth)
        if kind not in ("ws", "line", "block") or text.startswith("/*+", position):
            meaningful = True
        line += text.count("\n", position, end)
        position = end
    if meaningful:
        yield DumpStatement(text[start:position].strip(), start_line + _leading_lines(text, start))


def _leading_lines(text: str, start: int) -> int:
    """The line breaks between `start` and the statement's first non-blank character."""
    stripped = len(text) - len(text[start:].lstrip())
    return text.count("\n", start, stripped)


def head(text: str, chars: int = 600) -> str:
    """The statement's start as the server reads it: comments dropped, version comments' content
    kept (their markers dropped), names unquoted, blanks collapsed; at most `chars` characters."""
    out: list[str] = []
    size = 0
    for token in tokens(text):
        if token.kind in ("line", "block", "open", "close"):
            piece = " "
        elif token.kind == "name":
            piece = token.text[1:-1].replace("``", "`")
        elif token.kind == "ws":
            piece = " "
        else:
            piece = token.text
        out.append(piece)
        size += len(piece)
        if size > chars:
            break
    return " ".join("".join(out).split())[:chars]


_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_QUALIFIED = rf"({_NAME}(?:\s*\.\s*{_NAME})?)"
_OBJECT = re.compile(
    r"(CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:(?:ALGORITHM\s*=\s*\w+|DEFINER\s*=\s*\S+"
    r"|SQL\s+SECURITY\s+\w+|TEMPORARY|AGGREGATE|UNIQUE|FULLTEXT|SPATIAL|ONLINE|IGNORE)\s+)*"
    r"(TABLE|VIEW|SEQUENCE|PROCEDURE|FUNCTION|TRIGGER|EVENT|DATABASE|SCHEMA|INDEX|PACKAGE\s+BODY|PACKAGE)\s+"
    rf"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?{_QUALIFIED}",
    re.I,
)


@dataclass(frozen=True)
class SqlObject:
    """What a statement creates, alters or drops: `verb` (create, alter, drop), `kind` (table,
    view, sequence, procedure, function, trigger, event, database, index, package) and `name` as
    written (schema-qualified when it was), unquoted."""

    verb: str
    kind: str
    name: str


def object_of(text: str) -> SqlObject | None:
    """The object a statement creates, alters or drops (its head, as head() reads it), else None."""
    found = _OBJECT.match(_quoted_head(text))
    if found is None:
        return None
    kind = found.group(2).lower().split()[0]
    kind = "database" if kind == "schema" else kind
    name = ".".join(_unquote(part.strip()) for part in re.split(r"\s*\.\s*(?=[`\w$])", found.group(3)))
    return SqlObject(found.group(1).lower(), kind, name)


def _quoted_head(text: str) -> str:
    """head() with names kept quoted (a name may hold a blank or a dot)."""
    out: list[str] = []
    for token in tokens(text[:4000]):
        out.append(" " if token.kind in ("line", "block", "open", "close", "ws") else token.text)
    return " ".join("".join(out).split())


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") and name.endswith("`") else name


def first_word(text: str) -> str:
    """The statement's first word, upper case ("" when it has none)."""
    for token in tokens(text[:4000]):
        if token.kind == "word":
            return token.text.upper()
        if token.kind not in ("ws", "line", "block", "open", "close"):
            return ""
    return ""


def used_database(text: str) -> str | None:
    """The database a `USE db` statement selects, else None."""
    if first_word(text) != "USE":
        return None
    return head(text)[4:].strip() or None


def qualified(name: str, database: str | None) -> str:
    """`name` with `database` before it, unless it names its own or there is none."""
    return name if "." in name or database is None else f"{database}.{name}"


def bare_places(text: str, word: str) -> list[Token]:
    """Where `word` stands unquoted in `text` as a name (case-insensitive): a word token outside
    strings, comments and backticks, not after a `.` (a qualified name's part may be any word) and
    not before `(` (a function call, whose name is not quoted)."""
    found: list[Token] = []
    previous: Token | None = None
    listed = list(tokens(text))
    for index, token in enumerate(listed):
        if token.kind == "word" and token.text.lower() == word.lower():
            after = next((t for t in listed[index + 1 :] if t.kind != "ws"), None)
            called = after is not None and after.text == "("
            qualified = previous is not None and previous.text == "."
            if not called and not qualified:
                found.append(token)
        if token.kind not in ("ws", "line", "block"):
            previous = token
    return found


def quoted(text: str, word: str) -> str:
    """`text` with every bare_places() occurrence of `word` put in backticks."""
    places = bare_places(text, word)
    out, last = [], 0
    for token in places:
        out += [text[last : token.start], f"`{token.text}`"]
        last = token.start + len(token.text)
    return "".join(out) + text[last:]


_NEAR = re.compile(r"near '(.*?)' at line (\d+)", re.S)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def near_text(words: str) -> str | None:
    """What a parse error's "near '...' at line N" quotes (the text from where the parser stopped),
    else None."""
    found = _NEAR.search(words)
    return found.group(1) if found else None


def near_word(words: str) -> str | None:
    """The bare word near_text() starts with (the token the parser stopped at), else None."""
    word = _WORD.match(near_text(words) or "")
    return word.group(0) if word else None


def calls_joined(text: str) -> str:
    """Digest text `text` with the space the server prints between a word and its `(` dropped
    (`COUNT ( * )` -> `COUNT( * )`): without IGNORE_SPACE in sql_mode a built-in function followed
    by a space is read as a call of a stored function of that name (ER_SP_DOES_NOT_EXIST, or 1370
    "execute command denied ... for routine 'db.SUM'" for an account without EXECUTE: seen on
    10.11 with sysbench's `SUM ( k )`). The same text with the space dropped means what the client
    sent, on MySQL and MariaDB alike: a digest text prints every identifier quoted (a bare word is a
    keyword, a built-in's name), a built-in's name lexes as that function only directly before its
    `(`, and before any other word's `(` (IN, VALUES, FROM, a native function) a space means nothing.
    Used by the value binding (captures/digest_values.py) and the parsers' question
    (captures/statement_parse.py parse_text); for digest texts only (a client's text keeps its own)."""
    marks = list(tokens(text))
    kept = [
        token.text
        for at, token in enumerate(marks)
        if not (
            token.kind == "ws"
            and 0 < at < len(marks) - 1
            and marks[at - 1].kind == "word"
            and marks[at + 1].text == "("
        )
    ]
    return "".join(kept)


def rows_sized(text: str) -> str:
    """Digest text `text` with each `(...)` row of a VALUES list given one `?` per column of the
    column list before it (`INSERT INTO t ( a , b ) VALUES (...)` -> `... VALUES (?, ?)`): the server
    prints a row's values as `(...)`, which asked as `(?)` is refused for its count (ERROR 1136,
    "Column count doesn't match value count", on 10.11, 11.8 and 9.7: seen with sysbench's INSERT),
    never for what the client sent. A row with no column list before it keeps its `(...)`."""
    marks = [token for token in tokens(text) if token.kind not in ("ws", "line", "block")]
    out: list[str] = []
    cursor, at = 0, 0
    while at < len(marks):
        columns = _listed(marks, at - 1) if _word(marks[at], "VALUES", "VALUE") and at else None
        at += 1
        # its rows: `(...)`, each after VALUES or the `,` after the row before it
        while columns and [one.text for one in marks[at : at + 5]] == ["(", ".", ".", ".", ")"]:
            out += [text[cursor : marks[at].start], "(" + ", ".join(["?"] * columns) + ")"]
            cursor = marks[at + 4].start + 1
            at += 6 if at + 5 < len(marks) and marks[at + 5].text == "," else 5
    return "".join(out) + text[cursor:]


def _word(token: Token, *words: str) -> bool:
    return token.kind == "word" and token.text.upper() in words


def _listed(marks: list[Token], close: int) -> int | None:
    """The names in the parenthesized list ending at marks[close] (`( a , b )`: 2) when it is a
    column list (not PARTITION's, not empty), else None (no list there)."""
    if marks[close].text != ")":
        return None
    depth, names = 0, 1
    for at in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(marks[at].text, 0) if marks[at].kind == "other" else 0
        if depth == 1 and marks[at].text == "," and marks[at].kind == "other":
            names += 1
        if depth == 0:
            empty = at + 1 == close
            return None if empty or (at and _word(marks[at - 1], "PARTITION")) else names
    return None
