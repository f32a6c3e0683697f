"""A text stream read record by record, as Perl's readline reads it with `$/` set to a separator
(pt-query-digest reads a slow log with `;\\n#`, then `;\\n` for one look-ahead): each record ends
with its separator, the last one with whatever is left.

Memory is bounded: the stream is read in blocks of BLOCK_CHARS; the buffer holds the record being
read and one block. A record past `max_chars` (MAX_RECORD_CHARS by default) raises LogError with
the line it starts on, instead of growing without bound on a log that never separates.
"""

from typing import TextIO

BLOCK_CHARS = 1 << 20
MAX_RECORD_CHARS = 256 << 20


class LogError(ValueError):
    """A query log that cannot be read (a record past the size bound), naming where."""


class Records:
    """Records of `stream` (a text stream: a file opened with newline="" so line ends stay as
    written, or io.StringIO); `line` is the 1-based line the next record starts on."""

    def __init__(self, stream: TextIO, *, block_chars: int = BLOCK_CHARS, max_chars: int = MAX_RECORD_CHARS):
        self._stream = stream
        self._block = block_chars
        self._max = max_chars
        self._buffer = ""
        self._at = 0
        self._eof = False
        self.line = 1

    def read(self, separator: str) -> str | None:
        """The next record: up to and including the next `separator`, or the rest of the stream
        when none follows; None at the end. LogError past the record bound."""
        search_from = self._at
        while True:
            found = self._buffer.find(separator, search_from)
            if found >= 0:
                return self._take(found + len(separator))
            if self._eof:
                return self._take(len(self._buffer)) if self._at < len(self._buffer) else None
            if len(self._buffer) - self._at > self._max:
                raise LogError(f"line {self.line:,}: an entry of more than {self._max:,} characters")
            # keep the record so far (and the separator's possible start), then read one more block
            search_from = max(len(self._buffer) - len(separator) + 1, self._at) - self._at
            self._buffer = self._buffer[self._at :]
            self._at = 0
            # a long record reads in doubling blocks: linear in its length, not quadratic
            block = self._stream.read(max(self._block, len(self._buffer)))
            if block:
                self._buffer += block
            else:
                self._eof = True

    def _take(self, end: int) -> str:
        record = self._buffer[self._at : end]
        self._at = end
        self.line += record.count("\n")
        return record
