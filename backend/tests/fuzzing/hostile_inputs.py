"""The hostile inputs of issue 30, built in the test (nothing large is stored in the repository).

Each generator streams: no input is held whole in memory; the files go where the caller says.
Figures on this machine (2 shared cores): the zstd bomb takes ~6 s to make and is 164 KB for 5 GiB
of newlines (as in the issue); the gzip line takes ~12 s at level 1 and is ~18 MB for one 4 GiB line
(level 6 gives the issue's 4.2 MB but takes twice as long: the line, not the ratio, is the attack).
"""

import gzip
from pathlib import Path

import zstandard

MIB = 1 << 20
BOMB_BYTES = 5 << 30  # 5 GiB of newlines, finding 3
LINE_BYTES = 4 << 30  # one 4 GiB line, finding 4
DO_STATEMENTS = 200_000  # finding 7: 152 s of the API's CPU before a 422
IN_ITEMS = 12_000  # finding 7: past sqlparse's 10,000-token limit (a 500)


def zstd_newline_bomb(path: Path, size: int = BOMB_BYTES) -> Path:
    """A zstd dump of `size` bytes of newlines, one frame, compressed as it is written."""
    chunk = b"\n" * MIB
    with path.open("wb") as out, zstandard.ZstdCompressor(level=3).stream_writer(out) as writer:
        for _ in range(size // MIB):
            writer.write(chunk)
    return path


def gzip_one_long_line(path: Path, size: int = LINE_BYTES) -> Path:
    """A gzip dump (one member) whose INSERT statement is one line of `size` bytes of 'x'."""
    chunk = b"x" * MIB
    with gzip.GzipFile(path, "wb", compresslevel=1) as out:
        out.write(b"CREATE TABLE t (a LONGTEXT);\nINSERT INTO t VALUES ('")
        for _ in range(size // MIB):
            out.write(chunk)
        out.write(b"');\n")
    return path


def many_statements_log(count: int = DO_STATEMENTS) -> str:
    """A plain SQL query log of `count` statements `DO 1;`, one a line."""
    return "DO 1;\n" * count


def huge_in_list_log(items: int = IN_ITEMS) -> str:
    """One SELECT with an IN list of `items` integers, as slow logs often hold."""
    return f"SELECT * FROM t WHERE id IN ({', '.join(map(str, range(items)))});\n"
