"""`upgradelab datasets add/list/show/delete` against the test API (a zstd dump uploaded in blocks)."""

import hashlib
import subprocess

import zstandard

from tests.conftest import BIN, DATASET_DIRS


def _cli(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "upgradelab"), "datasets", *args, "--api", api],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _cli_input(api: str, answer: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "upgradelab"), "datasets", *args, "--api", api],
        capture_output=True,
        text=True,
        timeout=120,
        input=answer,
    )


def test_add_list_show_delete(api: str) -> None:
    dump = DATASET_DIRS[1] / "cli.sql.zst"  # inside UPGRADELAB_DATASET_DIRS, for --on-worker
    plain = (
        b"CREATE TABLE t (id INT PRIMARY KEY);\n"
        + b"INSERT INTO t VALUES "
        + b",".join(f"({i})".encode() for i in range(300_000))
        + b";\n"
    )
    dump.write_bytes(zstandard.compress(plain))
    added = _cli(api, "add", "cli-dump", str(dump))
    assert added.returncode == 0, added.stderr
    assert "cli-dump" in added.stdout and "zstd" in added.stdout and "uploading" in added.stderr
    assert "cli-dump" in _cli(api, "list").stdout
    shown = _cli(api, "show", "cli-dump")
    assert (
        hashlib.sha256(dump.read_bytes()).hexdigest() in shown.stdout and "database cli_dump" in shown.stdout
    )
    again = _cli(api, "add", "cli-dump", str(dump))
    assert again.returncode == 2 and "exists" in again.stderr
    from_worker = _cli(api, "add", "cli-dump-2", str(dump), "--on-worker")
    assert from_worker.returncode == 0, from_worker.stderr
    kept = _cli_input(api, "n\n", "delete", "cli-dump")  # asks first; "n" keeps it
    assert kept.returncode == 1 and "0 replay reports measured on it will be kept" in kept.stderr
    assert "cli-dump " in _cli(api, "list").stdout
    assert _cli(api, "delete", "cli-dump", "--yes").returncode == 0
    assert _cli_input(api, "y\n", "delete", "cli-dump-2").returncode == 0
    gone = _cli(api, "show", "cli-dump")
    assert gone.returncode == 2 and "dataset 'cli-dump' was deleted" in gone.stderr
    assert hashlib.sha256(dump.read_bytes()).hexdigest() in gone.stderr  # how to tell a re-upload
    assert "cli-dump " not in _cli(api, "list").stdout
    deleted = _cli(api, "list", "--deleted").stdout
    assert "cli-dump " in deleted and "cli-dump-2 " in deleted and "deleted" in deleted
