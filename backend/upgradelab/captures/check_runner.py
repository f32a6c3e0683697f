"""Executes one capture check: the capture's settings on a scratch instance of the new version
(captures/option_check.py), the check's target locked (its slot 0 is the scratch instance) by the
shared lifecycle, its final state written on every exit path. A cancel is seen before the binary is
asked (a check takes seconds: one binary run per refusal and one start).
"""

from dataclasses import asdict

from redis import Redis

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.jobs import CHECK_JOBS, check_targets_of
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.option_check import ScratchServer, check_options
from upgradelab.db import sync_session
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import server_names
from upgradelab.targets.provisioners import provisioner_for


def execute_check(check_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run check `check_id` to a final status and return it; None when it was not queued. Raises
    TargetsBusy (it stays queued) while another job holds its target."""
    targets = check_targets_of(check_id)
    return execute(
        CHECK_JOBS,
        check_id,
        targets,
        redis,
        settings,
        lambda lease: _body(check_id, targets, settings, lease),
    )


def _body(check_id: int, targets: list[Target], settings: Settings, lease: Lease) -> Ending:
    if not targets:
        return Ending(JobStatus.failed, "its target no longer exists")
    [target] = targets
    with sync_session() as session:
        check = session.get(CaptureCheck, check_id)
        capture = session.get(Capture, check.capture_id) if check else None
        if check is None or check.cancel_requested:
            return Ending(JobStatus.cancelled)
        if capture is None or capture.configuration is None:
            return Ending(JobStatus.failed, "its capture holds no configuration")
        config = Configuration.model_validate(capture.configuration)
        accounts = list(capture.accounts or [])
    lease.check()
    provisioner = provisioner_for(target, settings)
    if not hasattr(provisioner, "server_refusal"):  # the service refuses these; a target changed since
        return Ending(JobStatus.failed, f"target {target.name} ({target.provisioner}): no scratch instance")
    server: ScratchServer = provisioner  # type: ignore[assignment]
    name = server_names(provisioner, settings).server
    result = check_options(config, server, accounts, name)
    return Ending(
        JobStatus.succeeded,
        completed=True,
        fields={
            "findings": [asdict(finding) for finding in result.options],
            "account_findings": [asdict(finding) for finding in result.accounts],
            "server": name,
        },
    )
