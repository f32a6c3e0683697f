"""Alembic migrations, run with `upgradelab db upgrade` (or upgrade_head())."""

from pathlib import Path

from alembic import command
from alembic.config import Config

from upgradelab.db import prepare_sqlite_dir
from upgradelab.settings import get_settings


def alembic_config(url: str | None = None) -> Config:
    """Alembic config pointing at this package's scripts and the settings' database."""
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent))
    config.set_main_option("sqlalchemy.url", url or get_settings().sync_database_url)
    return config


def upgrade_head(url: str | None = None) -> None:
    """Apply every migration (schema, then the seeded lab targets)."""
    config = alembic_config(url)
    prepare_sqlite_dir(config.get_main_option("sqlalchemy.url") or "")
    command.upgrade(config, "head")
