"""The per-statement cost, measured apart (measurement/statement_cost.py): the null statement's rounds give
one finding per variant on top of the report, and a fingerprint whose change that cost explains is
grouped "per-statement cost only", apart from the ones that changed for a reason of their own.
Decided on seeded round values with the real functions (compare, report_document); the servers'
mechanics are in test_statement_cost_on_server.py."""

import numpy as np

from tests.replay.test_report_schema import BEFORE_ROUNDS
from upgradelab.api.replay import csv_rows
from upgradelab.cli.replay import summary_lines
from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.sources import SourceStatement, parse_source
from upgradelab.measurement.statement_cost import net_rounds, timing_text
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.report import ReplayReport

ROUNDS = 20
FINGERPRINTS_US = [float(us) for us in np.linspace(100, 3000, 10)]  # 100, 422, ..., 3000 us
NULL_US = 50.0
SHIFT_US = 45.0
SAME = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")
# The machine's drift round by round: the same on every variant of a round (seeded, up to ~1.3x).
DRIFT = [float(d) for d in np.exp(np.random.default_rng(7).normal(0, 0.12, ROUNDS))]


def _statements(count: int = len(FINGERPRINTS_US)) -> list[SourceStatement]:
    """`count` statements, each its own class (columns named by letters: pt's fingerprint, the
    replay's classes, makes a name's digits `?`)."""
    names = [f"c_{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(count)]
    return parse_source("".join(f"SELECT {name} FROM t;\n" for name in names)).statements


def _replay(
    name: str, fingerprints_us: list[float], null_us: float, seed: int, noise: dict[int, float] | None = None
) -> VariantReplay:
    """A variant whose statement i took fingerprints_us[i] microseconds in every round (the round's
    drift times its own noise: 1 %, or noise[i] for statement i, the null statement's index the
    number of fingerprints), the null statement last, at null_us."""
    rng = np.random.default_rng(seed)
    sigma = [(noise or {}).get(i, 0.01) for i in range(len(fingerprints_us) + 1)]
    times: list[list[float | None]] = [
        [us * 1e-6 * DRIFT[r] * float(np.exp(rng.normal(0, sigma[i]))) for r in range(ROUNDS)]
        for i, us in enumerate([*fingerprints_us, null_us])
    ]
    replay = VariantReplay(name, "1", None, [], [SAME] * len(times), times, clock="server")
    replay.null_statement = len(fingerprints_us)
    return replay


def _shifted(extra: dict[int, float] | None = None) -> list[float]:
    """Every fingerprint SHIFT_US slower; `extra` multiplies a fingerprint's own time first."""
    return [us * (extra or {}).get(i, 1.0) + SHIFT_US for i, us in enumerate(FINGERPRINTS_US)]


def test_a_uniform_shift_is_one_per_statement_finding_and_no_fingerprint_is_slower_for_itself() -> None:
    statements = _statements()
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", _shifted(), NULL_US + SHIFT_US, 2)
    reports = compare(statements, [base, other])
    groups = [r.variants["b"].group for r in reports]
    assert "slower" not in groups, groups
    # 45 us is over the 10 % threshold up to ~450 us: 100 and 422 us are slower, by the cost alone
    assert groups[:2] == ["slower: per-statement cost only"] * 2, groups
    assert set(groups[2:]) == {"same"}, groups  # 1.5 % of 3000 us is within the threshold
    assert [r.variants["b"].per_statement_cost_only for r in reports[:2]] == [True, True]
    assert all(r.variants["b"].net is not None for r in reports)
    assert all(r.variants["b"].net.verdict == "no significant difference" for r in reports)  # type: ignore[union-attr]
    document = report_document(statements, [base, other], reports)
    (cost,) = document.per_statement_cost
    assert cost.variant == "b" and cost.sql == "DO 0" and cost.clock == "server"
    assert cost.ratio is not None and cost.ratio.verdict == "regression"
    assert cost.difference_us is not None and cost.difference_low_us is not None
    assert cost.difference_high_us is not None
    assert cost.difference_low_us < SHIFT_US < cost.difference_high_us
    assert 40 < cost.difference_us < 50
    assert cost.text.startswith(f"every statement costs +{cost.difference_us:.0f} us")
    (summary,) = document.summary
    assert summary.slower == 0 and summary.slower_cost_only == 2 and summary.same == 8
    assert document.groups["slower: per-statement cost only"] == 2 and document.groups["slower"] == 0


def test_a_shift_over_cheap_fingerprints_groups_all_ten_by_the_cost_alone() -> None:
    cheap = [float(us) for us in np.linspace(100, 400, 10)]
    base = _replay("a", cheap, NULL_US, 3)
    other = _replay("b", [us + SHIFT_US for us in cheap], NULL_US + SHIFT_US, 4)
    reports = compare(_statements(), [base, other])
    assert [r.variants["b"].group for r in reports] == ["slower: per-statement cost only"] * 10


def test_a_fingerprint_three_times_slower_on_top_of_the_shift_stays_slower() -> None:
    statements = _statements()
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", _shifted({5: 3.0}), NULL_US + SHIFT_US, 2)
    reports = compare(statements, [base, other])
    tripled = reports[5].variants["b"]
    assert tripled.group == "slower" and not tripled.per_statement_cost_only
    assert tripled.net is not None and tripled.net.verdict == "regression" and tripled.net.ratio > 2.5
    others = [r.variants["b"].group for i, r in enumerate(reports) if i != 5]
    assert "slower" not in others and others.count("slower: per-statement cost only") == 2, others


def test_a_uniform_saving_is_faster_by_the_cost_only() -> None:
    base = _replay("a", _shifted(), NULL_US + SHIFT_US, 5)
    other = _replay("b", FINGERPRINTS_US, NULL_US, 6)
    reports = compare(_statements(), [base, other])
    groups = [r.variants["b"].group for r in reports]
    # 45 us saved on 145 us is 31 %; on 467 us 9.6 %, at the threshold
    assert groups[0] == "faster: per-statement cost only" and "faster" not in groups, groups
    assert set(groups[1:]) <= {"faster: per-statement cost only", "same"}, groups
    document = report_document(_statements(), [base, other], reports)
    assert document.summary[0].faster == 0
    assert document.summary[0].faster_cost_only == groups.count("faster: per-statement cost only")
    assert document.per_statement_cost[0].ratio is not None
    assert document.per_statement_cost[0].ratio.verdict == "improvement"


def test_an_aa_pair_is_same_and_its_per_statement_cost_too() -> None:
    base = _replay("a", FINGERPRINTS_US, NULL_US, 8)
    other = _replay("b", FINGERPRINTS_US, NULL_US, 9)
    reports = compare(_statements(), [base, other])
    assert [r.variants["b"].group for r in reports] == ["same"] * 10
    assert not any(r.variants["b"].per_statement_cost_only for r in reports)
    (cost,) = report_document(_statements(), [base, other], reports).per_statement_cost
    assert cost.ratio is not None and cost.ratio.verdict == "no significant difference"
    assert cost.difference_low_us is not None and cost.difference_high_us is not None
    assert cost.difference_low_us < 0 < cost.difference_high_us


def test_without_the_null_statement_a_slower_fingerprint_stays_slower() -> None:
    """Reports of replays that did not time it (or a cancel before it was captured everywhere)."""
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", _shifted(), NULL_US + SHIFT_US, 2)
    base.null_statement = other.null_statement = None
    reports = compare(_statements(), [base, other])
    assert [r.variants["b"].group for r in reports[:2]] == ["slower", "slower"]
    assert reports[0].variants["b"].net is None
    document = report_document(_statements(), [base, other], reports)
    assert document.per_statement_cost[0].ratio is None and "not timed" in document.per_statement_cost[0].text


def test_net_rounds_take_out_k_times_the_change_of_the_null_statement_round_by_round() -> None:
    # a fingerprint of 3 statements: each pays the change of the per-statement cost once
    net = net_rounds({1: [0.010], 2: [0.012]}, {1: [0.0002], 2: [0.0003]}, {1: [0.0001], 2: [0.0001]}, 3)
    assert net == {1: [0.010 - 3 * 0.0001], 2: [0.012 - 3 * 0.0002]}


def test_a_round_whose_null_statement_change_exceeds_the_fingerprint_is_left_out_not_the_net() -> None:
    # round 2: the null statement was disturbed on the variant (9 ms): its net would be negative
    fingerprint, null_base = {1: [0.004], 2: [0.004], 3: [0.004]}, {1: [0.001], 2: [0.001], 3: [0.001]}
    net = net_rounds(fingerprint, {1: [0.002], 2: [0.009], 3: [0.002]}, null_base, 1)
    assert net == {1: [0.003], 3: [0.003]}


CHEAP_US = [40.0, 60.0, 80.0, 100.0, 3000.0]


def _cheap_statements() -> list[SourceStatement]:
    return _statements(len(CHEAP_US))


def test_a_cheap_fingerprint_whose_net_is_undecided_is_the_per_statement_cost_said_undecided() -> None:
    """The bench's case (3 of 33 fingerprints "slower, time only"): a 40 us statement 2x slower by the
    shift, its own noise 25 % a round, so net of the cost its interval cannot fit within 10 %."""
    noisy = {0: 0.25}
    base = _replay("a", CHEAP_US, NULL_US, 11, noisy)
    other = _replay("b", [us + SHIFT_US for us in CHEAP_US], NULL_US + SHIFT_US, 12, noisy)
    reports = compare(_cheap_statements(), [base, other])
    finding = reports[0].variants["b"]
    assert reports[0].ratios["b"].verdict == "regression"
    assert finding.net is not None and finding.net.verdict == "inconclusive", finding.net
    assert finding.group == "slower: per-statement cost only" and finding.cause is not None
    assert finding.cause.kind == "per-statement cost"
    assert "no change of its own is decided" in finding.cause.text and "inconclusive" in finding.cause.text


def test_a_fingerprint_paying_less_than_the_null_statement_is_the_per_statement_cost_over_explained() -> None:
    """The general log costs a SELECT less than `DO 0` (bench: net 0.8-0.9x): each statement pays
    a third of the null statement's change; gross slower, net faster: still the cost, said so."""
    base = _replay("a", CHEAP_US, NULL_US, 13)
    other = _replay("b", [us + SHIFT_US / 3 for us in CHEAP_US], NULL_US + SHIFT_US, 14)
    reports = compare(_cheap_statements(), [base, other])
    finding = reports[0].variants["b"]
    assert reports[0].ratios["b"].verdict == "regression"  # 40 -> 55 us
    assert finding.net is not None and finding.net.verdict == "improvement"  # 55 - 45 = 10 us
    assert finding.group == "slower: per-statement cost only" and finding.cause is not None
    assert "it is faster" in finding.cause.text and "less of the change" in finding.cause.text


def test_a_change_of_its_own_beyond_the_threshold_stays_slower_even_when_its_net_is_undecided() -> None:
    noisy = {3: 0.25}
    base = _replay("a", CHEAP_US, NULL_US, 15, noisy)
    mine = [us + SHIFT_US for us in CHEAP_US]
    mine[3] = 100.0 * 1.6 + SHIFT_US  # 60 % slower of its own, on top of the cost
    other = _replay("b", mine, NULL_US + SHIFT_US, 16, noisy)
    reports = compare(_cheap_statements(), [base, other])
    finding = reports[3].variants["b"]
    assert finding.net is not None and finding.net.ratio > 1.1
    assert finding.group == "slower" and not finding.per_statement_cost_only


def test_without_the_per_statement_cost_decided_nothing_is_put_down_to_it() -> None:
    """The null statement too noisy to decide its change (60 % a round): the change taken out would
    be noise, so a slower fingerprint stays slower, whatever its net reads."""
    noisy, shift = {len(CHEAP_US): 0.6}, 10.0  # 40 -> 50 us is 1.25x; 50 -> 60 us hidden in 60 %
    base = _replay("a", CHEAP_US, NULL_US, 1, noisy)
    other = _replay("b", [us + shift for us in CHEAP_US], NULL_US + shift, 2, noisy)
    statements = _cheap_statements()
    reports = compare(statements, [base, other])
    (cost,) = report_document(statements, [base, other], reports).per_statement_cost
    assert cost.ratio is not None and cost.ratio.verdict == "inconclusive", cost.ratio
    slower = [r.variants["b"] for r in reports if r.ratios["b"].verdict == "regression"]
    assert len(slower) == 4 and all(f.group == "slower" and not f.per_statement_cost_only for f in slower)
    # their net alone would have read as the cost's: within the threshold, undecided
    assert all(f.net is not None and f.net.verdict == "inconclusive" and f.net.ratio < 1.1 for f in slower)


def test_the_aa_controls_own_line_is_the_floor_not_a_finding() -> None:
    statements = _cheap_statements()
    base = _replay("a", CHEAP_US, NULL_US, 19)
    control = _replay("b", CHEAP_US, NULL_US * 1.15, 20)  # another instance: its DO 0 15 % slower
    other = _replay("c", [us + SHIFT_US for us in CHEAP_US], NULL_US + SHIFT_US, 21)
    reports = compare(statements, [base, control, other], aa_control="b")
    aa, cost = report_document(statements, [base, control, other], reports, aa_control="b").per_statement_cost
    assert aa.aa_control and not cost.aa_control
    assert aa.text.startswith("the A/A control b: the null statement differs by +")
    assert "noise floor" in aa.text
    assert "regression" not in aa.text  # its ratio is kept (the floor), its verdict not shown as a change
    assert cost.text.startswith("every statement costs +") and cost.ratio is not None
    assert cost.ratio.verdict == "regression"  # 95 us against 50 us, clear of the control's 1.15x


def test_a_variant_without_the_server_clock_is_compared_on_the_client_clock_of_both() -> None:
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", FINGERPRINTS_US, NULL_US, 2)
    # the baseline's server clock says 2x slower than its client clock would: a server/client ratio
    # would read "faster"; on the client's clock of both it is the same
    base.client_times = base.times
    base.times = [[2 * t for t in row if t is not None] for row in base.times]
    other.clock = "client"
    reports = compare(_statements(), [base, other])
    assert {r.variants["b"].clock for r in reports} == {"client"}
    assert [r.variants["b"].group for r in reports] == ["same"] * 10
    document = report_document(_statements(), [base, other], reports)
    assert [v.clock for v in document.variants] == ["server", "client"] and document.clock is None
    assert document.per_statement_cost[0].clock == "client"
    assert document.timing is not None and "client's clock of both" in document.timing


def test_the_cli_opens_with_the_per_statement_cost_and_its_json_carries_the_fields() -> None:
    statements = _statements()
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", _shifted(), NULL_US + SHIFT_US, 2)
    document = report_document(statements, [base, other], compare(statements, [base, other]))
    lines = summary_lines(document)
    assert lines[0] == document.per_statement_cost[0].text and lines[0].startswith("every statement costs +")
    assert "per-statement cost only 2 slower / 0 faster" in lines[1]
    dumped = document.model_dump(mode="json")  # what `upgradelab replay --json` prints
    assert dumped["per_statement_cost"][0]["difference_us"] == document.per_statement_cost[0].difference_us
    finding = dumped["fingerprints"][0]["variants"]["b"]
    assert finding["per_statement_cost_only"] is True and finding["clock"] == "server"
    assert finding["net"]["verdict"] == "no significant difference"


def test_the_csv_export_has_the_clock_and_the_net_verdict_and_old_reports_read_without_them() -> None:
    statements = _statements()
    base = _replay("a", FINGERPRINTS_US, NULL_US, 1)
    other = _replay("b", _shifted(), NULL_US + SHIFT_US, 2)
    document = report_document(statements, [base, other], compare(statements, [base, other]))
    baseline_row, variant_row = csv_rows(document)[:2]
    assert variant_row["clock"] == "server" and variant_row["per_statement_cost_only"] is True
    assert variant_row["net_verdict"] == "no significant difference" and variant_row["net_ratio"] > 0
    assert baseline_row["per_statement_cost_only"] is None and baseline_row["net_ratio"] is None
    old = ReplayReport.model_validate(BEFORE_ROUNDS)  # stored before the per-statement cost
    assert old.per_statement_cost == [] and old.timing is None
    findings = [f for r in old.fingerprints for f in r.variants.values()]
    assert all(f.net is None and not f.per_statement_cost_only for f in findings)
    assert {row["net_verdict"] for row in csv_rows(old)} == {None}


def test_the_timing_sentence_says_each_clock_and_where_performance_schema_is_on() -> None:
    text = timing_text({"a": "server", "b": "server", "c": "client"}, {"a": True, "b": True, "c": False})
    assert text == (
        "timed by the server's clock (performance_schema TIMER_WAIT) on a, b; by the client's clock on c "
        "(no TIMER_WAIT there); a ratio between a variant of each is read on the client's clock of both; "
        "performance_schema ON on a, b (its own cost is in every time there); performance_schema OFF on c"
    )
    assert "OFF" not in timing_text({"a": "server"}, {"a": None})  # not read: nothing said
