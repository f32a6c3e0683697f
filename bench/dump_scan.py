"""The dump scanner's speed (backend/upgradelab/datasets/scan.py), beside an older scanner's.

Each input is a generated dump, read by DumpReader in 1 MiB blocks as the loader reads it; the
figure is MiB of dump per CPU second of this process (time.process_time: the lab machine is
shared, so wall time would measure the neighbours). The older scanner is taken from git
(`--old-rev`, default OLD_REV: the scanner before issue 30; scan.py and statements.py at that
revision, imported from a temporary directory) and reads a smaller sample, as it is slow.

    .venv/bin/python bench/dump_scan.py                  # 64 MiB per input, the old one on 4 MiB
    .venv/bin/python bench/dump_scan.py --mib 16 --old-rev HEAD~3
"""

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from upgradelab.datasets import scan  # noqa: E402

BLOCK = 1 << 20
OLD_REV = "e797578"  # main before issue 30: the scanner a 164 KB zstd bomb held for about 3 hours


def _repeat(unit: bytes, size: int) -> bytes:
    return unit * (size // len(unit) + 1)


def _mysqldump_like(size: int) -> bytes:
    """What mysqldump writes: header comments, version comments, CREATE TABLE over lines, LOCK
    TABLES, extended INSERTs with escaped strings, a DELIMITER routine with a DEFINER."""
    rows = ",".join(
        f"({n},'customer {n}','it\\'s \\\\ n\\'{n % 7}','2024-01-{n % 28 + 1:02d} 10:00',{n * 3.25:.2f},NULL)"
        for n in range(800)
    )
    table = (
        "--\n-- Table structure for table `orders`\n--\n\n"
        "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
        "/*!40101 SET character_set_client = utf8mb4 */;\n"
        "CREATE TABLE `orders` (\n  `id` int NOT NULL,\n  `name` varchar(64) NOT NULL,\n"
        "  `note` text,\n  `created` datetime DEFAULT NULL,\n  `amount` decimal(10,2) DEFAULT NULL,\n"
        "  `deleted` datetime DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `created` (`created`)\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n"
        "/*!40101 SET character_set_client = @saved_cs_client */;\n\n"
        "LOCK TABLES `orders` WRITE;\n/*!40000 ALTER TABLE `orders` DISABLE KEYS */;\n"
        + f"INSERT INTO `orders` VALUES {rows};\n"
        * 20
        + "/*!40000 ALTER TABLE `orders` ENABLE KEYS */;\nUNLOCK TABLES;\n"
        "DELIMITER ;;\nCREATE DEFINER=`root`@`localhost` PROCEDURE `p`()\nBEGIN\n  SELECT 1;\nEND ;;\n"
        "DELIMITER ;\n"
    )
    return _repeat(table.encode(), size)


INPUTS: dict[str, Callable[[int], bytes]] = {
    "newlines": lambda size: b"\n" * size,
    "-- comment lines": lambda size: _repeat(b"-- a comment line as dumps and scripts write them\n", size),
    "/* */ comment lines": lambda size: _repeat(b"/* a block comment */\n", size),
    "SELECT 1; lines": lambda size: _repeat(b"SELECT 1;\n", size),
    "mysqldump-like": _mysqldump_like,
    # mysqldump --skip-extended-insert: a statement per row, the slowest legitimate dump here
    "single-row INSERTs": lambda size: _repeat(
        b"INSERT INTO `orders` VALUES (1,'customer 1','it\\'s','2024-01-02 10:00',3.25,NULL);\n", size
    ),
    # issue 44: a 2 MB zstd of these (707:1) scanned at 2-3.5 MiB/s; a 150 MB one held a worker 10-14 h
    "/*!99999 */ blocks": lambda size: _repeat(b"/*!99999 */", size),
}


def _old_scan(rev: str, directory: Path) -> ModuleType:
    """scan.py and statements.py at `rev`, importable as `old_scan`."""
    for name in ("scan", "statements"):
        text = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{rev}:backend/upgradelab/datasets/{name}.py"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        text = text.replace("from upgradelab.datasets.statements import", "from old_statements import")
        (directory / f"old_{name}.py").write_text(text)
    sys.path.insert(0, str(directory))
    return importlib.import_module("old_scan")


def mib_per_s(module: ModuleType, data: bytes) -> float:
    """MiB of `data` the module's DumpReader reads per CPU second, fed in BLOCK blocks."""
    reader = module.DumpReader("mysql")
    started = time.process_time()
    for at in range(0, len(data), BLOCK):
        reader.feed(data[at : at + BLOCK])
    reader.finish()
    return len(data) / (1 << 20) / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=64, help="MiB of each input for this scanner")
    parser.add_argument("--old-mib", type=int, default=4, help="MiB of each input for the old scanner")
    parser.add_argument(
        "--old-rev",
        default="main",
        help="git revision of the old scanner ('' for none)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        old = _old_scan(args.old_rev, Path(directory)) if args.old_rev else None
        print(f"{'input':22s} {'this MiB/s':>11s} {'old MiB/s':>10s} {'ratio':>7s}")
        for name, make in INPUTS.items():
            new = mib_per_s(scan, make(args.mib << 20)[: args.mib << 20])
            before = mib_per_s(old, make(args.old_mib << 20)[: args.old_mib << 20]) if old else None
            shown = f"{before:10.2f} {new / before:7.1f}" if before else f"{'-':>10s} {'-':>7s}"
            print(f"{name:22s} {new:11.2f} {shown}", flush=True)


if __name__ == "__main__":
    main()
