"""Check any query logs against the installed pt-query-digest, by hand: a team's own logs, or the
sample logs of percona-toolkit's test suite (GPL-2, so not kept in this repository: a checkout's
t/lib/samples/slowlogs, t/lib/samples/genlogs and t/pt-query-digest/samples/*.log). Per file: the
events read by both, and every difference (pt_oracle.py event_mismatches, then the classes, as
pt-query-digest's JSON report lists them).

    cd backend && ../.venv/bin/python -m tests.replay.querylog.check_logs PATH... [--type general]

A file whose name holds `genlog` or `general` is read as a general log, the rest as slow logs
(`--type` for all); `.gz` files are read decompressed.
"""

import argparse
import gzip
import sys
import tempfile
from pathlib import Path
from typing import Literal

from tests.replay.querylog.pt_oracle import event_mismatches, lab_classes, pt_classes, pt_events
from upgradelab.measurement.querylog.formats import open_log, read_events


def check(log: Path, fmt: Literal["slow", "general"]) -> tuple[int, int, list[str]]:
    """(events the lab reads, events pt-query-digest reads, the differences) of one log."""
    with open_log(log) as stream:
        events = list(read_events(stream, fmt))
    theirs = pt_events(log, fmt)
    differences = event_mismatches(events, theirs, fmt, log)
    classes = {key: one["query_count"] for key, one in pt_classes(log, fmt).items()}
    if lab_classes(events, fmt) != classes:
        differences.append(f"classes {lab_classes(events, fmt)}, pt-query-digest: {classes}")
    return len(events), len(theirs), differences


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--type", choices=["slow", "general"], default=None)
    args = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(args.paths):
            fmt: Literal["slow", "general"] = args.type or (
                "general" if "genlog" in path.name or "general" in path.name else "slow"
            )
            log = path
            if path.suffix == ".gz":
                log = Path(tmp) / path.stem
                log.write_bytes(gzip.decompress(path.read_bytes()))
            try:
                mine, theirs, differences = check(log, fmt)
            except AssertionError as error:  # pt-query-digest itself failed on it
                print(f"{path.name}: pt-query-digest failed: {str(error)[:200]}")
                continue
            failed += bool(differences)
            found = f"{mine} events (pt-query-digest {theirs}), {len(differences)} differences"
            print(f"{path.name}: {fmt}, {found}")
            for difference in differences[:5]:
                print(f"    {difference[:300]}")
    print(f"{len(args.paths)} logs, {failed} with differences")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
