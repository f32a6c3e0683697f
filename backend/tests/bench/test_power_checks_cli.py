"""bench/power_checks.py offers every power check and judges its goals as it says (the checks themselves
run real servers for minutes: by hand, never here; their results are in bench/README.md)."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))
import power_checks  # noqa: E402


def test_help_lists_every_check() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "power_checks.py"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    for check in power_checks.CHECKS:
        assert check in done.stdout


def test_effect_over_floor_is_the_effect_in_half_widths_of_the_a_a_interval() -> None:
    floor = {"ratio": 1.0, "low": 0.8, "high": 1.25}
    halves = math.log(2) / math.log(1.25)
    assert power_checks.effect_over_floor({"ratio": 0.5}, floor) == pytest.approx(halves)
    assert power_checks.effect_over_floor({"ratio": 1.25}, floor) == pytest.approx(1.0)
    assert power_checks.effect_over_floor({"ratio": 0.5}, None) is None


def test_a_check_passes_only_when_every_goal_is_met(capsys: pytest.CaptureFixture[str]) -> None:
    met = power_checks.Goal("improvement", "4/4 (100 %)", ">= 95 %", True)
    missed = power_checks.Goal("A/A decided", "1/4 (25 %)", "<= 5 %", False)
    assert power_checks.report("redo-off", [met]) is True
    assert power_checks.report("redo-off", [met, missed]) is False
    printed = capsys.readouterr().out
    assert "FAIL  A/A decided: 1/4 (25 %) (goal <= 5 %)" in printed and "redo-off: FAIL" in printed
