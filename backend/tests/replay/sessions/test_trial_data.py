"""Identical starting data per trial: a stopped server's kept datadir copied (cp --reflink=auto)
gives the next trial the rows it had, whatever the trial before wrote; the copy is timed; a cancel
removes a partial copy; what is no datadir is refused."""

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.measurement import DatadirCopyError, copy_datadir
from upgradelab.workloads.base import execute, scalar


def test_each_trial_starts_from_the_kept_rows(database: None) -> None:
    provisioner = lab_provisioner("mariadb-10.11", ports.UNIT_TARGETS["mariadb-10.11"], suffix="trialdata")
    data = provisioner._host("data")
    kept = data.with_name("data.kept")
    try:
        admin = provisioner.start([], keep_data=False).connect()
        execute(admin, "CREATE DATABASE shop", "CREATE TABLE shop.c (id INT PRIMARY KEY, v INT)")
        execute(admin, "INSERT INTO shop.c VALUES (1, 0), (2, 0)")
        admin.close()
        provisioner.stop()
        made = copy_datadir(data, kept)  # the dataset's loaded datadir, kept
        assert made.bytes > 1 << 20 and made.seconds > 0 and made.filesystem
        sums: list[str] = []
        for trial in range(2):
            copy = copy_datadir(kept, data)  # the trial's datadir: the kept rows
            assert copy.target == str(data)
            admin = provisioner.start([], keep_data=True).connect()
            sums.append(str(scalar(admin, "SELECT CONCAT(COUNT(*), ' rows, sum ', SUM(v)) FROM shop.c")))
            # the trial writes
            execute(admin, f"UPDATE shop.c SET v = v + {trial + 1}", "DELETE FROM shop.c WHERE id = 2")
            admin.close()
            provisioner.stop()
        assert sums == ["2 rows, sum 0", "2 rows, sum 0"]
    finally:
        provisioner.stop()
        shutil.rmtree(kept, ignore_errors=True)


def test_no_datadir_is_refused_and_a_cancelled_copy_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(DatadirCopyError, match=r"not a datadir \(no mysql/"):
        copy_datadir(tmp_path, tmp_path / "copy")
    source = tmp_path / "data"
    (source / "mysql").mkdir(parents=True)
    (source / "ibdata1").write_bytes(b"\0" * 4096)
    with pytest.raises(DatadirCopyError, match="its own source"):
        copy_datadir(source, source)
    # a copy still going when the cancel comes: a `cp` that makes its target, then takes 30 s (a real
    # one of a few MB ends before any cancel on a quiet host: the test would race it)
    slow = tmp_path / "bin"
    slow.mkdir()
    (slow / "cp").write_text('#!/bin/sh\nfor last; do :; done\nmkdir -p "$last"\nexec sleep 30\n')
    (slow / "cp").chmod(0o755)
    monkeypatch.setenv("PATH", f"{slow}:{os.environ['PATH']}")
    target = tmp_path / "trial"
    asked = threading.Event()
    threading.Timer(0.05, asked.set).start()
    started = time.monotonic()
    with pytest.raises(DatadirCopyError, match="cancelled"):
        copy_datadir(source, target, cancelled=asked.is_set)
    assert time.monotonic() - started < 5  # the cp killed, not waited for
    assert not target.exists()
