"""One CPU for the client and the servers while a replay times (execution/timing_cpu.py): the plan from
the setting and the variants' processes, and the pinning on real processes of this host (a child with
threads stands in for a server; the replay on real servers is checked in
tests/replay/test_statement_cost_on_server.py)."""

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from upgradelab.execution import timing_cpu
from upgradelab.execution.timing_cpu import (
    candidates,
    one_cpu,
    pin_process,
    pinned_thread,
    server_here,
    unpin,
)

TWO = {0, 1}
SERVERS = [("a", 101), ("b", 102)]


def test_auto_tries_every_cpu_highest_first_when_the_worker_may_use_two_or_more() -> None:
    assert candidates("auto", SERVERS, allowed={0, 1, 2, 3}) == ([3, 2, 1, 0], "")


def test_auto_on_one_cpu_pins_nothing_and_says_why() -> None:
    tried, why = candidates("auto", SERVERS, allowed={0})
    assert tried == [] and "one CPU only" in why


def test_off_pins_nothing_naming_the_setting() -> None:
    tried, why = candidates("off", SERVERS, allowed=TWO)
    assert tried == [] and "UPGRADELAB_REPLAY_TIMING_CPU=off" in why


def test_a_cpu_number_is_tried_only_when_the_worker_may_use_it() -> None:
    assert candidates(0, SERVERS, allowed=TWO) == ([0], "")
    tried, why = candidates(5, SERVERS, allowed=TWO)
    assert tried == [] and "CPU 5" in why and "UPGRADELAB_REPLAY_TIMING_CPU" in why


def test_a_variant_without_a_process_here_leaves_every_variant_unpinned() -> None:
    tried, why = candidates("auto", [("a", 101), ("staging", None)], allowed=TWO)
    assert tried == [] and "staging" in why and "two ways" in why


@pytest.fixture
def child() -> Iterator[int]:
    """A process of this host with four threads (a server's stand-in), killed afterwards."""
    code = (
        "import threading, time\n"
        "for _ in range(3): threading.Thread(target=time.sleep, args=(60,)).start()\n"
        "time.sleep(60)"
    )
    process = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 10
    while len(list(Path(f"/proc/{process.pid}/task").iterdir())) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    yield process.pid
    process.kill()
    process.wait()


def affinities(pid: int) -> list[set[int]]:
    return [os.sched_getaffinity(int(task.name)) for task in Path(f"/proc/{pid}/task").iterdir()]


EVERY = os.sched_getaffinity(0)


def stand_in(pid: int) -> bool:  # the stand-in child is a server here
    del pid
    return True


needs_two = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="this machine gives one CPU")


@needs_two
def test_every_thread_of_a_process_is_pinned_and_put_back(child: int) -> None:
    cpu = max(os.sched_getaffinity(0))
    assert pin_process(child, cpu) == 4
    assert affinities(child) == [{cpu}] * 4
    unpin([child])
    assert affinities(child) == [os.sched_getaffinity(0)] * 4


@needs_two
def test_one_cpu_pins_the_thread_and_every_process_inside_and_puts_them_back(
    child: int, tmp_path: Path
) -> None:
    every = os.sched_getaffinity(0)
    with one_cpu("auto", [("a", child)], tmp_path, stand_in) as timing:
        assert timing.cpu == max(every) and f"CPU {timing.cpu}" in timing.text
        assert affinities(child) == [{timing.cpu}] * 4
        assert os.sched_getaffinity(0) == {timing.cpu}
    assert affinities(child) == [every] * 4
    assert os.sched_getaffinity(0) == every


# Another process (a job of another worker process, on every CPU argv[3] names: a child inherits the
# pinned thread's one) asks for CPU argv[2] ("auto" or a number) under claims directory argv[1]: it
# prints the CPU it got ("none") and whether the text says "taken".
ASK = """
import os, sys
from pathlib import Path
from upgradelab.execution.timing_cpu import one_cpu
os.sched_setaffinity(0, {int(cpu) for cpu in sys.argv[3].split(",")})
setting = sys.argv[2] if sys.argv[2] == "auto" else int(sys.argv[2])
with one_cpu(setting, [], Path(sys.argv[1])) as timing:
    print(timing.cpu if timing.cpu is not None else "none", "taken" in timing.text, flush=True)
"""


HOLD = ASK + "    sys.stdin.read()\n"  # holds its claim until its standard input is closed


def ask(claims: Path, setting: str) -> list[str]:
    asked = subprocess.run(
        [sys.executable, "-c", ASK, str(claims), setting, ",".join(map(str, EVERY))],
        capture_output=True,
        text=True,
        check=True,
    )
    return asked.stdout.split()


@needs_two
def test_a_second_job_takes_the_next_free_cpu_and_none_when_all_are_taken(child: int, tmp_path: Path) -> None:
    every = os.sched_getaffinity(0)
    with one_cpu("auto", [("a", child)], tmp_path, stand_in) as first:
        assert ask(tmp_path, str(first.cpu)) == ["none", "True"]
        assert ask(tmp_path, "auto") == [str(sorted(every)[-2]), "False"]
        if len(every) == 2:  # a third while another process holds the other CPU: none left
            holder = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    ASK + "    sys.stdin.read()",
                    str(tmp_path),
                    "auto",
                    ",".join(map(str, EVERY)),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert holder.stdout is not None and holder.stdin is not None
            try:
                assert holder.stdout.readline().split() == [str(min(every)), "False"]
                assert ask(tmp_path, "auto") == ["none", "True"]
            finally:
                holder.stdin.close()
                holder.wait(10)
    assert ask(tmp_path, str(max(every))) == [str(max(every)), "False"]  # released when the block ended


@needs_two
def test_a_process_that_may_not_be_pinned_leaves_none_pinned(
    child: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = os.sched_getaffinity(0)
    real = timing_cpu.pin_process

    def refused(pid: int, cpus: int | set[int]) -> int:
        if pid == 999_999 and cpus != every:
            raise PermissionError(1, "Operation not permitted")
        return real(pid, cpus)

    monkeypatch.setattr(timing_cpu, "pin_process", refused)
    with one_cpu("auto", [("a", child), ("b", 999_999)], tmp_path, stand_in) as timing:
        assert timing.cpu is None and "could not be" in timing.text
        assert affinities(child) == [every] * 4  # the one pinned first is put back
        assert os.sched_getaffinity(0) == every


def test_a_process_that_is_gone_pins_nothing() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert pin_process(process.pid, 0) == 0


@needs_two
def test_the_calling_thread_is_pinned_inside_the_block_only() -> None:
    before = os.sched_getaffinity(0)
    cpu = max(before)
    seen: dict[str, set[int]] = {}

    def other() -> None:
        seen["other"] = os.sched_getaffinity(0)

    with pinned_thread(cpu):
        seen["inside"] = os.sched_getaffinity(0)
        thread = threading.Thread(target=other)  # a thread started inside inherits the pin
        thread.start()
        thread.join()
    assert seen == {"inside": {cpu}, "other": {cpu}}
    assert os.sched_getaffinity(0) == before
    with pinned_thread(None):
        assert os.sched_getaffinity(0) == before


def test_only_a_mysql_or_mariadb_process_counts_as_a_server_here(child: int) -> None:
    """A docker target's host pid seen from a worker in its own container is another process or none:
    neither is pinned, and so no variant is."""
    assert not server_here(child)  # python, not mysqld
    assert not server_here(2**22 + 1)  # beyond pid_max's default: no such process
    tried, why = candidates("auto", [("a", None)], allowed=TWO)
    assert tried == [] and "a is not a server process on this host" in why


@needs_two
def test_a_claims_directory_that_cannot_be_made_leaves_the_replay_unpinned(
    child: int, tmp_path: Path
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with one_cpu("auto", [("a", child)], blocked / "claims", stand_in) as timing:
        assert timing.cpu is None and "no claim could be made" in timing.text
        assert affinities(child) == [EVERY] * 4
