"""An assessment runs its fix searches largest slowdown first (assessment/runner.py
fix_search_order), so a budget that ends before the last one has spent itself where the gap is
largest: a timed-out statement (no ratio: slower than its bound) first, then by the replay's ratio,
ties in the replay's order; a fingerprint not slower on the version gets none. Deterministic: the
runner's step on a constructed assessor (no worker, no server, no child run)."""

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from tests.assessment.children import NEW, fingerprint, replay
from upgradelab.assessment.runner import Assessor
from upgradelab.assessment.schemas import VersionChildren
from upgradelab.replay.schemas import ReplayRead

SLOWER = [{"kind": "slower", "cause": {"kind": "plan change", "text": "plan changed"}}]
# the replay's report order: the order the fingerprints' statements came in the workload
REPLAY = replay(
    [
        fingerprint("a" * 32, "SELECT a", SLOWER, ratio=1.3),
        fingerprint("b" * 32, "SELECT b", [{"kind": "breaks"}]),
        fingerprint("c" * 32, "SELECT c", SLOWER, ratio=17.0),
        fingerprint("d" * 32, "SELECT d", [{"kind": "slower (timed out)"}]),
        fingerprint("e" * 32, "SELECT e", SLOWER, ratio=2.5),
        fingerprint("f" * 32, "SELECT f", SLOWER, ratio=1.3),
    ],
    exit_bits=2,
)


class _Children:
    """The runner's children module as far as its fix-search step goes: the replay read, each fix
    search's creation recorded (its fingerprint's first letter, its version)."""

    def __init__(self) -> None:
        self.created: list[str] = []

    def read_replay(self, replay_id: int) -> ReplayRead:
        assert replay_id == 7
        return REPLAY

    def create_fix_search(self, replay_id: int, fingerprint_id: str, version: str, *_: Any) -> int:
        assert (replay_id, version) == (7, NEW)
        self.created.append(fingerprint_id[0])
        return len(self.created)


def _searches(stopped: Callable[[list[str]], bool]) -> tuple[list[str], int]:
    """The fingerprints whose fix searches the runner's step started, in order, until `stopped`
    (given those started) says so; and the steps it counted."""
    assessor: Any = Assessor.__new__(Assessor)  # no row, no worker: only what the step reads
    children = _Children()
    assessor.make, assessor.steps, assessor.deadline = children, 0, time.monotonic() + 600
    assessor.row = SimpleNamespace(fix_tolerance=0.10)
    assessor.owner, assessor.id = None, 1
    assessor._child = lambda kind, step, create, keep: keep(create())  # made, not run
    assessor._fix_searches(VersionChildren(version=NEW, replay_id=7), lambda: stopped(children.created))
    return children.created, assessor.steps


def test_the_fix_searches_run_largest_slowdown_first() -> None:
    started, steps = _searches(lambda started: False)
    # timed out (no ratio) first, then 17x, 2.5x, and the two 1.3x in the replay's order; the break none
    assert started == ["d", "c", "e", "a", "f"] and steps == 5


def test_a_budget_that_ends_after_two_searches_has_spent_them_on_the_two_largest_gaps() -> None:
    started, _ = _searches(lambda started: len(started) >= 2)
    assert started == ["d", "c"]
