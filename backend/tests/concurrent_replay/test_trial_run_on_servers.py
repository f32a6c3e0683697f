"""A variant's trials on the real MariaDB 10.11 (measurement/trial_run.py): the dataset loaded
once and kept, each trial from a copy of it (two trials that both write end with the same data), a
session that never commits rolled back, a statement writing outside the dataset refused by the
writer account, every phase told; a cancel in the trial ends it within seconds with the server
stopped and no session left; a cancel at the copy ends it there; the kept copy put back at the end
is the dataset as loaded, reused by the next preparation."""

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from upgradelab.measurement import (
    DumpDataset,
    TrialCancelled,
    file_sha256,
    log_sessions,
    prepare_trials,
    restore_datadir,
    run_trial,
)
from upgradelab.measurement.querylog.formats import text_stream
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads.base import scalar

DUMP = """\
CREATE TABLE c (id INT PRIMARY KEY, v INT) ENGINE = InnoDB;
INSERT INTO c VALUES (1, 0), (2, 0);
CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(20)) ENGINE = InnoDB;
"""

# T1 writes and commits; T2 never commits (it quits inside its transaction); T3 writes outside the
# dataset (refused by the account)
WRITES = """\
Time\t\t    Id Command\tArgument
261206  8:00:00\t    31 Connect\tapp@localhost on trialshop using TCP/IP
\t\t    32 Connect\tapp@localhost on trialshop using TCP/IP
\t\t    33 Connect\tapp@localhost on trialshop using TCP/IP
\t\t    31 Query\tBEGIN
\t\t    31 Query\tUPDATE c SET v = v + 1 WHERE id = 1
\t\t    31 Query\tINSERT INTO log (what) VALUES ('t1')
\t\t    31 Query\tCOMMIT
\t\t    32 Query\tBEGIN
\t\t    32 Query\tUPDATE c SET v = 100 WHERE id = 2
\t\t    33 Query\tCREATE DATABASE elsewhere
\t\t    33 Query\tINSERT INTO mysql.db (Host, Db, User) VALUES ('%', '%', 'evil')
\t\t    31 Quit\t
\t\t    32 Quit\t
\t\t    33 Quit\t
"""

SLEEPS = """\
Time\t\t    Id Command\tArgument
261206  8:00:00\t    41 Connect\tapp@localhost on trialshop using TCP/IP
\t\t    41 Query\tSELECT SLEEP(30)
\t\t    41 Quit\t
"""


@pytest.fixture(scope="module")
def instance(database: None) -> Iterator[LocalProvisioner]:
    provisioner = lab_provisioner("mariadb-10.11", ports.UNIT_TARGETS["mariadb-10.11"], suffix="trialrun")
    try:
        yield provisioner
    finally:
        provisioner.discard()
        provisioner.stop()


def _dataset() -> DumpDataset:
    path = Path(STATE) / "trialshop.sql"
    path.write_text(DUMP)
    return DumpDataset(path, file_sha256(path), "trialshop")


def _session_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(("session-", "lock-wait"))]


def test_each_trial_starts_from_the_kept_dataset_and_the_account_writes_only_there(
    instance: LocalProvisioner,
) -> None:
    target = prepare_trials(instance, [], _dataset())
    assert target.kept.is_dir() and target.kept_copy is not None and target.kept_copy.bytes > 1 << 20
    assert target.databases == ["trialshop"] and instance.pid() is None  # stopped after keeping
    sessions = log_sessions(text_stream(WRITES), "general").sessions
    phases: list[str] = []
    trials = [
        run_trial(target, sessions, speed=0, timeout_s=10, step=phases.append, sample_s=0.1) for _ in range(2)
    ]
    assert phases == ["copy", "start", "trial", "checksum"] * 2
    first, second = trials
    assert first.checksums == second.checksums  # the second did not start from the first's writes
    assert set(first.checksums) == {"trialshop.c", "trialshop.log"}
    assert first.datadir_copy.seconds > 0 and first.datadir_copy.bytes == target.kept_copy.bytes
    assert first.start_s > 0 and instance.pid() is None
    summary = first.summary
    assert summary.rows_changed == 3  # T1's update and insert, T2's update (rolled back at its quit)
    refused = {e.code for e in summary.errors}
    assert refused and refused <= {1044, 1142}, summary.errors  # access denied: database, table
    assert {e.thread_id for e in summary.errors} == {33}
    assert summary.transactions >= 1 and first.locks.counters.deadlocks == 0
    endpoint = instance.start([], keep_data=True)  # what the last trial left
    admin = endpoint.connect()
    try:
        assert scalar(admin, "SELECT GROUP_CONCAT(v ORDER BY id) FROM trialshop.c") == "1,0"
        assert (
            scalar(admin, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'elsewhere'")
            == 0
        )
    finally:
        admin.close()
        instance.stop()
    restore_datadir(target)
    assert not target.kept.exists()
    again = prepare_trials(instance, [], _dataset())  # the restored datadir is the dataset as loaded
    assert again.reused
    restore_datadir(again)


def test_a_cancel_ends_the_trial_in_its_phase_and_leaves_nothing_running(instance: LocalProvisioner) -> None:
    target = prepare_trials(instance, [], _dataset())
    try:
        sessions = log_sessions(text_stream(SLEEPS), "general").sessions
        asked = threading.Event()
        phases: list[str] = []

        def step(phase: str) -> None:
            phases.append(phase)
            if phase == "trial":
                threading.Timer(1.0, asked.set).start()

        started = time.monotonic()
        with pytest.raises(TrialCancelled, match="its trial phase") as cancelled:
            run_trial(target, sessions, speed=0, timeout_s=60, cancelled=asked.is_set, step=step)
        assert cancelled.value.phase == "trial"
        assert time.monotonic() - started < 30  # not the SLEEP's 30 s
        assert instance.pid() is None and _session_threads() == []
        with pytest.raises(TrialCancelled, match="its copy phase"):
            run_trial(target, sessions, speed=0, timeout_s=60, cancelled=lambda: True)
        assert instance.pid() is None
    finally:
        restore_datadir(target)
