"""`upgradelab` starts light: importing the command line loads no statistics (scipy, numpy), no
models (sqlalchemy) and no web framework (fastapi). A command that needs them imports them itself;
the suite starts the command line as a subprocess many times (issue 31), and so does every user."""

import subprocess
import sys

HEAVY = ("scipy", "sqlalchemy", "fastapi", "numpy")


def _loaded_at_start(module: str) -> list[str]:
    """The HEAVY modules in sys.modules after `import MODULE` in a fresh interpreter."""
    code = (
        f"import sys, {module}; "
        f"print('\\n'.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_command_line_imports_no_statistics_models_or_web_framework() -> None:
    assert _loaded_at_start("upgradelab.cli") == []


def test_its_help_runs_without_them() -> None:
    code = (
        "import sys, runpy; sys.argv = ['upgradelab', '--help']\n"
        "try:\n    runpy.run_module('upgradelab.cli', run_name='__main__')\n"
        "except SystemExit as end:\n    assert end.code == 0, end.code\n"
        f"print('\\n'.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Usage: upgradelab" in done.stdout
    assert [line for line in done.stdout.splitlines() if line.split(".")[0] in HEAVY] == []
