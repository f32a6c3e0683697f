"""A dump read as the server's own command-line client reads it, each block before it is fed.

The client (`mysql`, `mariadb`) reads a dump line by line and runs, besides SQL, commands of its own:
`\\!`/`system` (a shell), `\\.`/`source` (another file), `tee`, `pager`, `connect`, ... The loader
starts it with those switched off (--binary-mode, and --commands=OFF or --sandbox); this scan
refuses, before anything runs, a dump that holds one, naming its line, so a hostile dump fails
clearly instead of relying on one switch. It follows the client's own reader (client/mysql.cc,
add_line and read_and_execute), per client, byte for byte:

- strings `'...'`, `"..."`, `` `...` `` with backslash escapes (none in backticks); `/* */` and
  `-- `, `#` comments (MariaDB's client also takes `--x` at a statement's start for a comment);
- version comments `/*!50001 ... */` (and `/*M!100616 ... */` for MariaDB) are SQL: scanned as SQL;
  MySQL's optimizer hints `/*+ ... */` are SQL without strings or delimiters;
- a backslash command `\\x` anywhere outside strings and comments (`\\N` is SQL's NULL), and a named
  command as a statement's first word (`system touch x;` runs `system` in the client);
- DELIMITER, which dumps need, on a line of its own; `USE db;`, which only sets the default database.

What is allowed, and nothing else: SQL, DELIMITER lines, USE, and MariaDB's `\\-` (the sandbox line
mariadb-dump writes first: it only restricts the client). A NUL byte outside the escapes dumps write
is refused too (the client drops the rest of a line after a backslash and a NUL).

The scan reads strings as the client does with the server's default sql_mode: a dump that turns on
NO_BACKSLASH_ESCAPES or ANSI_QUOTES can make the two disagree about where a string ends. What holds
then is the client's own switches and its unprivileged OS user (loader.py), which the tests check.

The same pass finds the databases the dump creates, drops or uses, refusing the server's own, and
rewrites `DEFINER=<anyone>` clauses in SQL (not in strings) to `DEFINER=CURRENT_USER`, keeping line
numbers (statements.py says how).

The dump is read in blocks; MARGIN bytes are kept back at each block's end, more than any look-ahead
the reader needs (a DEFINER clause, a command word, a DELIMITER line), so a block boundary changes
nothing. Where nothing on a line can matter (no version comment or hint open on it, a statement's
head kept or naming no database), one regex call passes over blank lines and plain comments,
strings over lines, and whole statements whose first word is no command (fast_runs): the reader
runs at 100-400 MiB/s on newlines and comments, ~20 on `SELECT 1;` lines (bench/dump_scan.py),
and reads what it stops at byte by byte as before. With `max_statement`, a statement (from the
previous one's delimiter) or a line longer than that is refused, naming the limit.

One concept: the client's reader, one state machine (DumpReader) whose state (line, delimiter,
string, comment, version comment, statement head) every method reads and moves, in the order
client/mysql.cc does; its patterns are in scan_patterns.py and what a statement's head names in
statements.py, so what is left here does not divide without passing that state between modules.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from upgradelab.datasets.scan_patterns import (
    BAD_DELIMITER,
    BLANK,
    BODY_LINES,
    BOM,
    BS,
    COMMANDS,
    COMMENT_LINES,
    COND,
    DELIMITER,
    DIGITS,
    HEAD_WORDS,
    HINT,
    NAMED,
    NAMING,
    NAMING_WORDS,
    NL,
    NUL,
    OBJECTS,
    QUOTES,
    WORD,
    fast_runs,
    runs,
)
from upgradelab.datasets.statements import DEFINER, database_named, definer_rewritten, refused_database

ClientKind = Literal["mysql", "mariadb"]
MARGIN = 4096
HEAD_BYTES = 512  # the start of each statement kept for finding databases


class DumpRefused(ValueError):
    """The dump holds what the loader does not run; `line` is the dump's line (1-based)."""

    def __init__(self, reason: str, line: int) -> None:
        super().__init__(f"at line {line} of the dump: {reason}")
        self.reason, self.line = reason, line


@dataclass(frozen=True)
class DumpScan:
    """What a whole dump holds: databases it creates, drops or uses, each with the line it is first
    named on; DEFINER clauses it has (rewritten when fed); its lines and decompressed bytes."""

    databases: dict[str, int]
    definers: int
    lines: int
    bytes: int


class DumpReader:
    """The client's reader as a stream: feed() blocks in order, then finish(); each returns the bytes
    scanned so far (DEFINER clauses rewritten), to be sent on. Raises DumpRefused at the first thing
    refused. `databases`, `definers` and `line` grow as it reads."""

    def __init__(
        self, client: ClientKind, *, max_statement: int | None = None, limit: str = "the longest statement"
    ) -> None:
        self.mariadb = client == "mariadb"
        self.max_statement, self._limit = max_statement, limit
        self.line = 1
        self.delimiter = b";"
        self.databases: dict[str, int] = {}
        self.definers = 0
        self.bytes = 0
        self._run, self._hint_run = runs(self.delimiter)
        self._start_run, self._fast_run, self._statements_run = fast_runs(self.delimiter, self.mariadb)
        self._kept = b""
        self._base = 0  # the dump's offset of the kept bytes (of the buffer being scanned)
        self._statement_at = 0  # the dump's offset the statement being read is counted from
        self._line_at = 0  # the dump's offset of the line being read
        self._before = b"\n"  # the last byte sent on (a word ends before DEFINER)
        self._quote = 0  # the quote of the string being read, 0 outside strings
        self._comment = False  # inside /* ... */
        self._line_comment = False  # inside -- or # up to the line's end
        self._ss = 0  # COND or HINT: inside a version comment or a hint, on this line
        self._at_start = True  # nothing but blanks and comments since the last delimiter
        self._blank_line = True  # the current line held only blanks before the kept bytes
        self._head = bytearray()
        self._head_line = 1
        self._head_off = False  # the head's first words name no database: no need to keep it
        self._edits: list[tuple[int, int, bytes]] = []
        self._first: bytes | None = b""  # the dump's first bytes while fewer than a byte-order mark's

    # ---- the stream --------------------------------------------------------------------------------
    def feed(self, block: bytes) -> bytes:
        """Scan `block`; the bytes now scanned (all but the last MARGIN), DEFINERs rewritten."""
        self.bytes += len(block)
        lead = b""
        if self._first is not None:
            block = self._first + block
            if len(block) < len(BOM) and BOM.startswith(block):  # a mark split over blocks
                self._first = block
                return b""
            self._first = None
            if block.startswith(BOM):  # a UTF-8 byte-order mark: the client skips it
                lead, block = block[:3], block[3:]
                self._base = self._statement_at = self._line_at = 3
        buffer = self._kept + block
        end = self._scan(buffer, len(buffer) - MARGIN, final=False)
        self._bound(buffer, end)
        return lead + self._emit(buffer, end)

    def finish(self) -> bytes:
        """Scan the kept bytes to the end (a last statement needs no delimiter); the rest to send."""
        if self._first:  # a dump shorter than a byte-order mark
            self._kept, self._first = self._first, None
        buffer = self._kept
        end = self._scan(buffer, len(buffer), final=True)
        self._bound(buffer, end)
        self._end_statement(end)
        return self._emit(buffer, end)

    def _bound(self, buffer: bytes, end: int) -> None:
        """Refuse a statement or a line longer than max_statement, counted to `end` of `buffer`
        (a statement from its first byte after the previous one's delimiter, or from the last block
        boundary it had not started by: blank lines and comments between statements are not one)."""
        if self.max_statement is None:
            return
        newline = buffer.rfind(b"\n", 0, end)
        if newline >= 0:
            self._line_at = self._base + newline + 1
        if self._at_start:
            self._statement_at = self._base + end
        elif self._base + end - self._statement_at > self.max_statement:
            raise DumpRefused(self._too_long("a statement"), self._head_line)
        if self._base + end - self._line_at > self.max_statement:
            raise self._refuse(self._too_long("a line"))
        if self.max_statement < len(buffer):  # a line may begin and end within this block too
            longer = re.compile(rb"[^\n]{%d}" % (self.max_statement + 1)).search(buffer, 0, end)
            if longer:
                raise DumpRefused(
                    self._too_long("a line"), self.line - buffer.count(b"\n", longer.start(), end)
                )

    def _too_long(self, what: str) -> str:
        size = self.max_statement or 0
        shown = f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} bytes"
        return f"{what} longer than {shown} ({self._limit}): the client would hold it whole"

    def _emit(self, buffer: bytes, end: int) -> bytes:
        self._base += end
        newline = buffer.rfind(b"\n", 0, end)
        self._blank_line = not buffer[newline + 1 : end].strip() and (newline >= 0 or self._blank_line)
        self._kept = buffer[end:]
        self._before = buffer[end - 1 : end] or self._before
        if not self._edits:
            return buffer[:end]
        out, last = bytearray(), 0
        for start, stop, text in self._edits:
            out += buffer[last:start] + text
            last = stop
        self._edits = []
        return bytes(out + buffer[last:end])

    def _scan(self, buffer: bytes, limit: int, *, final: bool) -> int:
        at, size = 0, len(buffer)
        while at < limit:
            if self._line_comment:
                newline = buffer.find(b"\n", at)
                if newline < 0:
                    return size
                self._line_comment, at = False, newline
            elif self._quote:
                at = self._in_string(buffer, at, limit)
            elif self._comment:
                at = self._in_comment(buffer, at, limit)
            else:
                at = self._in_sql(buffer, at, limit, final)
        return at

    # ---- states ------------------------------------------------------------------------------------
    def _refuse(self, reason: str) -> DumpRefused:
        return DumpRefused(reason, self.line)

    def _newline(self, at: int) -> int:
        self.line += 1
        self._ss = 0  # the client's flag lives for one line
        self._keep(b" ")
        return at + 1

    def _keep(self, text: bytes) -> None:
        if len(self._head) < HEAD_BYTES:
            self._head += text[: HEAD_BYTES - len(self._head)]

    def _keep_span(self, buffer: bytes, start: int, end: int) -> None:
        room = HEAD_BYTES - len(self._head)
        if room > 0:
            self._head += buffer[start : min(end, start + room)].replace(b"\n", b" ")

    def _lines(self, buffer: bytes, at: int, end: int) -> None:
        """Count the lines passed over from `at` to `end` in one call."""
        lines = buffer.count(b"\n", at, end)
        if lines:
            self.line += lines
            self._ss = 0  # the client's flag lives for one line

    def _in_string(self, buffer: bytes, at: int, limit: int) -> int:
        end = BODY_LINES[self._quote].match(buffer, at).end()  # type: ignore[union-attr]
        self._lines(buffer, at, end)
        self._keep_span(buffer, at, end)
        if end >= limit:  # the byte there is read with what follows it, in the next block
            return end
        byte = buffer[end]
        if byte == self._quote:
            self._quote = 0
            self._keep(buffer[end : end + 1])
            return end + 1
        if byte == NUL or buffer[end + 1 : end + 2] == b"\x00":
            raise self._refuse("a NUL byte (dumps write it as \\0)")
        return end + 1  # a backslash ending the line or the dump: the client drops it, the string goes on

    def _in_comment(self, buffer: bytes, at: int, limit: int) -> int:
        end = COMMENT_LINES.match(buffer, at).end()  # type: ignore[union-attr]
        self._lines(buffer, at, end)
        if end >= limit:
            return end
        byte, pair = buffer[end], buffer[end : end + 2]
        if byte == NUL:
            raise self._refuse("a NUL byte (dumps write it as \\0)")
        if pair == b"/*":  # the client's reader looks for comment starts inside comments too
            return self._slash_star(buffer, end)
        if pair == b"*/":
            if not self._ss:
                self._comment = False
                self._keep(b" ")
                return end + 2
            self._ss = 0
        return end + 1

    def _slash_star(self, buffer: bytes, at: int) -> int:
        """`/*` at `at`: a comment, a version comment (SQL), or a hint, as each client tells them."""
        third = buffer[at + 2 : at + 3]
        if self.mariadb:
            version = 3 if third == b"!" else 4 if buffer[at + 2 : at + 4] == b"M!" else 0
            if not version:
                return self._comment_starts(at)
            if version == 3:
                self._ss = COND
            return at + version if self._comment else self._version_comment(buffer, at + version)
        if third not in (b"!", b"+") and self._ss != HINT:
            return self._comment_starts(at)
        # MySQL's reader sets its flag on `/*!` and `/*+` even inside a comment or a hint
        self._ss = COND if third == b"!" else HINT if third == b"+" else self._ss
        if self._comment:
            return at + 1
        if third == b"!":
            return self._version_comment(buffer, at + 3)
        self._sql_begins()
        self._keep(b"/*+" if third == b"+" else b"/")
        return at + 3 if third == b"+" else at + 1

    def _comment_starts(self, at: int) -> int:
        if not self._comment:
            self._comment = True
            self._keep(b" ")
        return at + 2

    def _version_comment(self, buffer: bytes, at: int) -> int:
        self._sql_begins()
        self._keep(b" ")  # the server drops `/*!50001`: the head reads as the server does
        return DIGITS.match(buffer, at).end()  # type: ignore[union-attr]

    def _sql_begins(self) -> None:
        if self._at_start:
            self._at_start, self._head_line = False, self.line

    def _in_sql(self, buffer: bytes, at: int, limit: int, final: bool) -> int:
        if not self._ss and self._at_start:
            # whole statements at once, unless one could pass the bound within a block
            whole = self.max_statement is None or self.max_statement >= len(buffer)
            end = (self._statements_run if whole else self._start_run).match(buffer, at).end()  # type: ignore[union-attr]
            if end > at:
                self._lines(buffer, at, end)
                self._statement_at, self._head_line = self._base + end, self.line
            if end >= limit:
                return end
            at = end
        elif not self._ss and self._head_kept():
            end = self._fast_run.match(buffer, at).end()  # type: ignore[union-attr]
            self._lines(buffer, at, end)
            return end if end >= limit else self._act(buffer, end)
        if self._at_start:
            at = BLANK.match(buffer, at).end()  # type: ignore[union-attr]
            if at >= limit:  # a command word is read whole, with what follows it
                return at
            word = WORD.match(buffer, at)
            if word and not buffer.startswith(self.delimiter, at):
                return self._first_word(buffer, at, word.end(), final)
        else:
            end = (self._hint_run if self._ss == HINT else self._run).match(buffer, at).end()  # type: ignore[union-attr]
            self._keep_span(buffer, at, end)
            if end >= limit:  # the byte there is read with what follows it, in the next block
                return end
            at = end
        return self._act(buffer, at)

    def _head_kept(self) -> bool:
        """Whether the statement's head is kept whole (HEAD_BYTES) or names no database by its first
        words (statements.py): then SQL is passed over without keeping it."""
        if self._head_off or len(self._head) >= HEAD_BYTES:
            return True
        words = HEAD_WORDS.match(self._head)
        if words is None or words.end() == len(self._head):  # a word may go on in the next bytes
            return False
        second = NAMING.get(words[1].lower(), b"-")  # None: any; b"-": the first word names none
        if second is None or (second != b"-" and (words[2] or b"").lower() in (second, b"", *OBJECTS)):
            return False  # it may name one: kept
        self._head_off = True
        return True

    def _act(self, buffer: bytes, at: int) -> int:
        """The byte at `at` in SQL, in the order the client tests them."""
        byte, pair = buffer[at], buffer[at : at + 2]
        hint = self._ss == HINT
        if byte == BS:
            return self._backslash(buffer, at)
        if not hint and buffer.startswith(self.delimiter, at):
            self._end_statement(at + len(self.delimiter))
            return at + len(self.delimiter)
        if byte == ord("#") or (pair == b"--" and self._dash_comment(buffer, at)):
            self._line_comment = True
            self._keep(b" ")
            return at + 1
        if pair == b"/*":
            return self._slash_star(buffer, at)
        if byte == NL:
            return self._newline(at)
        if byte == NUL:
            raise self._refuse("a NUL byte (dumps write it as \\0)")
        self._sql_begins()
        if pair == b"*/" and self._ss:
            self._ss = 0
            self._keep(b" ")
            return at + 1 if buffer[at + 2 : at + 3] == b"*" else at + 2
        if byte in QUOTES and not hint:  # one spanning lines (whole ones were passed over)
            self._quote = byte
            self._keep(pair[:1])
            return at + 1
        before = buffer[at - 1 : at] if at else self._before
        if byte in b"dD" and not (before.isalnum() or before in b"_$"):
            definer = DEFINER.match(buffer, at)
            if definer:
                return self._rewrite(definer)
        self._keep(pair[:1])
        return at + 1

    def _dash_comment(self, buffer: bytes, at: int) -> bool:
        third = buffer[at + 2 : at + 3]
        # MariaDB's client also ignores a line whose statement starts with `--` (mysql-test style)
        return not third or third.isspace() or (self.mariadb and self._at_start)

    def _backslash(self, buffer: bytes, at: int) -> int:
        after = buffer[at + 1 : at + 2]
        if not after or after == b"\n":
            return at + 1  # the client ignores a backslash that ends a line
        if after == b"\x00":
            raise self._refuse("a NUL byte (dumps write it as \\0)")
        if after == b"N":
            self._sql_begins()
            self._keep(b"\\N")
            return at + 2
        if after == b"-":  # sandbox: what came before it on mariadb-dump's first line is no SQL
            self._head.clear()
            self._head_off = False
            return at + 2
        letter = after.decode("latin-1")
        name = COMMANDS.get(letter)
        what = f"client command `\\{letter}`" + (f" ({name})" if name else "")
        raise self._refuse(f"{what}: the server's client runs SQL only here, no commands of its own")

    def _first_word(self, buffer: bytes, at: int, end: int, final: bool) -> int:
        """A statement's first word: a client command by that name is refused, DELIMITER read."""
        after = buffer[end : end + 1]
        word = buffer[at:end].decode().lower()
        bounded = not after or after.isspace() or buffer.startswith(self.delimiter, end)
        if bounded and word == "delimiter":
            return self._delimiter_line(buffer, at, final)
        if bounded and word in NAMED:
            raise self._refuse(f"client command `{word}`: the server's client runs SQL only here")
        self._sql_begins()
        if word not in NAMING_WORDS and not self._head.strip():  # no database named by this statement
            self._head_off = True
        self._keep_span(buffer, at, end)
        return end

    def _delimiter_line(self, buffer: bytes, at: int, final: bool) -> int:
        newline = buffer.rfind(b"\n", 0, at)
        if buffer[newline + 1 : at].strip() or (newline < 0 and not self._blank_line):
            raise self._refuse("DELIMITER must start a line of its own")
        end = buffer.find(b"\n", at, at + MARGIN)
        if end < 0:
            if not final:
                raise self._refuse(f"a DELIMITER line longer than {MARGIN} bytes")
            end = len(buffer)
        words = buffer[at:end].decode("latin-1").split()
        new = words[1] if len(words) > 1 else ""
        if not DELIMITER.fullmatch(new) or BAD_DELIMITER.search(new):
            raise self._refuse(
                f"DELIMITER {new!r}: a delimiter here is 1-15 printable characters, "
                "no letters, digits, quotes or backslash"
            )
        self.delimiter = new.encode()
        self._run, self._hint_run = runs(self.delimiter)
        self._start_run, self._fast_run, self._statements_run = fast_runs(self.delimiter, self.mariadb)
        self._end_statement(end)
        return end

    def _rewrite(self, definer: re.Match[bytes]) -> int:
        text = definer.group()
        if b"\x00" in text:
            raise self._refuse("a NUL byte (dumps write it as \\0)")
        lines = text.count(b"\n")
        replacement = definer_rewritten(text)
        self._edits.append((definer.start(), definer.end(), replacement))
        self.definers += 1
        self.line += lines
        if lines:
            self._ss = 0
        self._keep(replacement)
        return definer.end()

    def _end_statement(self, at: int) -> None:
        """The statement ends at `at` of the buffer being scanned."""
        end = self._base + at
        if self.max_statement is not None and end - self._statement_at > self.max_statement:
            raise DumpRefused(self._too_long("a statement"), self._head_line)
        self._statement_at = end
        name = None if self._head_off else database_named(bytes(self._head))
        if name is not None:
            refused = refused_database(name)
            if refused:
                raise DumpRefused(refused, self._head_line)
            self.databases.setdefault(name, self._head_line)
        self._head.clear()
        self._head_off = False
        self._at_start, self._head_line = True, self.line


def scan_dump(
    blocks: Iterable[bytes], client: ClientKind, progress: Callable[[int], None] = lambda fed: None
) -> DumpScan:
    """Read a whole dump (its decompressed blocks, in order) as `client`'s reader; what it holds.
    progress(bytes read) after each block. Raises DumpRefused at the first thing refused."""
    reader = DumpReader(client)
    for block in blocks:
        reader.feed(block)
        progress(reader.bytes)
    reader.finish()
    return DumpScan(dict(reader.databases), reader.definers, reader.line, reader.bytes)
