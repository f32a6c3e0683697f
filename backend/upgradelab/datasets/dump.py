"""Reading a SQL dump (mysqldump / mariadb-dump output): plain, gzip or zstd, recognised by magic bytes.

The dump is never held in memory: `chunks` yields decompressed blocks, `CountingReader` counts the
file bytes consumed. `DumpStream` reads a dump once, within bounds (settings: the decompressed
size, and the ratio of decompressed to compressed bytes checked as it streams, so a small file that
inflates to terabytes is refused within its first few hundred MiB), and estimates the decompressed
size for progress.
"""

import gzip
import io
import re
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
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


class DumpTooLarge(ValueError):
    """The dump passed a bound on its decompressed size or ratio; the message names the setting."""


class DumpTooSlow(DumpTooLarge):
    """The scan of the dump ran below its minimum rate; the message gives the rate and the setting."""


@dataclass(frozen=True)
class DumpBounds:
    """What a dump may inflate to: `max_bytes` decompressed in all, and at most `max_ratio`
    decompressed bytes per file byte consumed once `ratio_after` bytes are decompressed (a dump of
    text compresses 3-20:1; gzip cannot pass ~1030:1, zstd reaches 30,000:1 on newlines); and how
    fast its scan must go: at least `min_scan_mib_s` MiB per CPU second of the scanning thread over
    each `scan_window_s` CPU seconds of scanning (0: unbounded)."""

    max_bytes: int
    max_ratio: float
    ratio_after: int
    min_scan_mib_s: float = 0.0
    scan_window_s: float = 20.0


class ScanClock:
    """The scan's own speed (issue 44: a 2 MB zstd of `/*!99999 */` blocks, 707:1 and under the ratio
    bound, scanned at 2-3.5 MiB/s and would have held a worker and a target for hours): `timed(feed,
    block)` runs one block's scan and counts its bytes and the calling thread's CPU seconds
    (time.thread_time: the host's other load does not slow it); each time a window of
    `bounds.scan_window_s` CPU seconds is full, its rate is compared with `bounds.min_scan_mib_s`
    and DumpTooSlow raised below it, naming the rate measured. Legitimate dumps scan at 30-550 MiB
    per CPU second on the lab's host (bench/dump_scan.py, bench/README.md)."""

    def __init__(self, bounds: DumpBounds) -> None:
        self.bounds = bounds
        self.window_bytes, self.window_s = 0, 0.0

    def timed(self, feed: Callable[[bytes], bytes], block: bytes) -> bytes:
        """feed(block), timed and counted; DumpTooSlow when a full window ran below the minimum."""
        started = time.thread_time()
        out = feed(block)
        self.window_s += time.thread_time() - started
        self.window_bytes += len(block)
        bounds = self.bounds
        if bounds.min_scan_mib_s > 0 and self.window_s >= bounds.scan_window_s:
            rate = self.window_bytes / 2**20 / self.window_s
            if rate < bounds.min_scan_mib_s:
                raise DumpTooSlow(
                    f"the dump scans at {rate:.1f} MiB per CPU second over {self.window_s:.0f} s of "
                    f"scanning, below UPGRADELAB_DUMP_MIN_SCAN_MIB_S={bounds.min_scan_mib_s:g} (legitimate "
                    "dumps scan at 30 MiB/s and more): built to be slow to read, not a dump"
                )
            self.window_bytes, self.window_s = 0, 0.0
        return out


class DumpStream:
    """A dump file read once: `blocks()` its decompressed blocks (DumpTooLarge past `bounds`),
    `fed` decompressed bytes and `consumed` file bytes so far, `size` the file's bytes. Close it."""

    def __init__(self, path: Path, bounds: DumpBounds, *, drop_sandbox_line: bool = False) -> None:
        self.size = path.stat().st_size
        self.bounds, self._drop = bounds, drop_sandbox_line
        self._counted, self._stream, self.compression = open_dump(path)
        self.fed = 0
        known = -1
        if self.compression == "zstd":
            with path.open("rb") as head, suppress(zstandard.ZstdError):
                known = zstandard.frame_content_size(head.read(18))
        # plain: its size; zstd: the frame's content size when the compressor wrote it
        self._total = self.size if self.compression == "none" else known if known >= 0 else None

    @property
    def consumed(self) -> int:
        return self._counted.consumed

    def blocks(self) -> Iterator[bytes]:
        """Decompressed blocks of CHUNK_BYTES (chunks()); DumpTooLarge before yielding one past a bound."""
        bounds, first = self.bounds, True
        while block := self._stream.read(CHUNK_BYTES):
            self.fed += len(block)  # the file's own bytes, before the sandbox line is blanked
            if self.fed > bounds.max_bytes:
                raise DumpTooLarge(
                    f"the dump inflates to more than {_size(bounds.max_bytes)} "
                    "(UPGRADELAB_DUMP_MAX_BYTES, the decompressed size a dump may have)"
                )
            if self.fed > bounds.ratio_after and self.fed > bounds.max_ratio * max(self.consumed, 1):
                raise DumpTooLarge(
                    f"the dump inflates more than {bounds.max_ratio:g}:1 ({_size(self.fed)} from "
                    f"{_size(self.consumed)} of its file; UPGRADELAB_DUMP_MAX_RATIO): a compression bomb, "
                    "not a dump"
                )
            if first and self._drop:
                block = MARIADB_SANDBOX_LINE.sub(b"\n", block, count=1)
            first = False
            yield block

    def total(self) -> int | None:
        """The dump's decompressed bytes: known (plain, zstd with its content size), else
        extrapolated from the ratio so far while the file is still being read; None past that."""
        if self._total is not None:
            return self._total
        if 0 < self.consumed < self.size:
            return max(self.fed, self.fed * self.size // self.consumed)
        return None

    def close(self) -> None:
        self._stream.close()
        self._counted.raw.close()


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.1f} MiB"
