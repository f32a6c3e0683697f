"""A seeded corpus of generated statements for the fingerprint oracle: every rule of
measurement/pt_fingerprint.py and its edges (strings with escapes and quotes inside, signed and hex
numbers, booleans and NULL in any case, every comment form, IN and VALUES lists, repeated and
distinct UNIONs, LIMIT forms, ORDER BY ... ASC, CALL, USE, names with digits, backquotes, tabs and
newlines, non-ASCII text), each a statement a slow log can hold (no `;` at a line's end before a
line starting with `#`)."""

import itertools
import random

NAMES = ["t", "orders", "t1", "tab2", "order_items", "`Weird Name`", "db1.t", "x_2024", "Ñandú", "`café`"]
COLUMNS = ["id", "a", "b2", "name", "created_at", "`select`", "ASCII_col", "status", "price", "qty"]
LITERALS = [
    "1", "-1", "+2", "3.14", "-0.5e-3", "1e10", ".5", "0x1F", "0XAB", "x'4A'", "X'ff'", "b'1010'", "0b1010",
    "'abc'", "'it''s'", "'a\\'b'", "'a\\\\'", '"dq"', "'x;y'", "'--not a comment'", "'/* nor this */'",
    "'a\nb'", "TRUE", "false", "NULL", "null", "'Ünïcødé'", "N'nat'", "_utf8mb4'c'", "'2024-01-01'",
    "DATE '2024-01-01'", "'#hash'", "''", "'\\\\'", "'tab\there'", "12345678901234567890",
]  # fmt: skip
OPERATORS = ["=", " = ", "<", ">=", "<>", "!=", "<=>", " LIKE ", " IS NOT ", "+", "-"]
COMMENTS = [
    "/* plain */", "/*!40001 SQL_NO_CACHE */", "/*+ INDEX(t) */", "-- line\n", "# hash\n", "/* it's */",
    "/**/", "/* multi\nline */", "-- it's quoted\n",
]  # fmt: skip
SPACES = [" ", "  ", "\t", "\n", " \n  "]


def _pick(rng: random.Random, items: list[str]) -> str:
    return items[rng.randrange(len(items))]


def _where(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        column = _pick(rng, COLUMNS)
        shape = rng.randrange(5)
        if shape == 0:
            items = ", ".join(_pick(rng, LITERALS) for _ in range(rng.randint(1, 6)))
            parts.append(
                f"{column} {_pick(rng, ['IN', 'in', 'NOT IN'])}{_pick(rng, ['', ' ', '  '])}({items})"
            )
        elif shape == 1:
            parts.append(f"{column} BETWEEN {_pick(rng, LITERALS)} AND {_pick(rng, LITERALS)}")
        else:
            parts.append(f"{column}{_pick(rng, OPERATORS)}{_pick(rng, LITERALS)}")
    return f"{_pick(rng, SPACES)}{_pick(rng, ['AND', 'and', 'OR'])}{_pick(rng, SPACES)}".join(parts)


def _select(rng: random.Random) -> str:
    columns = ", ".join(rng.sample(COLUMNS, rng.randint(1, 3)))
    sql = (
        f"{_pick(rng, ['SELECT', 'select', 'Select'])}{_pick(rng, SPACES)}{columns} FROM {_pick(rng, NAMES)}"
    )
    if rng.random() < 0.8:
        sql += f"{_pick(rng, SPACES)}WHERE {_where(rng)}"
    if rng.random() < 0.4:
        order = ", ".join(
            f"{c}{_pick(rng, ['', ' ASC', ' asc', ' DESC', '  ASC'])}" for c in rng.sample(COLUMNS, 2)
        )
        sql += f" ORDER BY {order}"
    if rng.random() < 0.4:
        sql += " LIMIT " + _pick(rng, ["10", "5, 10", "5,10", "10 OFFSET 5", "?"])
    return sql


def _union(rng: random.Random) -> str:
    first = _select(rng)
    same = rng.random() < 0.6
    parts = [first]
    for _ in range(rng.randint(1, 4)):
        parts.append(first if same else _select(rng))
    joined = parts[0]
    for part in parts[1:]:
        joined += _pick(rng, [" UNION ", " UNION ALL ", " union all ", "\nUNION\n"]) + part
    return joined


def _insert(rng: random.Random) -> str:
    rows = ", ".join(
        "(" + ", ".join(_pick(rng, LITERALS) for _ in range(3)) + ")" for _ in range(rng.randint(1, 5))
    )
    verb = _pick(rng, ["INSERT", "insert", "REPLACE", "INSERT IGNORE"])
    tail = _pick(
        rng, ["", " ON DUPLICATE KEY UPDATE a = VALUES(a)", " ON DUPLICATE KEY UPDATE qty = qty + 1"]
    )
    return (
        f"{verb} INTO {_pick(rng, NAMES)} (a, b, c) {_pick(rng, ['VALUES', 'values', 'VALUE'])} {rows}{tail}"
    )


def _other(rng: random.Random) -> str:
    return _pick(
        rng,
        [
            f"UPDATE {_pick(rng, NAMES)} SET {_pick(rng, COLUMNS)} = {_pick(rng, LITERALS)} "
            f"WHERE {_where(rng)}",
            f"DELETE FROM {_pick(rng, NAMES)} WHERE {_where(rng)}",
            f"CALL proc_{rng.randint(1, 3)}({_pick(rng, LITERALS)}, {_pick(rng, LITERALS)})",
            f"call db.p{rng.randint(1, 3)} ({_pick(rng, LITERALS)})",
            f"USE {_pick(rng, ['shop', 'db1', '`my db`', 'crm2'])}",
            f"use {_pick(rng, ['shop', 'db1'])}",
            "SELECT /*!40001 SQL_NO_CACHE */ * FROM `film`",
            f"REPLACE /*db.tbl:{rng.randint(1, 9)}/{rng.randint(1, 9)}*/ INTO checksum.checksum VALUES (1)",
            "SHOW "
            + _pick(rng, ["TABLES", "FULL PROCESSLIST", "CREATE TABLE t1", "GLOBAL STATUS LIKE 'x%'"]),
            f"SELECT COUNT(*), CONCAT(a,b), IF(x > 1, 'y', 'n') FROM t WHERE {_where(rng)}",
            f"SELECT * FROM t WHERE a = {_pick(rng, LITERALS)} AND b IN (SELECT id FROM u WHERE c = 1)",
            f"SELECT * FROM tmp.fbc5e685a5d3d45aa1d0347fdb7c4d35_temp WHERE id = {rng.randint(1, 99)}",
            f"SET @v{rng.randint(1, 3)} = {_pick(rng, LITERALS)}",
            "BEGIN",
            "COMMIT",
            f"SELECT a FROM t WHERE b = 1 GROUP BY a HAVING COUNT(*) > {rng.randint(1, 9)} ORDER BY a ASC",
            "SELECT cASC, ascii(x) FROM t ORDER BY ascending_col ASC, b asc,c  ASC LIMIT "
            + str(rng.randint(1, 9)),
            f"select x from t where y = {rng.randint(1, 9)} order by z desc",
        ],
    )


def statement(rng: random.Random) -> str:
    """One generated statement: a select, a union, an insert or another kind, with comments and
    odd spacing around it."""
    kind = rng.random()
    sql = (
        _select(rng)
        if kind < 0.35
        else _union(rng)
        if kind < 0.5
        else _insert(rng)
        if kind < 0.65
        else _other(rng)
    )
    if rng.random() < 0.3:
        comment = _pick(rng, COMMENTS)
        words = sql.split(" ")
        at = rng.randrange(1, len(words)) if len(words) > 1 else 1
        sql = " ".join(words[:at]) + " " + comment + " ".join(words[at:])
    if rng.random() < 0.1:
        sql = sql + _pick(rng, [" -- trailing", " # trailing", " /* end */"])
    return sql


def corpus(seed: int, count: int) -> list[str]:
    """`count` statements from `seed` (the same list every time), none with a `;` ending a line
    that is followed by a line starting with `#` (a slow log would split it there) and none
    starting with `#`, `use ` or `SET timestamp` (a slow log's header lines)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        sql = statement(rng).strip()
        lines = sql.split("\n")
        if any(a.endswith(";") and b.startswith("#") for a, b in itertools.pairwise(lines)):
            continue
        if any(
            line.startswith(("#", "use ", "SET timestamp", "SET insert_id", "SET last_insert_id"))
            for line in lines[:1]
        ):
            continue
        out.append(sql)
    return out
