"""The lab's own normalization of a statement, read as a server reads it: its kind (first keyword)
and whether it only reads (`shape`). Since issue 47 a replay groups statements by
pt-query-digest's class instead (measurement/pt_fingerprint.py); this text stays in replays stored
before, as their `fingerprint`, with `fingerprint_id` (the first 16 hex digits of its sha256).

Comments dropped (version comments too: `is_read_only` reads the statement the server runs),
string and number literals -> `?`, keywords and names lower-cased, whitespace collapsed,
`IN (?, ?, ...)` -> `in(?+)` and a multi-row `VALUES (...), (...)` -> `values(?+)`; no space inside
parentheses or before commas, one space between other tokens ("count (*)", "a >= ?").

How: one lexing pass over the text (`_LITERALS`: comments, quoted strings, quoted names and numbers,
leftmost first, so a quote inside a comment or a `--` inside a string is what a server reads it as),
then the rest (words, operators, punctuation) spaced and lower-cased by whole-text string operations.
Linear in the text. A text without comments or quoted names (most statements) is lexed by the regex
engine alone (`_PLAIN_STRINGS`, then `_PLAIN_NUMBERS`, fixed replacements); one with them calls
Python once per literal, after any run of more than LONG_RUN literals (an `IN` list, `VALUES` rows)
was collapsed to `?, ?` by the regex engine alone. Measured on the lab machine (2 cores, load 6): a
12,000-item `IN (...)`, common in slow logs, 0.03 s (sqlparse's parse, used before, took seconds and
refused it past 10,000 tokens, its MAX_GROUPING_TOKENS); a 37 M character slow log of 600 of them
4.6 s; the worst case, a text of single literals between words with a comment, about 0.5 s per
million characters. A minus sign stays an operator
(`id = -1` -> "id = - ?"), as the server's own digest keeps it.
"""

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

_QUOTED = r"'(?:[^'\\]++|\\.|'')*+'|\"(?:[^\"\\]++|\\.|\"\")*+\""
_NUMBER = r"(?<![\w$@])(?:0x[0-9a-f]+|(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)(?![\w$])"
_LITERALS = re.compile(
    rf"(?P<comment>/\*.*?\*/|--[^\n]*|\#[^\n]*)|(?P<name>`(?:[^`]++|``)*+`)|(?:(?<![\w$])[xbn])?(?:{_QUOTED})|{_NUMBER}",
    re.IGNORECASE | re.DOTALL,
)
# texts without comments or quoted names (most statements) take one pass without Python per literal
_PLAIN_STRINGS = re.compile(rf"(?:(?<![\w$])[xbn](?='))?(?:{_QUOTED})", re.IGNORECASE)
_PLAIN_NUMBERS = re.compile(_NUMBER, re.IGNORECASE)
LONG_RUN = 64
# LONG_RUN+ literals separated by commas, parentheses, operators or spaces: "1, 2, 3", "(1, 'a'), (2, 'b')"
_ITEM = rf"(?:{_QUOTED}|{_NUMBER}|\bnull\b)"
_LONG_RUN = re.compile(rf"{_ITEM}(?:[\s,()+*/%=<>-]*+{_ITEM}){{{LONG_RUN},}}+", re.IGNORECASE)
# every non-word character is a token; these pairs and triples are one (re-joined after spacing)
_SPACED = "!\"#%&'()*+,-./:;<=>?[\\]^{|}~"
_JOINED: tuple[tuple[str, str], ...] = (
    ("< = >", "<=>"), ("- > >", "->>"), ("- >", "->"), ("> =", ">="), ("< =", "<="), ("< >", "<>"),
    ("! =", "!="), (": =", ":="), ("| |", "||"), ("& &", "&&"), ("< <", "<<"), ("> >", ">>"),
)  # fmt: skip
# Tokens are joined with single spaces, so the patterns below see "in ( ? , ? )".
_IN_LIST = re.compile(r"\bin \( \?(?: , \?)* \)")
_ROW = r"\( [^()]* \)"
_VALUES_ROWS = re.compile(rf"\bvalues {_ROW}(?: , {_ROW})*")
_DOT = re.compile(r" ?\. ?")
# then, for reading: no space inside parentheses or before a comma ("count (*)", "concat (a, ?)")
_FIRST_WORD = re.compile(r"^(?:[(),;.] ?)*([^\s(),;.]+)")

READ_ONLY_KINDS = frozenset({"select", "with", "show", "explain", "describe", "desc", "values", "table"})
# texts this long and shorter are cached (a log repeats its statements); longer ones are rare
_CACHED_CHARS = 2000


@dataclass(frozen=True)
class Shape:
    """A statement's fingerprint, first keyword ("select", "insert", ...; "" when none) and whether
    it only reads (is_read_only)."""

    fingerprint: str
    kind: str
    read_only: bool


def _literal(match: re.Match[str]) -> str:
    if match.lastgroup == "comment":
        return " "
    if match.lastgroup == "name":
        return " " + match[0][1:-1].replace("``", "`") + " "
    return " ? "


def _fingerprint(sql: str) -> str:
    if "/*" in sql or "--" in sql or "#" in sql or "`" in sql:
        text = _LITERALS.sub(_literal, _LONG_RUN.sub("?, ?", sql))
    else:
        text = _PLAIN_NUMBERS.sub(" ? ", _PLAIN_STRINGS.sub(" ? ", sql))  # strings first: their digits go
    for char in _SPACED:  # str.replace scans at C speed; a translate table calls Python per character
        if char in text:
            text = text.replace(char, f" {char} ")
    text = " ".join(text.lower().split())
    for spaced, joined in _JOINED:
        text = text.replace(spaced, joined)
    while text.endswith(";"):
        text = text[:-1].rstrip()
    text = _IN_LIST.sub("in(?+)", text)
    text = _VALUES_ROWS.sub("values(?+)", text)
    text = _DOT.sub(".", text)
    return text.replace("( ", "(").replace(" )", ")").replace(" ,", ",")


def _shape(sql: str) -> Shape:
    text = _fingerprint(sql)
    first = _FIRST_WORD.match(text)
    kind = first[1] if first else ""
    read_only = kind in READ_ONLY_KINDS
    if kind == "with" and re.search(r"\b(insert|update|delete|replace)\b", text):
        read_only = False
    if re.search(r"\bfor update\b|\block in share mode\b|\binto (outfile|dumpfile|@)", text):
        read_only = False
    return Shape(text, kind, read_only)


_cached_shape = lru_cache(maxsize=4096)(_shape)


def shape(sql: str) -> Shape:
    """Fingerprint, kind and read-only-ness of a statement, from one pass over its text."""
    return _cached_shape(sql) if len(sql) <= _CACHED_CHARS else _shape(sql)


def fingerprint(sql: str) -> str:
    """The normalized text of a statement (see module docstring)."""
    return shape(sql).fingerprint


def fingerprint_id(text: str) -> str:
    """16 hex digits identifying a lab normalization (the replay's id before issue 47; the null
    statement's id)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def statement_kind(sql: str) -> str:
    """The statement's first keyword, lower-cased ("select", "insert", ...); "" when none."""
    return shape(sql).kind


def is_read_only(sql: str) -> bool:
    """True for statements that only read: SELECT / WITH ... SELECT / SHOW / EXPLAIN / DESCRIBE,
    without `FOR UPDATE`, `LOCK IN SHARE MODE` or `INTO` a file/variables (those lock or write)."""
    return shape(sql).read_only
