"""What the dump reader (scan.py) matches: the clients' commands, the bytes it acts on, and the runs
of bytes it passes over in one regex call (fast_runs: blank lines, plain comments, strings over
lines, whole statements). Every pattern needs the bytes it looks at to be in the buffer (positive
lookaheads), so a block boundary stops a run, never misleads it.
"""

import re

# every command of MySQL 9.x's and MariaDB 11.x's clients, by its backslash letter (their `help`)
COMMANDS = {
    "?": "help", "C": "charset", "c": "clear", "r": "connect", "d": "delimiter", "e": "edit",
    "G": "ego", "q": "quit", "g": "go", "h": "help", "n": "nopager", "t": "notee", "w": "nowarning",
    "P": "pager", "p": "print", "R": "prompt", "Q": "costs", "#": "rehash", "-": "sandbox",
    ".": "source", "s": "status", "!": "system", "T": "tee", "u": "use", "W": "warnings",
    "x": "resetconnection",
}  # fmt: skip
NAMED = (set(COMMANDS.values()) | {"?", "exit", "query_attributes", "ssl_session_data_print"}) - {"use"}

NL, BS, NUL = 10, 92, 0
BOM = b"\xef\xbb\xbf"
QUOTES = frozenset(b"'\"`")
COND, HINT = 1, 2  # inside /*! ... */ or /*+ ... */ (per line, as the client's own flag)
BLANK = re.compile(rb"[ \t\r\f\v]*")
WORD = re.compile(rb"\?|[A-Za-z_]{1,32}")
DIGITS = re.compile(rb"[0-9]*")
# the inside of a string, up to its quote or a byte the reader acts on; possessive: no backtracking
_BODY = {q: re.compile(rb"(?:[^%c\\\n\x00]++|\\[^\n\x00])*+" % q) for q in b"'\""}
_BODY[ord("`")] = re.compile(rb"[^`\n\x00]*+")  # a backslash escapes nothing in backticks
_STRINGS = rb"|'%s'|\"%s\"|`%s`" % (_BODY[39].pattern, _BODY[34].pattern, _BODY[96].pattern)
_COMMENT_BODY = re.compile(rb"[^/*\n\x00]*+")
# Fast paths (the reader's speed: one regex call passes over many lines). Each needs the bytes it
# looks at to be in the buffer (positive lookaheads), so a block boundary stops it, never misleads it.
_SPACE = rb" \t\r\f\v\n"
# a comment with no comment start, version comment or hint inside, whole
_PLAIN_COMMENT = rb"/\*(?=[^!+M])(?:[^*/\x00]++|\*(?=[^/])|/(?=[^*]))*+\*/"
_DASH_COMMENT = rb"--(?=[%s])[^\n]*+\n" % _SPACE
_HASH_COMMENT = rb"#[^\n]*+\n"
# strings over any number of lines (the line count is taken after), up to their quote
BODY_LINES = {q: re.compile(rb"(?:[^%c\\\x00]++|\\[^\x00])*+" % q) for q in b"'\""}
BODY_LINES[ord("`")] = re.compile(rb"[^`\x00]*+")
_STRINGS_LINES = [b"%c%s%c" % (q, BODY_LINES[q].pattern, q) for q in b"'\"`"]
COMMENT_LINES = re.compile(rb"(?:[^*/\x00]++|\*(?=[^/])|/(?=[^*]))*+")
# the first word of a statement's head decides whether it can name a database (statements.py)
HEAD_WORDS = re.compile(rb"[ \t\r\f\v\n]*([A-Za-z]*)(?:[ \t\r\f\v\n]+([A-Za-z]*))?")
NAMING = {b"use": None, b"enable": None, b"create": b"or", b"drop": b"", b"alter": b""}
OBJECTS = (b"database", b"schema")
NAMING_WORDS = frozenset(word.decode() for word in NAMING)
DELIMITER = re.compile(r"[!-~]{1,15}")  # printable ASCII, no space
BAD_DELIMITER = re.compile(r"[A-Za-z0-9_'\"`\\]")


def runs(delimiter: bytes) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """(SQL, hint): what the reader passes over without acting, from a position: bytes other than
    those it acts on (a `d` may start DEFINER) and, outside hints, whole one-line strings."""
    plain = rb"[^\\'\"`#\-/*\n\x00dD%s]" % re.escape(delimiter[:1])
    return re.compile(rb"(?:%s++%s)*+" % (plain, _STRINGS)), re.compile(plain + rb"*+")


def fast_runs(delimiter: bytes, mariadb: bool) -> tuple[re.Pattern[bytes], ...]:
    """(start, SQL, statements): what the reader passes over in one call when no version comment or
    hint is open on the line. start: blanks, newlines and plain comments before a statement; SQL:
    inside a statement, also strings over lines, `-`, `/`, `*` and a `d` that starts no DEFINER;
    statements: whole statements, each a start, a first word that is no client command, DELIMITER
    or word that names a database (statements.py), SQL and the delimiter, then a start. Nothing
    starting with the delimiter's first byte is passed over but that delimiter."""
    first = delimiter[:1]
    dash = rb"--[^\n]*+\n" if mariadb else _DASH_COMMENT  # MariaDB: `--x` too, at a statement's start
    comments = {b"/": _PLAIN_COMMENT, b"#": _HASH_COMMENT}
    before = [text for lead, text in {**comments, b"-": dash}.items() if lead != first]
    singles = {b"-": rb"-(?=[^-])", b"/": rb"/(?=[^*])", b"*": rb"\*"}
    inside = [
        rb"[^\\'\"`#\-/*\x00dD%s]++" % re.escape(first),
        *_STRINGS_LINES,
        *(text for lead, text in {**comments, b"--": _DASH_COMMENT}.items() if lead[:1] != first),
        *(text for lead, text in singles.items() if lead != first),
        rb"[dD](?=[\s\S]{6})(?!(?i:efiner))",  # (a delimiter has no letters)
    ]
    blanks = rb"[%s]*+" % _SPACE
    start, sql = rb"%s(?:(?:%s)%s)*+" % (blanks, b"|".join(before), blanks), rb"(?:%s)*+" % b"|".join(inside)
    words = b"|".join(re.escape(word.encode()) for word in sorted(NAMED | NAMING_WORDS | {"delimiter"}))
    first_word = rb"(?!(?i:%s)(?![A-Za-z_]))[A-Za-z_]++" % words
    statements = rb"%s(?:%s%s%s%s)*+" % (start, first_word, sql, re.escape(delimiter), start)
    return re.compile(start), re.compile(sql), re.compile(statements)
