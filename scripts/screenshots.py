"""Make the README's tour screenshots (docs/images/tour-*.png) from a real session: a run, a replay and
a capture checked against a new version on the lab's own servers, photographed by Playwright on
Debian's /usr/bin/chromium (never a downloaded browser). The session is a test session's (its own
Redis, worker, API, servers and ports: backend/tests/ports.py), so it never touches the lab's own
instance; the work is backend/tests/browser/tour_screenshots.py, outside the gate.

    UPGRADELAB_TEST_SESSION=S .venv/bin/python scripts/screenshots.py

The UI must be built (scripts/install.sh builds it). Exit status: pytest's. Takes about 3 minutes.
"""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run the tour module in a test session of its own (UPGRADELAB_TEST_SESSION, required)."""
    if "UPGRADELAB_TEST_SESSION" not in os.environ:
        print("set UPGRADELAB_TEST_SESSION (0..99) to a session no one else uses", file=sys.stderr)
        return 2
    command = [
        str(REPO / ".venv" / "bin" / "python"),
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "tests/browser/tour_screenshots.py",
    ]
    return subprocess.call(command, cwd=REPO / "backend")


if __name__ == "__main__":
    sys.exit(main())
