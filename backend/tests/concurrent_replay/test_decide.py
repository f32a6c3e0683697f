"""A concurrent replay's decisions on seeded simulated trials (tests/concurrent_replay/oracle.py):
a new error code is a break with its count per trial and "appears in k of n", decided against the
baseline's and the A/A control's trials (which have errors of their own); throughput and each
fingerprint's p95 are decided paired by round against the A/A floor, with their causes; a write
replay whose data ends otherwise is a break naming the table; the A/A control is "same" on
throughput in at least 90 % of seeded replays."""

import pytest

from tests.concurrent_replay.oracle import Truth, trials
from upgradelab.concurrent_replay.decide import decide


def test_a_new_error_code_in_every_trial_is_a_break_with_its_count_per_trial() -> None:
    noise = {1213: (0.4, 2)}  # deadlocks of the replay's own interleaving, on every variant
    found = trials(
        {
            "10.11": Truth(errors=noise),
            "11.8": Truth(errors={**noise, 1020: (1.0, 3)}),
            "10.11 again": Truth(errors=noise),
        },
        seed=11,
    )
    report = decide(["10.11", "11.8", "10.11 again"], found, aa_control="10.11 again")
    by = {(e.variant, e.code): e for e in report.errors}
    snapshot = by["11.8", 1020]
    assert snapshot.group == "breaks"
    assert snapshot.per_trial == [3, 3, 3, 3, 3] and (snapshot.appears, snapshot.trials) == (5, 5)
    assert (snapshot.reference_appears, snapshot.reference_trials) == (0, 10)  # baseline + A/A
    assert "appears in 5 of 5 trials, 0 of 10 reference trials" in snapshot.reason
    assert snapshot.sample.sql.startswith("UPDATE c") and snapshot.sample.thread_id == 11
    # the deadlocks every variant has are not the upgrade's
    assert all(e.group != "breaks" for e in report.errors if e.code == 1213)
    assert any(e.group == "same" for e in report.errors if e.code == 1213)
    groups = {g.variant: g for g in report.groups}
    assert groups["11.8"].breaks == 1 and groups["10.11 again"].breaks == 0


def test_a_new_code_in_one_trial_of_five_is_undecided_not_a_break() -> None:
    found = trials({"a": Truth(), "b": Truth(errors={1205: (0.2, 1)})}, seed=4)
    hit = sum(1 for t in found if t.variant == "b" and t.summary.errors)
    assert hit == 1  # the seed gives one trial with a lock wait timeout
    [finding] = decide(["a", "b"], found).errors
    assert finding.code == 1205 and finding.group == "undecided"
    assert "appears in 1 of 5 trials" in finding.reason and "too few trials" in finding.reason


def test_a_throughput_drop_under_lock_waits_is_slower_with_its_cause() -> None:
    found = trials(
        {"base": Truth(), "hot row": Truth(rate=0.6, lock_ms=2_000), "aa": Truth()}, rounds=10, seed=5
    )
    report = decide(["base", "hot row", "aa"], found, aa_control="aa")
    by = {(v.variant, v.metric): v for v in report.throughput}
    drop = by["hot row", "statements/s"]
    assert drop.group == "slower" and drop.verdict is not None and drop.verdict.verdict == "regression"
    assert drop.verdict.ratio == pytest.approx(0.6, rel=0.05)
    assert drop.q_value is not None and drop.q_value <= 0.05
    assert any(cause.startswith("lock waits: ") for cause in drop.causes), drop.causes
    assert by["hot row", "transactions/s"].group == "slower"
    assert by["aa", "statements/s"].group == "same" and by["aa", "statements/s"].causes == []


def test_a_fingerprint_p95_is_decided_paired_by_round_against_the_aa_floor() -> None:
    found = trials(
        {"base": Truth(), "new": Truth(p95={"c2": 1.8, "c1": 0.5}), "aa": Truth()}, rounds=10, seed=9
    )
    report = decide(["base", "new", "aa"], found, aa_control="aa")
    by = {(v.variant, v.class_id): v for v in report.fingerprints}
    assert by["new", "c2"].group == "slower" and (by["new", "c2"].fingerprint or "").startswith("update c")
    assert by["new", "c1"].group == "faster"
    assert by["aa", "c1"].group == "same" and by["aa", "c2"].group == "same"
    assert by["new", "c2"].baseline_median == pytest.approx(0.004, rel=0.3)


def test_a_p95_verdict_stays_on_the_client_clock_with_the_server_p95_beside_it() -> None:
    # the client sees c2 slower; the server's own p95 of it did not move (the time went elsewhere:
    # the network, the client's wait): the verdict is the client's, the server's shown beside it
    found = trials(
        {"base": Truth(server_p95={}), "new": Truth(p95={"c2": 1.8}, server_p95={}), "maria": Truth()},
        rounds=10,
        seed=9,
    )
    report = decide(["base", "new", "maria"], found)
    by = {(v.variant, v.class_id): v for v in report.fingerprints}
    slower = by["new", "c2"]
    assert slower.group == "slower" and report.clock.startswith("client")
    assert slower.baseline_server_p95_s == pytest.approx(0.003, rel=0.1)
    assert slower.variant_server_p95_s == pytest.approx(0.003, rel=0.1)
    assert by["maria", "c2"].variant_server_p95_s is None and by["maria", "c2"].baseline_server_p95_s
    assert report.server_clocks["new"].startswith("performance_schema events_statements_histogram_by_digest")
    assert report.server_clocks["maria"].startswith("server clock not available")


def test_too_few_trials_decide_nothing() -> None:
    found = trials({"base": Truth(), "new": Truth(rate=0.5, errors={1020: (1.0, 1)})}, rounds=2, seed=1)
    report = decide(["base", "new"], found)
    assert {v.group for v in [*report.throughput, *report.fingerprints]} == {"undecided"}
    assert all(v.verdict is None or v.verdict.verdict == "insufficient rounds" for v in report.throughput)
    [error] = report.errors
    assert error.group == "undecided"  # 2 of 2 against 0 of 2: Fisher p = 1/6


def test_a_write_replay_ending_with_other_data_is_a_break_naming_the_table() -> None:
    found = trials(
        {
            "base": Truth(tables={"shop.c": "x", "shop.orders": "y"}),
            "new": Truth(tables={"shop.c": "x", "shop.orders": "z"}),
            "aa": Truth(tables={"shop.c": "x", "shop.orders": "y"}),
        },
        seed=4,
    )
    report = decide(["base", "new", "aa"], found, aa_control="aa")
    [table] = report.tables
    assert (table.variant, table.table, table.group) == ("new", "shop.orders", "breaks")
    assert "shop.orders ends with other data in 5 of 5 trials, 0 of 10 reference trials" in table.reason


def test_data_whose_end_depends_on_the_interleaving_is_no_break() -> None:
    found = trials({"base": Truth(), "new": Truth(), "aa": Truth()}, seed=8)
    ends = iter(["p", "q", "p", "q", "p", "q", "p", "q", "p", "q", "p", "q", "p", "q", "p"])
    for trial in found:  # every variant's final data alternates: the workload races with itself
        trial.checksums = {"shop.c": next(ends)}
    report = decide(["base", "new", "aa"], found, aa_control="aa")
    assert report.tables and all(t.group == "same" for t in report.tables)


def test_a_stopped_trial_is_left_out_of_the_data_comparison() -> None:
    found = trials({"base": Truth(), "new": Truth()}, seed=2)
    stopped = next(t for t in found if t.variant == "new")
    stopped.summary.stopped, stopped.checksums = "duration", {"shop.c": "half way"}
    assert decide(["base", "new"], found).tables == []


def test_the_aa_control_is_same_on_throughput_in_at_least_90_percent_of_replays() -> None:
    """At the API's default of 10 rounds and 2 % noise per trial."""
    same = slower_or_faster = 0
    for seed in range(100):
        found = trials({"base": Truth(), "aa": Truth()}, rounds=10, seed=seed)
        [verdict, _] = decide(["base", "aa"], found).throughput
        same += verdict.group == "same"
        slower_or_faster += verdict.group in ("slower", "faster")
    assert same >= 90, same
    assert slower_or_faster <= 5, slower_or_faster  # false findings at most 5 %


def test_five_rounds_decide_a_break_but_rarely_a_time_verdict() -> None:
    """At 5 trials a variant the paired interval (20 % trimmed: 3 rounds kept, 2 degrees of freedom)
    is about +-9 % wide at 2 % noise per trial: an A/A pair is rarely "same" and a 40 % drop not
    decided after false-discovery control; an error in every trial is (Fisher). Hence the API's
    default of 10 rounds."""
    found = trials(
        {"base": Truth(), "hot row": Truth(rate=0.6, errors={1020: (1.0, 1)}), "aa": Truth()}, seed=5
    )
    report = decide(["base", "hot row", "aa"], found, aa_control="aa")
    by = {(v.variant, v.metric): v.group for v in report.throughput}
    assert by["hot row", "statements/s"] == "undecided"
    assert [(e.code, e.group) for e in report.errors] == [(1020, "breaks")]


def test_bad_input_is_named() -> None:
    found = trials({"base": Truth(), "new": Truth()}, rounds=1)
    with pytest.raises(ValueError, match=r"trials of variants \['new'\]: not among the variants \['base'\]"):
        decide(["base"], found)
    with pytest.raises(ValueError, match=r"aa_control 'base': not a variant other than the baseline"):
        decide(["base", "new"], found, aa_control="base")
    with pytest.raises(ValueError, match="variants: at least one"):
        decide([], [])


def test_a_cancelled_replay_decides_what_ended_and_nothing_more() -> None:
    found = [
        t for t in trials({"base": Truth(), "new": Truth(errors={1020: (1.0, 1)})}, seed=6) if t.round <= 2
    ]
    found = [t for t in found if not (t.round == 2 and t.variant == "new")]  # cancelled in its trial
    report = decide(["base", "new", "never"], found, partial=True)
    assert report.partial
    groups = {g.variant: g for g in report.groups}
    assert groups["never"].trials == 0 and groups["never"].wall_s is None
    assert groups["new"].trials == 1 and groups["new"].breaks == 0  # 1 of 1 trials decides nothing
    assert {v.group for v in report.throughput} == {"undecided"}
