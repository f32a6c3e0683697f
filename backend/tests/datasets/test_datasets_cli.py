"""`upgradelab datasets add/list/show/delete` against the test API (a zstd dump uploaded in blocks).

The first `add` runs the installed `upgradelab` script in its own process (the entry point, its exit
code and its streams); the other eleven commands invoke the same Typer app in this process, which
sends the same HTTP requests to the same API and worker and saves an interpreter start and the CLI's
imports (about 3 s of CPU each on this host) per command."""

import hashlib
import subprocess

import zstandard
from typer.testing import CliRunner, Result

from tests.conftest import BIN, DATASET_DIRS
from upgradelab.cli import app


def _cli(api: str, *args: str, answer: str | None = None) -> Result:
    """`upgradelab datasets ARGS --api API` in this process; `answer` is typed on stdin."""
    return CliRunner().invoke(app, ["datasets", *args, "--api", api], input=answer)


def test_add_list_show_delete(api: str) -> None:
    dump = DATASET_DIRS[1] / "cli.sql.zst"  # inside UPGRADELAB_DATASET_DIRS, for --on-worker
    plain = (
        b"CREATE TABLE t (id INT PRIMARY KEY);\n"
        + b"INSERT INTO t VALUES "
        + b",".join(f"({i})".encode() for i in range(300_000))
        + b";\n"
    )
    dump.write_bytes(zstandard.compress(plain))
    added = subprocess.run(
        [str(BIN / "upgradelab"), "datasets", "add", "cli-dump", str(dump), "--api", api],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    assert "cli-dump" in added.stdout and "zstd" in added.stdout and "uploading" in added.stderr
    assert "cli-dump" in _cli(api, "list").stdout
    shown = _cli(api, "show", "cli-dump")
    assert (
        hashlib.sha256(dump.read_bytes()).hexdigest() in shown.stdout and "database cli_dump" in shown.stdout
    )
    again = _cli(api, "add", "cli-dump", str(dump))
    assert again.exit_code == 2 and "exists" in again.stderr
    from_worker = _cli(api, "add", "cli-dump-2", str(dump), "--on-worker")
    assert from_worker.exit_code == 0, from_worker.stderr
    kept = _cli(api, "delete", "cli-dump", answer="n\n")  # asks first; "n" keeps it
    assert kept.exit_code == 1 and "0 replay reports measured on it will be kept" in kept.stderr
    assert "cli-dump " in _cli(api, "list").stdout
    assert _cli(api, "delete", "cli-dump", "--yes").exit_code == 0
    assert _cli(api, "delete", "cli-dump-2", answer="y\n").exit_code == 0
    gone = _cli(api, "show", "cli-dump")
    assert gone.exit_code == 2 and "dataset 'cli-dump' was deleted" in gone.stderr
    assert hashlib.sha256(dump.read_bytes()).hexdigest() in gone.stderr  # how to tell a re-upload
    assert "cli-dump " not in _cli(api, "list").stdout
    deleted = _cli(api, "list", "--deleted").stdout
    assert "cli-dump " in deleted and "cli-dump-2 " in deleted and "deleted" in deleted
