"""Known causes of a break between versions, named from a small table: the first entry that matches a
statement's difference names it. `check`: the MySQL Shell upgrade checker's check of that cause
(util.checkForServerUpgrade), where it has one, so the team can run that check on its own servers.

Matched on what the replay has: the error codes and message, the statement's text and fingerprint,
and which difference it was (error, result, ordering only); rows are compared as checksums, so a
result cause is told by the statement's shape (a trailing-space literal, a JSON function).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from upgradelab.measurement.outcomes import Outcome

# Functions MySQL 8.0 / 9.x removed (and MD5/SHA1 where the server no longer has them): error 1305
# "FUNCTION x does not exist", or 1064 where the name no longer parses as a function (PASSWORD).
REMOVED_FUNCTIONS = frozenset(
    {"password", "old_password", "encode", "decode", "encrypt", "des_encrypt", "des_decrypt", "md5", "sha1"}
    | {"sha", "glength", "astext", "asbinary", "mbrcontains", "contains", "within", "geomfromtext"}
)
# Words reserved in newer versions that older ones took as identifiers (MySQL 8.0's window functions,
# common table expressions, set operations; MariaDB's ROWS/WINDOW ...).
RESERVED_WORDS = frozenset(
    {"rank", "dense_rank", "row_number", "percent_rank", "cume_dist", "ntile", "lag", "lead"}
    | {"first_value", "last_value", "nth_value", "groups", "lateral", "window", "over", "recursive"}
    | {"except", "intersect", "empty", "of", "system", "json_table", "grouping", "rows", "row"}
    | {"manual", "parallel", "qualify", "tablesample", "cube", "function"}
)
_NEAR = re.compile(r"near '([A-Za-z_][A-Za-z0-9_]*)")
_CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(", re.IGNORECASE)
_TRAILING_SPACE = re.compile(r"'[^']*[ ]'")
_JSON = re.compile(r"\bjson_[a-z]+\s*\(|->>?", re.IGNORECASE)
_CHARSET_NAMES = re.compile(
    r"\b(character_sets|collations|collation_character_set_applicability|charset\s*\(|collation\s*\()"
    r"|show\s+(character\s+set|collation)|\bcharacter_set_name\b|\bcollation_name\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Difference:
    """What a cause is matched on: the statement's text and fingerprint, its outcome on the baseline
    and the variant, and which difference the replay found."""

    sql: str
    fingerprint: str
    base: Outcome
    other: Outcome
    result: bool
    ordering_only: bool


@dataclass(frozen=True)
class KnownCause:
    """One entry: `id`, the title the report shows, the upgrade checker's check name (None: it has
    none), and the rule."""

    id: str
    title: str
    check: str | None
    matches: Callable[[Difference], bool]


def _new_error(d: Difference, *codes: int) -> bool:
    return d.base.kind == "ran" and d.other.kind == "error" and d.other.error_code in codes


def _removed_function(d: Difference) -> bool:
    called = {name.lower() for name in _CALL.findall(d.sql)}
    if _new_error(d, 1305):
        message = (d.other.error_message or "").lower()
        return any(f".{name} " in message or f" {name} " in message for name in called) or bool(
            called & REMOVED_FUNCTIONS
        )
    return _new_error(d, 1064) and bool(called & REMOVED_FUNCTIONS)


def _reserved_word(d: Difference) -> bool:
    near = _NEAR.search(d.other.error_message or "")
    return _new_error(d, 1064) and near is not None and near.group(1).lower() in RESERVED_WORDS


KNOWN_CAUSES: tuple[KnownCause, ...] = (
    KnownCause("removed function", "a function this version removed", "removedFunctions", _removed_function),
    KnownCause(
        "reserved word", "a word this version reserves, used as a name", "reservedKeywords", _reserved_word
    ),
    KnownCause(
        "ONLY_FULL_GROUP_BY",
        "a non-aggregated column outside GROUP BY (sql_mode ONLY_FULL_GROUP_BY)",
        None,
        lambda d: _new_error(d, 1055),
    ),
    KnownCause(
        "PAD SPACE / NO PAD",
        "trailing spaces compare differently (PAD SPACE vs NO PAD collation)",
        None,
        lambda d: d.result and bool(_TRAILING_SPACE.search(d.sql)),
    ),
    KnownCause(
        "GROUP BY no longer sorts",
        "GROUP BY without ORDER BY: groups come in another order (implicit sort removed)",
        "groupByAscSyntax",
        lambda d: d.ordering_only and "group by" in d.fingerprint and "order by" not in d.fingerprint,
    ),
    KnownCause(
        "utf8mb3 names",
        "character set named utf8mb3 (was utf8) in names and metadata",
        "utf8mb3",
        lambda d: d.result and bool(_CHARSET_NAMES.search(d.sql)),
    ),
    KnownCause(
        "JSON output",
        "JSON values formatted differently (spacing, key order, number form)",
        None,
        lambda d: d.result and bool(_JSON.search(d.sql)),
    ),
)


def known_cause(difference: Difference) -> KnownCause | None:
    """The first KNOWN_CAUSES entry that matches, None when no known cause does."""
    return next((cause for cause in KNOWN_CAUSES if cause.matches(difference)), None)
