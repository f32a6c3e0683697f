"""The lease and heartbeat settings serve every kind of job: UPGRADELAB_JOB_*, and the older
UPGRADELAB_RUN_* names still read (deprecated) so an operator's environment keeps working."""

import pytest

from upgradelab.settings import Settings


def test_the_job_names_are_read_and_the_older_run_names_still_work(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("JOB_LEASE_TTL_S", "RUN_LEASE_TTL_S", "JOB_HEARTBEAT_S", "RUN_HEARTBEAT_S"):
        monkeypatch.delenv(f"UPGRADELAB_{name}", raising=False)
    assert (Settings().job_lease_ttl_s, Settings().job_heartbeat_s) == (15.0, 3.0)
    monkeypatch.setenv("UPGRADELAB_RUN_LEASE_TTL_S", "20")
    monkeypatch.setenv("UPGRADELAB_RUN_HEARTBEAT_S", "2")
    assert (Settings().job_lease_ttl_s, Settings().job_heartbeat_s) == (20.0, 2.0)
    monkeypatch.setenv("UPGRADELAB_JOB_LEASE_TTL_S", "25")  # the new name wins over the older one
    assert Settings().job_lease_ttl_s == 25.0
    assert Settings(job_heartbeat_s=1).job_heartbeat_s == 1.0  # and the field's own name in code
