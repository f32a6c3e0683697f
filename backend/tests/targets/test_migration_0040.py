"""Migration 0040 on a database at 0039 holding existing targets of before (no purpose: write-checked,
of purpose workloads then), one added read-only, one added for workloads by name, and a lab target:
going up, only the one without a purpose is stamped `workloads` (it still runs workloads now that a
row without a purpose is read-only); going down, only that stamp is removed."""

import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config
from upgradelab.targets.provisioners.existing_settings import ExistingSettings, read_only_refusal
from upgradelab.targets.stored_settings import TargetSettings

REVISION = "0040_target_purpose_explicit"
BEFORE = {"host": "127.0.0.1", "port": 3306, "user": "lab", "database": "lab"}
ROWS: dict[int, tuple[str, dict[str, Any]]] = {
    101: ("existing", BEFORE),
    102: ("existing", {"host": "127.0.0.1", "user": "reader", "purpose": "capture"}),
    103: ("existing", BEFORE | {"purpose": "workloads"}),
    104: ("local", {"port": 33011}),
}


def _settings(engine: sa.Engine) -> dict[int, dict[str, Any]]:
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT id, settings FROM target WHERE id > 100")).all()
    return {row_id: json.loads(value) if isinstance(value, str) else value for row_id, value in rows}


def test_existing_targets_without_a_purpose_stamped_workloads_up_and_only_that_removed_down(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    insert = sa.text(
        "INSERT INTO target (id, name, flavor, provisioner, settings, disposable, pools, created_at) "
        "VALUES (:id, :name, 'mysql', :provisioner, :settings, 0, '[\"local\"]', '2026-01-01')"
    )
    with engine.begin() as connection:
        for row_id, (provisioner, settings) in ROWS.items():
            values = {"id": row_id, "name": f"t{row_id}", "provisioner": provisioner}
            connection.execute(insert, values | {"settings": json.dumps(settings)})
    # what a row of before would mean without the stamp: read-only now, its runs refused
    assert read_only_refusal("t101", "existing", TargetSettings.model_validate(BEFORE))

    command.upgrade(config, REVISION)
    upgraded = _settings(engine)
    assert upgraded == {101: BEFORE | {"purpose": "workloads"}} | {i: ROWS[i][1] for i in (102, 103, 104)}
    assert read_only_refusal("t101", "existing", TargetSettings.model_validate(upgraded[101])) is None
    assert not ExistingSettings.model_validate(upgraded[101]).read_only  # its write checks stay

    command.downgrade(config, previous)
    assert _settings(engine) == {i: settings for i, (_, settings) in ROWS.items()}
    assert "target_purpose_stamped" not in sa.inspect(engine).get_table_names()
    engine.dispose()
