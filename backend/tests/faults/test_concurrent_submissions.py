"""20 runs submitted at once on one target (issue 10): every run ends, never two at a time on it."""

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from itertools import pairwise

import pytest

from tests.faults.helpers import assert_nothing_left, assert_nothing_lost_or_duplicated, submit, wait_final
from tests.faults.instance import LabInstance

pytestmark = pytest.mark.timeout(420)

RUNS = 20


def test_twenty_concurrent_submissions_on_one_target_never_overlap(lab: LabInstance) -> None:
    with lab.client() as client:

        def one(_: int) -> int:
            return submit(client, "mariadb-10.11", iterations=2)

        with ThreadPoolExecutor(RUNS) as pool:
            run_ids = list(pool.map(one, range(RUNS)))
        runs = [wait_final(client, run_id, timeout_s=360) for run_id in run_ids]
    assert [run["status"] for run in runs] == ["succeeded"] * RUNS, [run["error"] for run in runs]
    spans = sorted((_at(run["started_at"]), _at(run["finished_at"])) for run in runs)
    for earlier, later in pairwise(spans):
        assert earlier[1] <= later[0], f"two runs overlapped on the target: {earlier} and {later}"
    for run_id in run_ids:
        assert assert_nothing_lost_or_duplicated(lab, run_id) == 2
    assert_nothing_left(lab)


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)
