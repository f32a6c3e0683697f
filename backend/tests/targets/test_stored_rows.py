"""A target's stored JSON read typed (db.ModelJSON, issue 48): an existing server's capabilities as
the code before stored them (Capabilities' JSON; an older lab's without a restart check) and its pools
read back as their types; a restart tested earlier is kept over a fresh "not tested"; every
provisioner's settings as stored (the seeded lab targets, a tarball, a docker and existing servers of
before and after `purpose`) read back as TargetSettings, written back and given to the provisioner
exactly as stored, and a bad one refused naming the field."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from tests.stored_json import write_again, write_raw
from upgradelab.db import ModelJSON, sync_session
from upgradelab.pools.routing import pools_of
from upgradelab.targets.capabilities import _UNTESTED, Capabilities, Capability, keep_tested_restart
from upgradelab.targets.existing_service import detail
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import SETTINGS_MODELS
from upgradelab.targets.provisioners.existing_settings import ExistingSettings, read_only_refusal
from upgradelab.targets.sealed import seal
from upgradelab.targets.stored_settings import TargetSettings

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


# (provisioner, settings) as stored before: migrations 0002/0008's seeded lab targets, and what
# targets/service.py stored for each kind (the set fields of its settings model, the password sealed)
STORED_SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("local", {"root": "{lab_dir}/chroots/mysql-9.7", "mysqld": "/usr/sbin/mysqld", "port": 33097,
               "base_options": {"innodb_buffer_pool_size": "128M"}}),
    ("local", {"root": "/", "mysqld": "/usr/sbin/mariadbd", "install_db": "/usr/bin/mariadb-install-db",
               "port": 33011, "base_options": {"innodb_buffer_pool_size": "128M"}}),
    ("local", {"root": "/", "port": 33200, "install_db": None, "client": None, "host": "127.0.0.1",
               "user": "upgradelab", "allowed_options": ["innodb-flush-method"],
               "base_options": {"innodb_buffer_pool_size": "256M"}}),
    ("tarball", {"basedir": "/opt/mysql-8.0.40", "tarball": "/srv/mysql-8.0.40.tar.xz", "port": 33201}),
    ("docker", {"image": "mysql:8.0.40", "port": 33080, "env": {"TZ": "UTC"}, "network": "publish",
                "pull": "never", "server_command": "mysqld", "user": "lab"}),
    ("existing", {"host": "127.0.0.1", "port": 3306, "user": "lab", "database": "lab"}),  # before `purpose`
    ("existing", {"host": "127.0.0.1", "user": "reader", "purpose": "capture", "database": None,
                  "ssl_ca": "/etc/ssl/ca.pem", "ssl_verify_identity": True, "allow_cleartext": True,
                  "auth_plugins": ["mysql_native_password", "mysql_clear_password"]}),
]  # fmt: skip


@pytest.mark.parametrize(("provisioner", "stored"), STORED_SETTINGS)
def test_each_provisioners_settings_as_stored_read_typed_and_write_back_the_same(
    provisioner: str, stored: dict[str, Any]
) -> None:
    column = Target.__table__.c["settings"].type
    assert isinstance(column, ModelJSON)
    read = column.process_result_value(json.loads(json.dumps(stored)), None)
    assert isinstance(read, TargetSettings) and read.port == stored.get("port")
    assert read.allowed_options == stored.get("allowed_options") and read.purpose == stored.get("purpose")
    # written back and given to the provisioner as stored: the keys it had, none added (defaults stay
    # the provisioner's), a stored null kept
    assert column.process_bind_param(read, None) == stored and read.stored() == stored
    SETTINGS_MODELS[provisioner].model_validate(read.stored())  # its provisioner still takes it


def test_the_stored_model_holds_every_provisioners_keys_the_password_sealed() -> None:
    # a key a provisioner's model gains must be added to TargetSettings, or adding such a target fails
    keys = set().union(*(model.model_fields for model in SETTINGS_MODELS.values()))
    assert set(TargetSettings.model_fields) == (keys - {"password"}) | {"password_sealed"}


def test_a_sealed_password_is_stored_as_it_was_and_a_plaintext_one_is_refused() -> None:
    sealed = seal({"host": "127.0.0.1", "user": "lab", "password": "s3cret", "database": "lab"})
    read = TargetSettings.model_validate(sealed)
    assert read.password_sealed == sealed["password_sealed"] and read.stored() == sealed
    assert SETTINGS_MODELS["existing"].model_validate(read.stored()).model_dump()["password"] == "s3cret"
    with pytest.raises(ValidationError, match="password"):
        TargetSettings.model_validate({"host": "127.0.0.1", "password": "s3cret"})


@pytest.mark.parametrize(
    ("settings", "field"),
    [({"port": "three"}, "port"), ({"passwrd": "x"}, "passwrd"), ({"purpose": "backup"}, "purpose")],
    ids=["port", "unknown-key", "purpose"],
)
def test_a_bad_stored_setting_is_refused_naming_it(settings: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Target(name="bad", flavor="mysql", provisioner="local", settings=settings)


def test_an_existing_target_reads_read_only_unless_stored_for_workloads() -> None:
    # issue 49: read-only is the default; a row of before `purpose` was stamped workloads (0039)
    before, capture = (TargetSettings.model_validate(stored) for _, stored in STORED_SETTINGS[-2:])
    assert read_only_refusal("team", "existing", before.with_values(purpose="workloads")) is None
    assert "read-only (purpose capture)" in (read_only_refusal("team", "existing", capture) or "")
    assert "read-only (purpose capture)" in (read_only_refusal("team", "existing", before) or "")
    assert read_only_refusal("lab", "local", capture) is None


def test_an_existing_target_added_without_a_purpose_stores_capture() -> None:
    # the default stored with the row: a later change of the default changes no server added before
    added = ExistingSettings.model_validate({"host": "127.0.0.1", "user": "reader"})
    assert added.read_only and added.model_dump(exclude_unset=True)["purpose"] == "capture"


def test_an_existing_target_row_of_before_reads_typed_writes_back_and_shows_its_defaults(
    old_target: int,
) -> None:
    stored = STORED_SETTINGS[-2][1]
    write_raw("target", old_target, settings=stored)
    with sync_session() as session:
        target = session.get_one(Target, old_target)
        assert target.settings.host == "127.0.0.1" and target.settings.purpose is None
        connection = detail(target).connection  # no purpose stored (0039 leaves none): the default
        assert connection is not None and connection.purpose == "capture" and connection.ssl_ca is None
    assert write_again(Target, old_target, "settings") == {"settings": stored}
