"""percona-toolkit as the oracle: what the installed pt-query-digest and pt-fingerprint (Debian's
`percona-toolkit`, installed by scripts/install.sh --tests) read from a log or a statement, and
where the lab's reading (measurement/querylog, measurement/pt_fingerprint.py) differs from it.

- `pt_events`: every event pt-query-digest reads from a log, with every attribute it keeps (its
  `--filter` hook, run after its own fingerprint, alias and inherit steps, prints each event as JSON).
- `pt_classes`: its `--output json` report: per class the fingerprint, checksum and count.
- `pt_fingerprints`: its own fingerprint code (QueryRewriter, loaded from the installed
  pt-query-digest) on any statements, one JSON line each (no log format in between).
- `pt_fingerprint_cli`: pt-fingerprint's output for statements, one per line.
- `event_mismatches`: each difference between the lab's events and pt's, naming the statement.

pt reads bytes; its JSON (ASCII) gives each byte as one character, turned back to the UTF-8 text
(undecodable bytes as surrogates) the lab reads.
"""

import json
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from upgradelab.measurement.pt_fingerprint import checksum, pt_fingerprint
from upgradelab.measurement.querylog.events import LogEvent

PT_QUERY_DIGEST = shutil.which("pt-query-digest") or "/usr/bin/pt-query-digest"
PT_FINGERPRINT = shutil.which("pt-fingerprint") or "/usr/bin/pt-fingerprint"
TIMEOUT_S = 600
_DUMP_FILTER = (
    'do { require JSON::PP; print STDOUT JSON::PP->new->canonical->ascii->encode($event), "\\n"; 1 }\n'
)
_FINGERPRINTS = """
require $ENV{PT_QUERY_DIGEST};
use JSON::PP;
my $qr = QueryRewriter->new(QueryParser => QueryParser->new());
my $json = JSON::PP->new->ascii->allow_nonref;
while (my $line = <STDIN>) {
   my $query = $json->decode($line);
   utf8::downgrade($query);  # bytes, as pt-query-digest reads a log
   print $json->encode($qr->fingerprint($query)), "\\n";
}
"""
# attributes pt-query-digest keeps that are not header fields (the event's own fields, or its work)
_PT_OWN = {"arg", "cmd", "db", "fingerprint", "pos_in_log", "bytes", "ts", "user", "host", "ip", "Thread_id"}
# pt-query-digest zeroes these on admin commands (its former --zero-admin, a report choice); the
# lab keeps what the log says
_ZEROED_ON_ADMIN = {"Rows_sent", "Rows_examined", "Rows_read", "Rows_affected"}


def _text(value: Any) -> Any:
    """pt's bytes (one character each in its ASCII JSON) as the lab's text."""
    if isinstance(value, str):
        return value.encode("latin-1").decode("utf-8", "surrogateescape")
    return value


def _bytes_json(text: str) -> str:
    """A statement as a JSON string of its UTF-8 bytes, one character each (the harness downgrades
    it back to those bytes)."""
    return json.dumps(text.encode("utf-8", "surrogateescape").decode("latin-1"), ensure_ascii=True)


def _run(argv: Sequence[str], stdin: str | None = None) -> str:
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{argv[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def pt_events(log: Path, fmt: str) -> list[dict[str, Any]]:
    """Every event pt-query-digest reads from `log` (fmt "slow" or "general"), each a dict of its
    attributes (arg, cmd, db, ts, Thread_id, fingerprint, Query_time, ...), in the log's order."""
    with tempfile.NamedTemporaryFile("w", suffix=".pl") as dump:
        dump.write(_DUMP_FILTER)
        dump.flush()
        kind = "slowlog" if fmt == "slow" else "genlog"
        out = _run([PT_QUERY_DIGEST, "--no-report", "--type", kind, "--filter", dump.name, str(log)])
    return [
        {k: _text(v) for k, v in json.loads(line).items()}
        for line in out.splitlines()
        if line.startswith("{")
    ]


def pt_classes(log: Path, fmt: str) -> dict[str, dict[str, Any]]:
    """pt-query-digest's --output json classes of `log`, by checksum: {"fingerprint",
    "query_count"}; every class (a count limit: a percentage leaves out classes without time)."""
    kind = "slowlog" if fmt == "slow" else "genlog"
    out = _run([PT_QUERY_DIGEST, "--output", "json", "--limit", "999999", "--type", kind, str(log)])
    report = json.loads(out) if out.strip() else {"classes": []}
    return {
        one["checksum"]: {"fingerprint": _text(one["fingerprint"]), "query_count": one["query_count"]}
        for one in report.get("classes", [])
    }


def lab_classes(events: Iterable[LogEvent], fmt: str) -> dict[str, int]:
    """The lab's classes of `events` as pt_classes reports them: per checksum, its events; a slow
    log's class only when one of its events has a Query_time (pt's report leaves out a class
    without the attribute it orders by)."""
    counts: Counter[str] = Counter()
    timed: set[str] = set()
    for event in events:
        key = checksum(pt_fingerprint(event.pt_text()))
        counts[key] += 1
        if fmt == "general" or "Query_time" in event.headers:
            timed.add(key)
    return {key: count for key, count in counts.items() if key in timed}


def pt_fingerprints(statements: Iterable[str]) -> list[str]:
    """pt-query-digest's own fingerprint of each statement (its QueryRewriter, as installed)."""
    items = list(statements)
    with tempfile.NamedTemporaryFile("w", suffix=".pl") as script:
        script.write(_FINGERPRINTS)
        script.flush()
        out = subprocess.run(
            ["perl", script.name],
            input="".join(_bytes_json(one) + "\n" for one in items),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            env={"PT_QUERY_DIGEST": PT_QUERY_DIGEST, "PATH": "/usr/bin:/bin"},
        )
    if out.returncode != 0:
        raise AssertionError(f"pt-query-digest's fingerprint failed: {out.stderr[-2000:]}")
    found = [_text(json.loads(line)) for line in out.stdout.splitlines()]
    assert len(found) == len(items), f"{len(items)} statements, {len(found)} fingerprints"
    return found


def pt_fingerprint_cli(statements: Iterable[str]) -> list[str]:
    """pt-fingerprint's fingerprint of each statement, read from a file as it reads one (each
    followed by `;` and a newline: none may hold that pair, start with `#` or lack a word start)."""
    items = list(statements)
    with tempfile.NamedTemporaryFile("wb", suffix=".sql") as queries:
        queries.write("".join(f"{one};\n" for one in items).encode("utf-8", "surrogateescape"))
        queries.flush()
        out = subprocess.run(
            [PT_FINGERPRINT, queries.name], capture_output=True, timeout=TIMEOUT_S, check=True
        )
    found = [line.decode("utf-8", "surrogateescape") for line in out.stdout.split(b"\n")[:-1]]
    assert len(found) == len(items), f"{len(items)} statements, {len(found)} fingerprints"
    return found


def _pt_time(time: str | None) -> str | None:
    """pt's `ts`: the first 15 (`YYMMDD hh:mm:ss`) or 19 (ISO) characters of a slow log's time."""
    if time is None:
        return None
    return time[:15] if len(time) >= 15 and all(c in "0123456789: " for c in time[:15]) else time[:19]


_USE = re.compile(r"\s*use\s", re.IGNORECASE)


_SESSION_ENTRY = re.compile(r"^[-0-9:.TZ+ \t]*?\s(\d+)\s(Connect|Init)\s+(.*)$", re.MULTILINE)


def _named_databases(log: bytes) -> list[bool]:
    """Per Connect and Init DB entry of a general log, in order (a refused Connect left out):
    whether it names a database (`on db`, `Init DB db`)."""
    out = []
    for entry in _SESSION_ENTRY.finditer(log.decode("utf-8", "surrogateescape")):
        argument = entry[3]
        if entry[2] == "Connect" and not argument.startswith("Access denied"):
            out.append(re.search(r"on \S", argument) is not None)
        elif entry[2] == "Init" and argument.startswith("DB"):
            out.append(len(argument.split()) > 1)
    return out


def _general_databases(pt: Sequence[dict[str, Any]], log: bytes) -> list[tuple[bool, str | None]]:
    """Per pt event of a general log: whether its database is comparable, and the database the
    lab should give it. pt's is the thread's when its last Connect or Init DB named one (read from
    the log: pt's Connect and Init DB events are its entries in order); a thread without one gets
    the previous event's (any thread's) from pt, None from the lab. Not compared: a query after a
    `USE` query of its thread (the lab follows it, pt does not) and the other admin events (Quit,
    Prepare, Execute, ...: pt gives each the previous event's database); the tests assert those
    explicitly."""
    named = iter(_named_databases(log))
    known: dict[str, bool] = {}
    used: set[str] = set()
    out: list[tuple[bool, str | None]] = []
    for event in pt:
        thread = str(event.get("Thread_id"))
        arg = str(event.get("arg", ""))
        if arg in ("administrator command: Connect", "administrator command: Init DB"):
            known[thread] = next(named)
            used.discard(thread)
        if event.get("cmd") == "Query" and _USE.match(arg):
            used.add(thread)
        session = event.get("cmd") == "Query" or arg.endswith(("command: Connect", "command: Init DB"))
        if thread in used or not session:
            out.append((False, None))
        else:
            out.append((True, event.get("db") if known.get(thread) else None))
    return out


def event_mismatches(lab: Sequence[LogEvent], pt: Sequence[dict[str, Any]], fmt: str, log: Path) -> list[str]:
    """Each difference between the lab's events and pt-query-digest's, naming the event's line and
    statement: the count, then per event its command, text, database (general logs: as
    _general_databases says, from `log`), thread, time, user and host, every header field, and the
    fingerprint."""
    out = []
    if len(lab) != len(pt):
        out.append(f"{len(lab)} events read, pt-query-digest reads {len(pt)}")
    databases = (
        _general_databases(pt, log.read_bytes())
        if fmt == "general"
        else [(True, e.get("db") or None) for e in pt]
    )
    for mine, theirs, (comparable, database) in zip(lab, pt, databases, strict=False):
        where = f"line {mine.line}: {mine.text[:120]!r}"
        expected: dict[str, Any] = {
            "cmd": theirs.get("cmd"),
            "arg": theirs.get("arg"),
            "Thread_id": int(theirs["Thread_id"]) if str(theirs.get("Thread_id", "")).isdigit() else None,
            "ts": theirs.get("ts"),
            "fingerprint": theirs.get("fingerprint"),
        }
        got: dict[str, Any] = {
            "cmd": mine.pt_command(),
            "arg": mine.pt_text(),
            "Thread_id": mine.thread_id,
            "ts": _pt_time(mine.time) if fmt == "slow" else mine.time,
            "fingerprint": pt_fingerprint(mine.pt_text()),
        }
        if comparable:
            expected["db"], got["db"] = database, mine.database
        if fmt == "slow" or mine.command == "Connect":
            expected.update(user=theirs.get("user") or None, host=theirs.get("host") or None)
            got.update(user=mine.user, host=mine.host)
        if fmt == "slow":
            expected["ip"], got["ip"] = theirs.get("ip") or None, mine.ip
            skip = _PT_OWN | (_ZEROED_ON_ADMIN if mine.pt_text().startswith("administrator") else set())
            expected["headers"] = {k: str(v) for k, v in theirs.items() if k not in skip}
            got["headers"] = {k: v for k, v in mine.headers.items() if k not in skip | {"Schema"}}
        for key, value in expected.items():
            if got[key] != value:
                out.append(f"{where}: {key} {got[key]!r}, pt-query-digest: {value!r}")
    return out
