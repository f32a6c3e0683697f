"""`upgradelab replay --concurrent`'s own parts (cli/concurrent_replay.py): the log's format told
from its header, the report's lines (breaks with their counts per trial and sample, slower with
its causes, a p95's client and server medians, the clocks) and the exit bits (1 breaks, 2 slower) of
decided seeded trials."""

from pathlib import Path

from tests.concurrent_replay.oracle import Truth, trials
from upgradelab.cli.concurrent_replay import body, exit_bits, log_format, report_lines
from upgradelab.concurrent_replay.decide import decide


def test_the_log_format_is_told_from_its_header() -> None:
    assert log_format("# Time: 2026-12-06T08:00:00.000000Z\n# User@Host: app[app] @ localhost []") == "slow"
    assert log_format("Time\t\t    Id Command\tArgument\n") == "general"


def test_the_request_carries_the_log_and_its_format(tmp_path: Path) -> None:
    log = tmp_path / "slow.log"
    log.write_text("# Time: 2026-12-06T08:00:00.000000Z\n# User@Host: a[a] @ h []  Id: 5\nSELECT 1;\n")
    sent = body("shop", log, ["mariadb-10.11", "mariadb-11.8"], 10, 0.0, True)
    assert sent["format"] == "slow" and sent["log"].startswith("# Time:") and sent["rounds"] == 10
    assert (sent["speed"], sent["aa_control"], sent["dataset"]) == (0.0, True, "shop")


def test_breaks_and_slower_set_their_bits_and_are_printed() -> None:
    found = trials(
        {"base": Truth(), "new": Truth(rate=0.6, lock_ms=2_000, errors={1020: (1.0, 2)}), "aa": Truth()},
        rounds=10,
        seed=5,
    )
    report = decide(["base", "new", "aa"], found, aa_control="aa")
    assert exit_bits(report) == 3
    lines = report_lines(report)
    assert any(line.startswith("break new: error 1020 appears in 10 of 10 trials") for line in lines), lines
    assert any(f"per trial {[2] * 10}" in line and "thread 11" in line for line in lines)
    assert any(line.startswith("slower new: statements/s") and "lock waits:" in line for line in lines)
    same = decide(["base", "aa"], trials({"base": Truth(), "aa": Truth()}, seed=1), aa_control="aa")
    assert exit_bits(same) == 0


def test_a_p95_line_says_the_client_and_server_p95_and_the_clocks() -> None:
    found = trials(
        {"base": Truth(server_p95={}), "new": Truth(p95={"c2": 1.8}, server_p95={}), "maria": Truth()},
        rounds=10,
        seed=9,
    )
    lines = report_lines(decide(["base", "new", "maria"], found))
    [slower] = [line for line in lines if line.startswith("slower new: p95 of update c")]
    assert "client p95 4.01 -> 7.13 ms, server p95 2.95 -> 3.01 ms" in slower, slower
    assert "clock: client:" in "\n".join(lines)
    assert any(line.startswith("  maria: server clock not available") for line in lines), lines
