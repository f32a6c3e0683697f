"""bench/loop_overhead.py --quick --block 2 --json runs end to end and prints every figure (shape
only: the bench's numbers are read by hand, never asserted; bench/README.md)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests import ports

REPO = Path(__file__).resolve().parents[3]
# bench/instance.py's ports are its defaults + BENCH_PORT_OFFSET: 400 + the session keeps test
# sessions apart from each other and from a bench run by hand (default offset 250).
OFFSET = 400 + ports.SESSION


def test_quick_mode_prints_every_figure() -> None:
    env = {**os.environ, "BENCH_PORT_OFFSET": str(OFFSET), "PYTHONPATH": str(REPO / "backend")}
    done = subprocess.run(
        # blocks of 2 iterations, not --quick's 10: every figure still has switches and gaps to read
        # (2 variants x 2 rounds = 4 blocks, 3 switches), at a fifth of the iterations (issue 31)
        [sys.executable, str(REPO / "bench/loop_overhead.py"), "--quick", "--block", "2", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=540,  # under pytest-timeout's 600 s
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert (result["mode"], result["variants"], result["rounds"], result["block"]) == ("quick", 2, 2, 2)
    assert set(result["targets"]) == {"share", "switch_s", "final_s", "ready_s"}
    assert result["spare_instance_s"] > 0
    # one run starting its instances itself (the spares killed first), one taking the spares
    assert [(m["mode"], m["spares_waiting"]) for m in result["measured"]] == [("fresh", 0), ("spare", 2)]
    for run in (result["warmup"], *result["measured"]):
        assert run["status"] == "succeeded", (run["error"], done.stderr[-3000:])
        for name in ("wall_s", "in_iterations_s", "share", "ready_s", "first_iteration_s", "final_s"):
            assert isinstance(run[name], float), name
        for spread in (run["switch_s"], run["gap_s"]):
            assert set(spread) == {"median", "p95", "max"}
        assert set(run["split_s"]) == {
            "before_first_iteration",
            "iterations",
            "gaps_inside_blocks",
            "block_switches",
            "after_last_iteration",
        }
        assert abs(sum(run["split_s"].values()) - run["wall_s"]) < 1e-6  # the parts add up
    for measured in result["measured"]:
        assert (measured["iterations"], measured["blocks"]) == (8, 4)  # 2 variants x 2 rounds x 2
        assert all(isinstance(v, float) for v in measured["switch_s"].values())
    assert result["warmup"]["iterations"] == 2  # one round of one iteration per variant
    # nothing left running: the spares its worker started were killed with the instance
    server_dir = f"/var/lib/upgradelab/bench-servers-{OFFSET}/".encode()
    left = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and server_dir in _cmdline(p)]
    assert left == [], left


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""
