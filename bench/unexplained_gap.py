"""The unexplained-gap power check (issue 21 (c), a gate test until issue 31 moved it here): a gap no
candidate explains ends "unexplained" with its share, never a made-up cause.

On the real MySQL 9.7 binary, the variant runs on a second target of the same binary and settings (a
copy of mysql-9.7 under another name and port) with three server options that do not matter to
article 001's loop. Its servers are slowed from outside their configuration, like a busy neighbour or
a smaller host: while the check runs, every server of that target is moved into a cgroup of its own
with a CPU quota (a tenth of one CPU). The attribution changes settings, never the target, so each
step's runs are slowed too: the candidates together close nothing, and the attribution must say so,
with the share of the gap left unexplained, and name none of them. (The two targets' recorded contexts
also differ in identity, server_uuid and gtid_executed, listed as "cannot be tested", and in values
sized from the options, table_definition_cache, innodb_open_files and host_cache_size: on two targets
these are candidates too, tested with the options.)

Why a power check: whether the slowed target's gap is decided at all depends on the host (a host too
noisy to decide even a 5x gap refuses the attribution: the gate test skipped then), and the decision
"the candidates together close less than the target share" is a timing verdict on real servers. The
decision rule itself is tested deterministically in the gate (tests/oracle/test_attribution.py and
tests/attribution/test_search.py: "a gap no candidate closes ends unexplained"). Measured as a gate
test (2 cores, the host otherwise busy), two runs: the gap 5.79x [3.30, 10.17] and 7.41x [5.90, 9.30]
after 6 rounds of 10; all six candidates together closed 0.5 % [-4.1, 5.1] and -2.1 % [-10.3, 6.2] of
it: unexplained 99.5 % and 100 %, in 1 step run each (1.1 and 1.2 min; 2.2-2.7 min in all). Stopping
the servers in turns with SIGSTOP / SIGCONT instead fought the lab's own freezing of idle servers
(execution/instances.py).
"""

import argparse
import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import power_checks as checks

IRRELEVANT = {"max-connections": "300", "table-open-cache": "2000", "thread-cache-size": "20"}
ROUNDS, BLOCK, BUDGET = 6, 10, 3
SLOW = "mysql-9.7-slow"
CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")
PERIOD_US, QUOTA = 100_000, 0.1  # the slowed servers get a tenth of one CPU at most


def _servers_of(target: str) -> list[int]:
    """Pids of the mysqld servers running from `target`'s server directory for a run (their option
    file my.cnf); not those that make its template (once per target, not measured)."""
    prefix = f"{os.environ['UPGRADELAB_SERVER_DIR']}/{target}/".encode()
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
    cgroup removed on exit. SystemExit where no cgroup v1 cpu controller can be written."""
    if not os.access(CPU_CGROUPS, os.W_OK):
        raise SystemExit(f"{CPU_CGROUPS} is not writable here: no way to slow a target's servers")
    group = CPU_CGROUPS / f"upgradelab-bench-{os.getpid()}-slow"
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


def add_slow_target(client: Any, port: int) -> None:
    """A copy of the bench instance's mysql-9.7 target (same binary, chroot and settings) named SLOW on
    `port` (its settings read from the instance's database: the API never shows a password)."""
    from sqlalchemy import select

    from upgradelab.db import sync_session
    from upgradelab.targets.models import Target

    with sync_session() as session:
        original = session.scalars(select(Target).where(Target.name == "mysql-9.7")).one()
        settings: dict[str, Any] = {**original.settings.stored(), "port": port}
    body = {"name": SLOW, "flavor": "mysql", "provisioner": "local", "settings": settings, "disposable": True}
    created = client.post("/api/targets", json=body)
    if created.status_code != 201:
        raise SystemExit(f"the slowed target was refused: {created.status_code} {created.text}")


def check(client: Any, args: argparse.Namespace, port: int) -> bool:
    """K origin runs of mysql-9.7 against its slowed copy, each attributed; goal: every attribution
    ends "unexplained" (>= 70 % of the gap), naming no setting, within BUDGET step runs."""
    add_slow_target(client, port)
    right = tried = refused = 0
    load = checks.load_average()
    print(f"unexplained gap: {args.k} attribution(s), {ROUNDS} rounds x {BLOCK}, load {load}")
    variants: list[dict[str, Any]] = [
        {"target": "mysql-9.7", "name": "mysql-9.7"},
        {"target": SLOW, "name": "slow host", "options": IRRELEVANT},
    ]
    with slowed(SLOW):
        for k in range(1, args.k + 1):
            if checks.out_of_time(args, k):
                break
            tried, started = k, time.monotonic()
            origin = checks.verdict_run(client, variants, args, seed=300 + k, aa_control=False, rounds=ROUNDS)
            print(f"  k={k} origin run #{origin['run']['id']}: {checks.interval(origin['rows'][1]['ratio'])}")
            body = {"run_id": origin["run"]["id"], "variant": "slow host", "rounds": ROUNDS, "block": BLOCK}
            created = client.post("/api/attributions", json={**body, "budget_runs": BUDGET})
            if created.status_code != 201:  # the gap itself undecided on this host: nothing to explain
                refused += 1
                print(f"  k={k} attribution refused: {created.status_code} {created.text}")
                continue
            found = checks.wait(client, f"/api/attributions/{created.json()['id']}")
            result = found["result"] or {}
            ok = (
                found["status"] == "succeeded"
                and result.get("outcome") == "unexplained"
                and not result.get("set")
                and not result.get("also")
                and (result.get("unexplained") or 0) >= 0.7
                and result.get("runs", BUDGET + 1) <= BUDGET
            )
            right += ok
            print(
                f"  k={k} attribution #{found['id']} {found['status']}: {result.get('outcome')}, all "
                f"together {result.get('all_share')}, unexplained {result.get('unexplained')}, "
                f"{result.get('runs')} step runs (check {(time.monotonic() - started) / 60:.1f} min)"
            )
    return checks.report(
        "unexplained-gap",
        [
            checks.Goal(
                "gap decided", checks.share(tried - refused, tried), "every origin run", refused == 0
            ),
            checks.Goal(
                "unexplained, naming nothing",
                checks.share(right, tried),
                "every attribution",
                right == tried > 0,
            ),
        ],
    )
