"""Seconds per test file from the last test command's JUnit XML (backend/.test-times.xml, written by
scripts/test.sh), the slowest first, with the sum: where the gate's time goes (issue 31).

Usage: python scripts/test_times.py [path] [--top N]"""

import argparse
import collections
from pathlib import Path
from xml.etree import ElementTree

DEFAULT = Path(__file__).resolve().parent.parent / "backend" / ".test-times.xml"


def per_file(path: Path) -> dict[str, float]:
    """{test file: seconds (float, set-up + call + tear-down as JUnit's `time` of each testcase)}."""
    totals: dict[str, float] = collections.defaultdict(float)
    for case in ElementTree.parse(path).iter("testcase"):
        module = case.get("classname", "").split(".")
        # classname is "tests.folder.test_file[.Class]": the file is the parts up to the test_ one
        parts = next(
            (module[: i + 1] for i, p in enumerate(module) if p.startswith("test_")),
            module,
        )
        totals["/".join(parts) + ".py"] += float(case.get("time", 0))
    return dict(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    totals = per_file(args.path)
    for name, seconds in sorted(totals.items(), key=lambda item: -item[1])[: args.top]:
        print(f"{seconds:8.1f}  {name}")
    print(f"{sum(totals.values()):8.1f}  total over {len(totals)} files")


if __name__ == "__main__":
    main()
