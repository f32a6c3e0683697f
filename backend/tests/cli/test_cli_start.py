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


def _command_loads(argv: list[str], code: int) -> subprocess.CompletedProcess[str]:
    """`upgradelab ARGV` in a fresh interpreter that must exit with `code`; its stdout ends with
    the HEAVY modules loaded by then, one a line."""
    script = (
        f"import sys, runpy; sys.argv = ['upgradelab', *{argv!r}]\n"
        "try:\n    runpy.run_module('upgradelab.cli', run_name='__main__')\n"
        f"except SystemExit as end:\n    assert end.code == {code}, end.code\n"
        f"print('\\n'.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _heavy(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.split(".")[0] in HEAVY]


def test_its_help_runs_without_them() -> None:
    done = _command_loads(["--help"], 0)
    assert "Usage: upgradelab" in done.stdout
    assert _heavy(done.stdout) == []


def test_a_run_the_api_never_accepted_exits_without_them() -> None:
    """`upgradelab run` imports the API's schemas once its experiment is accepted, not before: an
    unreachable API (as here) or a refusal costs an interpreter start, not the statistics' imports."""
    done = _command_loads(["run", "--api", "http://127.0.0.1:9", "--variant", "mysql-9.7"], 2)
    assert "cannot reach the Upgrade Lab API at http://127.0.0.1:9" in done.stderr
    assert _heavy(done.stdout) == []
