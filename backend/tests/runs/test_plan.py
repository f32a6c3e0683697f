"""The schedule of a run, as data: rounds, per-round shuffles from the seed, sequential, field defaults;
the per-instance cold policies and the run context's storage fact."""

import subprocess
from pathlib import Path

import pytest

from upgradelab.execution.schedule import Budget, Schedule, extensions, plan
from upgradelab.experiments.schedule import ScheduleError, check_extension, looks, resolve_schedule
from upgradelab.results.stats.verdicts import confidence_for
from upgradelab.runs.executor.blocks import restart_before
from upgradelab.runs.executor.context import storage_of


def test_every_round_holds_every_variant_once_in_a_seeded_order() -> None:
    schedule = plan("interleaved", rounds=12, block=3, seed=42, variant_count=4)
    assert len(schedule.order) == 12
    assert all(sorted(order) == [0, 1, 2, 3] for order in schedule.order)
    assert len({tuple(order) for order in schedule.order}) > 1  # shuffled, not one fixed order
    steps = schedule.steps(["table=a", "table=b"])
    assert len(steps) == 12 * 2 * 4 and [s.block for s in steps] == list(range(1, 97))
    for step in steps:
        assert schedule.order[step.round - 1][step.position] == step.variant_index
        assert step.iterations == 3


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    one = plan("interleaved", 10, 2, 7, 3)
    assert one == plan("interleaved", 10, 2, 7, 3)
    assert one.order != plan("interleaved", 10, 2, 8, 3).order
    assert one.as_json() == {"kind": "interleaved", "seed": 7, "rounds": 10, "block": 2, "order": one.order}


def test_sequential_runs_each_variant_through_every_group_before_the_next() -> None:
    steps = plan("sequential", 1, 5, 1, 2).steps(["g1", "g2"])
    assert [(s.variant_index, s.group, s.iterations, s.round) for s in steps] == [
        (0, "g1", 5, 1),
        (0, "g2", 5, 1),
        (1, "g1", 5, 1),
        (1, "g2", 5, 1),
    ]


@pytest.mark.parametrize(
    ("kind", "iterations", "rounds", "block", "expected"),
    [
        ("interleaved", None, None, None, (10, 10, 100)),  # template default 100
        ("interleaved", 40, None, None, (10, 4, 40)),
        ("interleaved", 5, None, None, (5, 1, 5)),
        ("interleaved", 12, None, None, (6, 2, 12)),
        ("interleaved", 13, None, None, (13, 1, 13)),
        ("interleaved", 3, None, None, (3, 1, 3)),
        ("interleaved", 40, 3, None, (3, 14, 42)),
        ("interleaved", None, 20, None, (20, 5, 100)),
        ("interleaved", None, 5, 3, (5, 3, 15)),
        ("sequential", 30, None, None, (1, 30, 30)),
        ("sequential", None, None, None, (1, 100, 100)),
    ],
)
def test_schedule_fields_are_filled_from_what_was_given(
    kind: str, iterations: int | None, rounds: int | None, block: int | None, expected: tuple[int, int, int]
) -> None:
    fields = resolve_schedule(kind, iterations, rounds, block, None, default_iterations=100)
    assert (fields.rounds, fields.block, fields.iterations) == expected
    assert 0 <= fields.seed < 2**31


def test_contradicting_schedule_fields_name_the_field() -> None:
    with pytest.raises(ScheduleError) as sequential:
        resolve_schedule("sequential", 10, 4, None, 1, 100)
    assert sequential.value.field == "rounds"
    with pytest.raises(ScheduleError) as product:
        resolve_schedule("interleaved", 10, 4, 3, 1, 100)
    assert product.value.field == "iterations" and "4 x 3" in str(product.value)


def _extend(
    schedule: Schedule, budget: Budget, open_calls: int, clock: list[float] | None = None
) -> tuple[list[Schedule], int]:
    """Runs the extension loop with a synthetic decision: open for the first `open_calls` questions.
    clock: minutes returned one per question (a fake clock, no waiting). Returns the schedules yielded
    and how many times the decision was asked."""
    asked = 0
    minutes = iter(clock or [])

    def undecided() -> bool:
        nonlocal asked
        asked += 1
        return asked <= open_calls

    def now() -> float:
        return next(minutes) * 60 if clock else 0.0

    return list(extensions(schedule, budget, undecided, now)), asked


def test_an_extension_adds_rounds_from_the_same_seed_stream_until_decided() -> None:
    first = plan("interleaved", 5, 2, 11, 3)
    longer, asked = _extend(first, Budget(max_rounds=40, max_minutes=None, started=0.0), open_calls=2)
    assert [s.rounds for s in longer] == [10, 15] and asked == 3  # the 3rd answer: decided
    assert longer[-1].order == plan("interleaved", 15, 2, 11, 3).order
    assert longer[-1].order[:5] == first.order
    added = longer[-1].after(10, ["a", "b"])
    assert {s.round for s in added} == set(range(11, 16)) and added[0].block == 61
    assert [s.block for s in added] == list(range(61, 91))
    assert all(sorted(order) == [0, 1, 2] for order in longer[-1].order)


def test_an_extension_stops_at_max_rounds_even_while_undecided() -> None:
    longer, asked = _extend(plan("interleaved", 5, 1, 2, 2), Budget(12, None, 0.0), open_calls=100)
    assert [s.rounds for s in longer] == [10, 12] and asked == 2  # the last step cut at max_rounds
    assert looks(5, 12) == 3 and looks(5, None) == 1 and looks(10, 30) == 5


def test_an_extension_adds_no_round_once_its_minutes_are_spent() -> None:
    # minutes since the first block when each step would be added: 1, 2, then 3 >= max_minutes
    longer, asked = _extend(plan("interleaved", 5, 1, 2, 2), Budget(50, 3.0, 0.0), 100, [1, 2, 3])
    assert [s.rounds for s in longer] == [10, 15] and asked == 2


def test_every_look_of_an_extended_run_shares_the_5_percent() -> None:
    assert confidence_for(1) == 0.95 and confidence_for(5) == pytest.approx(0.99)


def test_an_extension_budget_must_fit_the_schedule_and_names_the_field() -> None:
    interleaved = resolve_schedule("interleaved", None, 10, 5, 1, 100)
    check_extension(interleaved, 30, 5.0)
    for fields, max_rounds, max_minutes, field in (
        (interleaved, 8, None, "max_rounds"),
        (resolve_schedule("sequential", 50, None, None, 1, 100), 30, None, "max_rounds"),
        (interleaved, None, 5.0, "max_minutes"),
    ):
        with pytest.raises(ScheduleError) as refused:
            check_extension(fields, max_rounds, max_minutes)
        assert refused.value.field == field


def test_cold_policies_restart_per_instance() -> None:
    # (first iteration on the instance, first iteration of this group on the instance)
    cases = [(True, True), (False, True), (False, False)]
    assert [restart_before("warm", *c) for c in cases] == [False, False, False]
    assert [restart_before("cold_first", *c) for c in cases] == [True, False, False]
    assert [restart_before("cold_each_group", *c) for c in cases] == [True, True, False]
    assert [restart_before("cold_every", *c) for c in cases] == [True, True, True]


def test_storage_of_the_server_dir_is_the_mount_findmnt_names(tmp_path: Path) -> None:
    """Against util-linux's findmnt (its own reading of the mount table): the same mount point and
    file system, also for a directory that does not exist yet (its nearest existing ancestor)."""
    for path, existing in ((tmp_path / "servers" / "not-yet", tmp_path), (Path("/usr"), Path("/usr"))):
        found = subprocess.run(
            ["findmnt", "-n", "-T", str(existing), "-o", "TARGET,FSTYPE"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        storage = storage_of(path)
        assert storage["path"] == str(path)
        assert [storage["mount_point"], storage["fs_type"]] == found[:2]
        assert storage["device"]
