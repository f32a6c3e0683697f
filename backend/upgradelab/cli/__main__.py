"""`python -m upgradelab.cli`: the same as the `upgradelab` script."""

import sys

from upgradelab.cli import app

sys.exit(app(prog_name="upgradelab"))
