"""Issue 21 (c): a gap no candidate explains ends "unexplained" with the share, never a made-up cause.

On the real MySQL 9.7 binary, the variant runs on a second target of the same binary and settings (a
copy of mysql-9.7 under another name and port) with three server options that do not matter to
article 001's loop. Its servers are slowed from outside their configuration, like a busy neighbour or
a smaller host: while the test runs, every server of that target is moved into a cgroup of its own
with a CPU quota (a tenth of one CPU). The attribution changes settings, never the target, so each
step's tests run slowed too: the candidates together close nothing, and the attribution must say so,
with the share of the gap left unexplained, and name none of them. (The two targets' recorded contexts
also differ in identity, server_uuid and gtid_executed, listed as "cannot be tested", and in values
sized from the options, table_definition_cache, innodb_open_files and host_cache_size: on two targets
these are candidates too, tested with the options.)

Measured here (2 cores, the host otherwise busy), two runs: the gap 5.79x [3.30, 10.17] and 7.41x
[5.90, 9.30] after 6 rounds of 10; all six candidates together closed 0.5 % [-4.1, 5.1] and -2.1 %
[-10.3, 6.2] of it: unexplained 99.5 % and 100 %, in 1 step run each (1.1 and 1.2 min; the test about
2.2 min). Stopping the servers in turns with SIGSTOP / SIGCONT instead fought the lab's own
freezing of idle servers (execution/instances.py), and a session setting of the workload's connection
(the other cause outside the candidates) moves this loop too little here: `autocommit=0` 1.007x
[0.818, 1.239], binlog_transaction_compression at zstd level 22 1.025x, optimizer_trace 1.056x.
"""

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, select

from tests import ports
from tests.attribution.helpers import finished_run, start_attribution, verdict_of, wait_attribution
from tests.conftest import SERVER_DIR
from upgradelab.db import sync_session
from upgradelab.targets.models import Target

IRRELEVANT = {"max-connections": "300", "table-open-cache": "2000", "thread-cache-size": "20"}
ROUNDS, BLOCK, BUDGET = 6, 10, 3
SLOW = f"mysql-9.7-slow-t{ports.SESSION}"
CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")
PERIOD_US, QUOTA = 100_000, 0.1  # the slowed servers get a tenth of one CPU at most


def _servers_of(target: str) -> list[int]:
    """Pids of the mysqld servers running from `target`'s server directory (this session's) for a run
    (their option file my.cnf); not those that make its template (once per target, not measured)."""
    prefix = f"{SERVER_DIR}/{target}/".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                command = (proc / "cmdline").read_bytes()
                if prefix in command and b"mysqld" in command and b"/my.cnf" in command:
                    found.append(int(proc.name))
    return found


@contextlib.contextmanager
def slowed(target: str) -> Iterator[None]:
    """While inside: every server of `target` in a cgroup of its own with a CPU quota (QUOTA of each
    scheduler period), moved there as it starts (looked for every 0.2 s); all moved back and the
    cgroup removed on exit. Skips the test where no cgroup v1 cpu controller can be written."""
    if not os.access(CPU_CGROUPS, os.W_OK):
        pytest.skip(f"{CPU_CGROUPS} is not writable here: no way to slow a target's servers")
    group = CPU_CGROUPS / f"upgradelab-test-{ports.SESSION}-slow"
    group.mkdir(exist_ok=True)
    (group / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
    (group / "cpu.cfs_quota_us").write_text(f"{int(PERIOD_US * QUOTA)}\n")
    done = threading.Event()

    def move() -> None:
        while not done.is_set():
            for pid in _servers_of(target):
                with contextlib.suppress(OSError):  # gone meanwhile
                    (group / "cgroup.procs").write_text(f"{pid}\n")
            done.wait(0.2)

    worker = threading.Thread(target=move, daemon=True)
    worker.start()
    try:
        yield
    finally:
        done.set()
        worker.join(timeout=10)
        _remove(group)


def _remove(group: Path, timeout_s: float = 30) -> None:
    """Move what is left in `group` back to the root cgroup and remove it. A server killed at its run's
    end stays in its cgroup as a zombie until its parent reaps it (it cannot be moved), and rmdir
    says EBUSY meanwhile: retried until `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                (CPU_CGROUPS / "cgroup.procs").write_text(f"{pid}\n")
        try:
            group.rmdir()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def slow_target(client: httpx.Client) -> Iterator[str]:
    """A copy of the mysql-9.7 target (same binary, chroot and settings) on its own port; its row is
    removed afterwards (its servers stopped with their runs)."""
    with sync_session() as session:  # the API never shows a target's settings (its password)
        original = session.scalars(select(Target).where(Target.name == "mysql-9.7")).one()
        settings: dict[str, Any] = {**original.settings, "port": ports.ATTRIBUTION_SLOW_TARGET}
    body = {"name": SLOW, "flavor": "mysql", "provisioner": "local", "settings": settings, "disposable": True}
    created = client.post("/api/targets", json=body)
    assert created.status_code == 201, created.text
    yield SLOW
    with sync_session() as session:  # later tests of the session see the seeded targets only
        session.execute(delete(Target).where(Target.name == SLOW))
        session.commit()


def test_a_gap_no_candidate_explains_ends_unexplained_naming_no_setting(
    client: httpx.Client, slow_target: str
) -> None:
    variants: list[dict[str, Any]] = [
        {"target": "mysql-9.7", "name": "mysql-9.7"},
        {"target": slow_target, "name": "slow host", "options": IRRELEVANT},
    ]
    started_at = time.monotonic()
    with slowed(slow_target):
        run = finished_run(client, variants, ROUNDS, BLOCK, max_rounds=12)
        gap = verdict_of(client, run["id"], "slow host")
        print("origin gap:", gap["ratio"], [gap["low"], gap["high"]], gap["verdict"], gap["rounds"], "rounds")
        created = start_attribution(client, run["id"], "slow host", ROUNDS, BLOCK, BUDGET)
        if gap["verdict"] != "regression":
            # a host too noisy to decide even this gap: nothing to explain, refused (never guessed)
            assert gap["verdict"] == "improvement" or created.status_code == 409, created.text
            pytest.skip(f"no decided slowdown of the slowed target on this host: {gap}")
        assert created.status_code == 201, created.text
        started = created.json()
        names = {c["name"] for c in started["candidates"]}
        assert set(IRRELEVANT) <= names, started["candidates"]
        assert all(u["reason"] for u in started["untestable"])
        found = wait_attribution(client, started["id"], timeout_s=600)
    minutes = (time.monotonic() - started_at) / 60

    assert found["status"] == "succeeded", found
    result = found["result"]
    print(
        f"attribution: {result['outcome']}, all candidates together {result['all_share']}, unexplained "
        f"{result['unexplained']}, {result['runs']} step runs, {result['minutes']} min "
        f"(test {minutes:.1f} min); candidates {sorted(names)}, untestable "
        f"{[u['name'] for u in started['untestable']]}"
    )
    assert result["outcome"] == "unexplained", result
    assert result["complete"] is True
    # no cause named: no set, no member, no overlapping candidate, no option line to apply
    assert result["set"] == [] and result["members"] == [] and result["also"] == []
    assert result["lines"] == [] and result["set_share"] is None
    # all candidates together were measured, closed less than the target share, and what they leave is
    # the unexplained share: the whole gap, within the step's noise
    together = result["all_share"]
    assert together is not None and together["share"] < started["target_share"], together
    assert result["unexplained"] == pytest.approx(min(1.0, max(0.0, 1 - together["share"])))
    assert result["unexplained"] >= 0.7, result
    assert 1 <= result["runs"] <= BUDGET and len(found["steps"]) == result["runs"]
    for step in found["steps"]:
        assert client.get(f"/api/runs/{step['run_id']}").json()["status"] == "succeeded"
    exported = client.get(f"/api/attributions/{found['id']}/export", params={"format": "csv"})
    assert exported.status_code == 200
    lines = exported.text.splitlines()
    assert not [line for line in lines if line.startswith("member,")]
    assert next(line for line in lines if line.startswith("unexplained,")).endswith(",unexplained")
