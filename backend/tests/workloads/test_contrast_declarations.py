"""Each template's contrasts and the article's figures for them: every article case names a contrast
the template can compute, and its ratio is the article's two published figures."""

import pytest

from upgradelab.workloads import WORKLOADS
from upgradelab.workloads.charset_oltp import CharsetOltp, CharsetOltpParameters
from upgradelab.workloads.count_star import CountStar, CountStarParameters
from upgradelab.workloads.lock_waits import LockWaits, LockWaitsParameters
from upgradelab.workloads.parallel_read import ParallelRead, ParallelReadParameters


def test_lock_waits_declares_the_monitor_cost_only_when_both_groups_run() -> None:
    [cost] = LockWaits().contrasts()
    assert (cost.name, cost.numerator.group, cost.denominator.group) == (
        "monitor=on / monitor=off", "monitor=on", "monitor=off",
    )  # fmt: skip
    assert LockWaits(LockWaitsParameters(monitor="on")).contrasts() == []
    ratios = {case.label: round(case.ratio, 2) for case in LockWaits.info.contrast_cases}
    assert ratios == {"8.0.32": 16.3, "8.0.40": 1.02}


def test_parallel_read_declares_each_point_of_the_sweep_over_one_thread() -> None:
    names = [c.name for c in ParallelRead(ParallelReadParameters(threads=[1, 2, 4, 8])).contrasts()]
    assert names == ["threads=2 / threads=1", "threads=4 / threads=1", "threads=8 / threads=1"]
    assert ParallelRead(ParallelReadParameters(threads=[2, 4])).contrasts() == []
    two = next(c for c in ParallelRead.info.contrast_cases if c.contrast == "threads=2 / threads=1")
    assert two.ratio == pytest.approx(19.65 / 33.07)


def test_count_star_declares_first_over_later_per_table_and_long_over_short() -> None:
    found = CountStar(CountStarParameters()).contrasts()
    assert [c.name for c in found] == [
        "test_short first / later", "test_long first / later", "test_long_uk first / later",
        "test_long / test_short",
    ]  # fmt: skip
    assert (found[1].numerator.scans, found[1].denominator.scans) == ("first", "later")
    only_long = CountStar(CountStarParameters(tables=["test_long"])).contrasts()
    assert [c.name for c in only_long] == ["test_long first / later"]


def test_charset_oltp_declares_throughput_over_the_sweeps_first_point() -> None:
    found = CharsetOltp(CharsetOltpParameters(threads=[4, 24, 64])).contrasts()
    assert [c.name for c in found] == ["threads=24 / threads=4", "threads=64 / threads=4"]
    assert all(c.metric.name == "tps" and c.metric.higher_is_better for c in found)


# parameters under which each article case's contrast exists
COVERING: dict[str, list[dict[str, object]]] = {
    "lock-waits": [{}],
    "parallel-read": [{"threads": [1, 2, 4, 8, 16, 32]}],
    "count-star": [{}],
    "charset-oltp": [{"threads": [4, 24, 64]}],
}


@pytest.mark.parametrize("slug", sorted(COVERING))
def test_every_article_case_names_a_contrast_the_template_computes(slug: str) -> None:
    template = WORKLOADS[slug]
    names = {
        c.name
        for parameters in COVERING[slug]
        for c in template(template.Parameters.model_validate(parameters)).contrasts()
    }
    cases = template.info.contrast_cases
    assert cases, f"{slug} declares no article case"
    assert {case.contrast for case in cases} <= names
    assert all(case.ratio == case.numerator / case.denominator > 0 for case in cases)
