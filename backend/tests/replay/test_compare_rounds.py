"""Time in the replay report comes from rounds (results/stats/verdicts.py on per-round values paired by
round), never from the timings of one block: the per-round values are given here as data (the
servers' own rounds are in test_replay_on_servers.py)."""

import pytest

from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.pairs import pass_values
from upgradelab.measurement.sources import parse_source
from upgradelab.replay.compare import compare

SOURCE = parse_source("SELECT COUNT(*) FROM t WHERE a = 1;\nSELECT COUNT(*) FROM t WHERE a = 2;")
# A machine that gets slower and faster round by round: the same drift lands on every variant.
DRIFT = [1.0, 1.4, 0.8, 1.9, 1.1, 0.9, 1.6, 1.2]


def _replay(name: str, per_round: list[list[float | None]]) -> VariantReplay:
    """A variant whose statement i took per_round[r][i] seconds in round r + 1; same result everywhere."""
    same = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")
    times = [[one[i] for one in per_round] for i in range(len(SOURCE.statements))]
    return VariantReplay(name, "1", None, [], [same for _ in SOURCE.statements], times)


def _rounds(factor: float, count: int, wobble: float = 0.0) -> list[list[float | None]]:
    """`count` rounds of both statements: 1 ms and 2 ms times the round's drift times `factor`,
    the variant's own noise alternating +/- `wobble`."""
    return [
        [d * factor * (1 + wobble * (-1) ** r) * 0.001, d * factor * (1 + wobble * (-1) ** r) * 0.002]
        for r, d in enumerate(DRIFT[:count])
    ]


def test_a_steady_slowdown_over_enough_rounds_is_slower_despite_the_machines_drift() -> None:
    (report,) = compare(SOURCE.statements, [_replay("a", _rounds(1, 8)), _replay("b", _rounds(1.5, 8, 0.02))])
    ratio = report.ratios["b"]
    assert ratio.verdict == "regression" and report.group == "slower"
    assert ratio.rounds == 8 and ratio.method == "paired rounds"
    assert ratio.low is not None and ratio.high is not None and ratio.mde is not None
    assert ratio.low < 1.5 < ratio.high and 0 < ratio.mde < 0.1
    assert report.median_s["a"] is not None and report.median_s["b"] is not None
    assert report.median_s["b"] > report.median_s["a"]


def test_the_same_slowdown_over_too_few_rounds_is_no_verdict() -> None:
    (report,) = compare(SOURCE.statements, [_replay("a", _rounds(1, 3)), _replay("b", _rounds(1.5, 3, 0.02))])
    assert report.ratios["b"].verdict == "insufficient rounds" and report.group == "undecided"


def test_noise_the_rounds_cannot_pair_away_is_inconclusive_with_its_smallest_detectable_change() -> None:
    (report,) = compare(SOURCE.statements, [_replay("a", _rounds(1, 8)), _replay("b", _rounds(1.2, 8, 0.4))])
    ratio = report.ratios["b"]
    assert ratio.verdict == "inconclusive" and report.group == "undecided"
    assert ratio.mde is not None and ratio.reason is not None
    assert ratio.mde > 0.2 and "smallest detectable change" in ratio.reason


def test_the_round_value_is_the_median_of_its_passes() -> None:
    one_slow_pass: list[list[float | None]] = [[0.001, 0.002], [0.050, 0.002], [0.001, 0.002]]  # 1 round
    replay = _replay("a", one_slow_pass)
    replay.passes = 3
    assert pass_values(replay, [0, 1]) == {1: pytest.approx([0.003, 0.052, 0.003])}
    (report,) = compare(SOURCE.statements, [replay, replay])
    assert report.median_s["a"] == pytest.approx(0.003)


def test_a_round_where_a_statement_errored_is_left_out_of_the_pairs() -> None:
    broken = _rounds(1.5, 6, 0.02)
    broken[2][1] = None
    assert sorted(pass_values(_replay("b", broken), [0, 1])) == [1, 2, 4, 5, 6]
    (report,) = compare(SOURCE.statements, [_replay("a", _rounds(1, 6)), _replay("b", broken)])
    assert report.ratios["b"].rounds == 5
