"""A target's stored JSON read typed (db.ModelJSON, issue 48): an existing server's capabilities as
the code before stored them (Capabilities' JSON; an older lab's without a restart check) and its pools
read back as their types; a restart tested earlier is kept over a fresh "not tested"."""

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.stored_json import write_raw
from upgradelab.db import sync_session
from upgradelab.pools.routing import pools_of
from upgradelab.targets.capabilities import _UNTESTED, Capabilities, Capability, keep_tested_restart
from upgradelab.targets.models import Target

# as targets/existing_service.py stored it: Capabilities.model_dump(mode="json"), here from a lab
# that had no restart check yet
OLD_CAPABILITIES: dict[str, Any] = {
    "detected_at": "2026-11-30T10:00:00Z", "user": "lab", "flavor": "mariadb", "version": "10.11.9-MariaDB",
    "version_comment": "Debian", "managed_service": None, "read_only": False, "super_read_only": None,
    "log_bin": False, "secure_file_priv": None, "privileges": ["SUPER"],
    "checks": [{"name": "set_global", "available": True, "detail": "SUPER"}],
}  # fmt: skip


@pytest.fixture
def old_target(database: None) -> Iterator[int]:
    """An existing target whose capabilities and pools hold what the code before wrote."""
    with sync_session() as session:
        row = Target(name="old-json", flavor="mariadb", provisioner="existing", settings={})
        session.add(row)
        session.commit()
        target_id = row.id
    write_raw("target", target_id, capabilities=OLD_CAPABILITIES, pools=["local", "dc2"])
    yield target_id
    with sync_session() as session:
        session.delete(session.get_one(Target, target_id))
        session.commit()


def test_an_existing_targets_capabilities_and_pools_read_back_typed(old_target: int) -> None:
    with sync_session() as session:
        target = session.get_one(Target, old_target)
        capabilities = target.capabilities
        assert isinstance(capabilities, Capabilities) and capabilities.has("set_global")
        assert capabilities.detected_at == datetime(2026, 11, 30, 10, tzinfo=UTC)
        assert capabilities.get("restart").detail == "not detected"  # stored before the check
        assert target.pools == ["local", "dc2"] and pools_of(target) == ["local", "dc2"]


def test_a_restart_tested_before_is_kept_over_a_fresh_untested_one(old_target: int) -> None:
    restart = Capability(name="restart", available=True, detail="RESTART came back in 4 s")
    with sync_session() as session:
        target = session.get_one(Target, old_target)
        assert target.capabilities is not None
        target.capabilities = target.capabilities.model_copy(
            update={"checks": [*target.capabilities.checks, restart]}
        )
        session.commit()
    with sync_session() as session:
        previous = session.get_one(Target, old_target).capabilities
    untested = Capability(name="restart", available=False, detail=_UNTESTED)
    fresh = Capabilities.model_validate({**OLD_CAPABILITIES, "checks": [untested.model_dump()]})
    assert keep_tested_restart(fresh, previous).get("restart") == restart
    assert keep_tested_restart(fresh, None) == fresh
