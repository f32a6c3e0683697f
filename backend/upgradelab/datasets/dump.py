"""Reading a SQL dump (mysqldump / mariadb-dump output): plain, gzip or zstd, recognised by magic bytes.

The dump is never held in memory: `chunks` yields decompressed blocks, `CompressedReader` counts the
file bytes consumed so progress can be given against the file's size.
"""

import gzip
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO, Literal, cast

import zstandard

Compression = Literal["none", "gzip", "zstd"]
CHUNK_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# mariadb-dump since 10.5.25 / 10.6.18 / 10.11.8 / 11.x writes this first line: the MariaDB client
# turns on sandbox mode, older MySQL clients stop with "Unknown command '\-'" (the dump is otherwise
# SQL MySQL loads), so it is blanked when a MySQL client reads the dump (the line stays, empty: the
# client's line numbers stay the file's).
MARIADB_SANDBOX_LINE = re.compile(rb"\A/\*M!999999\\- enable the sandbox mode \*/[ \t]*\r?\n")


def detect(head: bytes) -> Compression:
    """Compression of a file from its first bytes."""
    if head.startswith(_GZIP_MAGIC):
        return "gzip"
    if head.startswith(_ZSTD_MAGIC):
        return "zstd"
    return "none"


class CountingReader(io.RawIOBase):
    """A file whose consumed byte count (`consumed`, the compressed size read so far) is known."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw, self.consumed = raw, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        buffer[: len(data)] = data
        self.consumed += len(data)
        return len(data)


def open_dump(path: Path) -> tuple[CountingReader, IO[bytes], Compression]:
    """(counting raw reader, decompressed stream, compression) of a dump file; close the raw reader."""
    raw_file = path.open("rb")
    compression = detect(raw_file.read(4))
    raw_file.seek(0)
    counted = CountingReader(raw_file)
    source = cast(IO[bytes], counted)
    stream: IO[bytes]
    if compression == "gzip":
        stream = cast(IO[bytes], gzip.GzipFile(fileobj=source, mode="rb"))
    elif compression == "zstd":
        stream = cast(IO[bytes], zstandard.ZstdDecompressor().stream_reader(source))
    else:
        stream = source
    return counted, stream, compression


def chunks(stream: IO[bytes], *, drop_sandbox_line: bool = False) -> Iterator[bytes]:
    """Decompressed blocks of CHUNK_BYTES (the first one with the MariaDB sandbox line blanked if asked)."""
    first = True
    while block := stream.read(CHUNK_BYTES):
        if first and drop_sandbox_line:
            block = MARIADB_SANDBOX_LINE.sub(b"\n", block, count=1)
        first = False
        yield block


# mysqldump writes `),(` between rows; mariadb-dump (10.11+) `),\n(`
_ROW_MARKS = re.compile(rb"^INSERT INTO |\),\r?\n?\(", re.MULTILINE)
_OVERLAP = len(b"INSERT INTO ") - 1


class RowCounter:
    """Rows in the dump's INSERTs seen so far: one per INSERT plus one per row separator of an
    extended INSERT. A `),(` inside a string counts too: the
    number is progress, not an audit. Each block is scanned after the previous block's last bytes, and
    only matches ending in the new block count, so a mark split between two blocks counts once."""

    def __init__(self) -> None:
        self.rows, self._tail = 0, b"\n"

    def feed(self, block: bytes) -> int:
        data = self._tail + block
        start = len(self._tail)
        self.rows += sum(1 for match in _ROW_MARKS.finditer(data) if match.end() > start)
        self._tail = data[-_OVERLAP:]
        return self.rows
