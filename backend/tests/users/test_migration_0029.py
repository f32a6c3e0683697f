"""Migration 0029 on a database at 0028 holding an existing target's password and share tokens of
every kind: going up, the password is sealed (no plaintext in the database; the provisioner's
settings read it back) and each token becomes its sha256, which still opens its link; going down,
the password is back as it was."""

import json
from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config
from upgradelab.targets.provisioners.existing_settings import ExistingSettings
from upgradelab.users.service import token_digest

REVISION = "0029_secrets"
PASSWORD = "team-account-Pw-0029"
SETTINGS = {"host": "127.0.0.1", "port": 3306, "user": "lab", "password": PASSWORD, "database": "lab"}


def test_passwords_sealed_and_share_tokens_hashed_up_and_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0028_fix_sources")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO target (id, name, flavor, provisioner, settings, disposable, pools, created_at) "
                "VALUES (100, 'team', 'mysql', 'existing', :settings, 0, '[\"local\"]', '2026-01-01')"
            ),
            {"settings": json.dumps(SETTINGS)},
        )
        connection.execute(
            sa.text(
                "INSERT INTO share_link (id, token, kind, comparison, created_at) "
                "VALUES (1, 'link-token-of-before', 'comparison', '{\"runs\": [1]}', '2026-01-01')"
            )
        )
    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT settings FROM target WHERE id = 100")).scalar_one()
        token = connection.execute(sa.text("SELECT token FROM share_link WHERE id = 1")).scalar_one()
        raw = b"".join(
            bytes(str(value), "utf-8")
            for (value,) in connection.execute(sa.text("SELECT settings FROM target"))
        )
    assert PASSWORD.encode() not in raw and PASSWORD.encode() not in (tmp_path / "meta.db").read_bytes()
    sealed = json.loads(stored) if isinstance(stored, str) else stored
    assert "password" not in sealed and sealed["password_sealed"]
    assert ExistingSettings.model_validate(sealed).password == PASSWORD
    assert token == token_digest("link-token-of-before")
    assert "copies_failed" in {c["name"] for c in sa.inspect(engine).get_columns("dataset")}

    command.downgrade(config, "0028_fix_sources")
    with engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT settings FROM target WHERE id = 100")).scalar_one()
    assert (json.loads(stored) if isinstance(stored, str) else stored) == SETTINGS
    assert "copies_failed" not in {c["name"] for c in sa.inspect(engine).get_columns("dataset")}
    engine.dispose()
