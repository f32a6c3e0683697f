"""The replay's extension (measurement/engine.py step 4, replay/extension.py): after the planned rounds only
the fingerprints still undecided are timed again, EXTENSION_STEP rounds at a time up to max_rounds, in
the same interleaved layout; decided ones are never timed again; the report says how many rounds each
got. Given here as data (no server): the servers' own rounds are in test_replay_on_servers.py."""

import math
from collections import Counter

import pytest
from pydantic import ValidationError

from upgradelab.execution.schedule import EXTENSION_STEP, plan
from upgradelab.measurement.engine import Extension, VariantReplay, extension_steps
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.sources import parse_source
from upgradelab.measurement.turns import round_turns
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.extension import still_undecided, undecided_fingerprints
from upgradelab.replay.schemas import ReplayCreate

# Three fingerprints: a steady one, a noisy one, one that errors on the variant (a break).
SOURCE = parse_source(
    "SELECT a FROM t WHERE id = 1;\nSELECT COUNT(*) FROM t WHERE b > 2;\nSELECT MD5(a) FROM t;"
)
DRIFT = [1.0, 1.3, 0.9, 1.6, 1.1, 0.8, 1.4, 1.2, 1.0, 0.9]
RAN = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")
BROKEN = Outcome(1305, "FUNCTION md5 does not exist")


def _replay(name: str, rounds: int, noise: float, broken: bool = False) -> VariantReplay:
    """`rounds` rounds of 1 pass: statement 0 steady (the machine's drift alone), statement 1 with its
    own noise alternating +/- `noise`, statement 2 timed as 0 as well, or errored when `broken`."""
    times: list[list[float | None]] = [
        [DRIFT[r % len(DRIFT)] * 0.001 for r in range(rounds)],
        [DRIFT[r % len(DRIFT)] * 0.002 * (1 + noise * (-1) ** r) for r in range(rounds)],
        [None if broken else DRIFT[r % len(DRIFT)] * 0.003 * (1 + noise * (-1) ** r) for r in range(rounds)],
    ]
    outcomes = [RAN, RAN, BROKEN if broken else RAN]
    return VariantReplay(name, "1", None, [], outcomes, times)


@pytest.mark.parametrize("layout", ["pass", "statement", "block"])
def test_an_extension_round_times_only_the_chosen_statements_their_passes_on_every_variant(
    layout: str,
) -> None:
    for order in plan("interleaved", 3, 2, 5, 3).order:
        turns = round_turns(order, [4, 1, 6], 2, layout)  # type: ignore[arg-type]
        timed = Counter[tuple[int, int]]()
        for variant, statement, passes in turns:
            timed[variant, statement] += passes
        assert timed == {(v, s): 2 for v in range(3) for s in (1, 4, 6)}
        for variant in range(3):  # in source order on each variant: the report reads them by round
            mine = [s for v, s, _ in turns if v == variant]
            assert mine == sorted(mine)


def test_the_same_statements_in_full_round_order_as_a_planned_round() -> None:
    order = [1, 2, 0]
    assert round_turns(order, [0, 1, 2, 3], 2, "pass") == round_turns(order, 4, 2, "pass")


def test_steps_add_rounds_until_nothing_is_undecided_and_a_decided_statement_is_never_timed_again() -> None:
    schedule = plan("interleaved", 20, 2, 9, 2)
    answers = iter([{1, 2, 5}, {2, 5, 7}, {5}, set()])  # 7 newly "undecided": it was decided before
    asked: list[int] = []

    def undecided(replays: list[VariantReplay]) -> set[int]:
        asked.append(len(replays))
        return next(answers)

    steps = list(extension_steps(schedule, Extension(60, undecided), lambda: []))
    assert [(longer.rounds, chosen) for longer, chosen in steps] == [(25, [1, 2, 5]), (30, [2, 5]), (35, [5])]
    assert len(asked) == 4  # once after the planned rounds, then once after each step
    longest = steps[-1][0]
    assert longest.order[:20] == schedule.order  # the planned rounds' order kept, the next shuffles added
    assert longest.order == plan("interleaved", 35, 2, 9, 2).order


def test_steps_stop_at_max_rounds_the_last_one_cut() -> None:
    steps = list(extension_steps(plan("interleaved", 20, 2, 9, 2), Extension(32, lambda _: {0}), lambda: []))
    assert [longer.rounds for longer, _ in steps] == [25, 30, 32]
    assert EXTENSION_STEP == 5
    assert list(extension_steps(plan("interleaved", 20, 2, 9, 2), Extension(20, lambda _: {0}), list)) == []


def test_only_fingerprints_whose_time_is_open_are_chosen() -> None:
    base, variant = _replay("a", 10, 0.0), _replay("b", 10, 0.4, broken=True)
    reports = compare(SOURCE.statements, [base, variant])
    groups = [r.variants["b"].group for r in reports]
    assert groups == ["same", "undecided", "breaks"]
    assert undecided_fingerprints(reports) == {reports[1].fingerprint_id}
    assert still_undecided(SOURCE.statements, [base, variant]) == [1]


def test_too_few_rounds_is_open_and_an_untimed_fingerprint_is_not() -> None:
    base, variant = _replay("a", 3, 0.0), _replay("b", 3, 0.0)
    variant.times[2] = [None, None, None]  # never timed on the variant (no interval): nothing to extend
    assert still_undecided(SOURCE.statements, [base, variant]) == [0, 1]


def test_a_fingerprint_that_timed_out_on_the_variant_is_decided_without_more_rounds() -> None:
    base, variant = _replay("a", 3, 0.0), _replay("b", 3, 0.0)
    variant.times[1] = [0.002, math.inf, None]  # timed out in round 2: not run again on the variant
    reports = compare(SOURCE.statements, [base, variant])
    assert reports[1].variants["b"].group == "slower (timed out)"
    assert still_undecided(SOURCE.statements, [base, variant]) == [0, 2]


def test_the_report_says_how_many_rounds_each_fingerprint_got() -> None:
    base, variant = _replay("a", 10, 0.0), _replay("b", 10, 0.0)
    for replay in (base, variant):  # the first 5 rounds for all, statement 1 extended to 10
        replay.times[0], replay.times[2] = replay.times[0][:5], replay.times[2][:5]
    reports = compare(SOURCE.statements, [base, variant])
    assert [r.rounds for r in reports] == [5, 10, 5]
    assert [r.ratios["b"].rounds for r in reports] == [5, 10, 5]
    document = report_document(SOURCE.statements, [base, variant], reports, planned_rounds=5, max_rounds=15)
    assert (document.rounds, document.planned_rounds, document.max_rounds) == (10, 5, 15)
    assert document.extension is not None
    assert "1 of 3 fingerprints" in document.extension and "sequential looks" in document.extension
    plain = report_document(SOURCE.statements, [base, variant], reports, planned_rounds=5, max_rounds=5)
    assert plain.extension is None and plain.max_rounds is None


def test_max_rounds_defaults_to_three_times_the_rounds_and_below_the_rounds_is_refused() -> None:
    body = {"dataset": "d", "queries": "SELECT 1;", "variants": ["x"]}
    assert ReplayCreate.model_validate(body).max_round_count == 60
    assert ReplayCreate.model_validate({**body, "rounds": 7}).max_round_count == 21
    assert ReplayCreate.model_validate({**body, "rounds": 7, "max_rounds": 7}).max_round_count == 7
    with pytest.raises(ValidationError) as refused:
        ReplayCreate.model_validate({**body, "rounds": 10, "max_rounds": 8})
    (error,) = refused.value.errors()
    assert error["loc"] == ("max_rounds",) and "below the planned rounds (10)" in error["msg"]
