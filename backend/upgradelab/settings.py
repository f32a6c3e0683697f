"""Upgrade Lab settings, read from UPGRADELAB_* environment variables (pydantic-settings).

Every value has an embedded default, so `make up` on a fresh machine needs no configuration.
"""

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    """Process-wide settings; override any field with UPGRADELAB_<FIELD>."""

    model_config = SettingsConfigDict(env_prefix="UPGRADELAB_", extra="ignore")

    lab_dir: Path = Field(
        Path("/var/lib/upgradelab"),
        description="Where infra/lab/install.sh puts chroots; `{lab_dir}` in target settings expands to it.",
    )
    state_dir: Path = Field(
        Path("/var/lib/upgradelab/state"), description="Metadata database and Redis data of this instance."
    )
    server_dir: str = Field(
        "/var/lib/upgradelab/servers",
        description="Directory, as seen from inside a target's root, holding its datadirs and option files.",
    )
    database_url: str = Field("", description="SQLAlchemy async URL; default: SQLite file in state_dir.")
    redis_url: str = "redis://127.0.0.1:6380/0"
    api_host: str = "127.0.0.1"
    api_port: int = 8700
    frontend_dist: Path = REPO_ROOT / "frontend" / "dist"
    server_start_timeout_s: float = Field(60.0, description="Cap on waiting for SELECT 1 after a start.")
    target_lock_ttl_s: int = Field(900, description="Expiry of a target's run lock; renewed every iteration.")
    instance_allowance_mb: int = Field(
        400,
        ge=0,
        description="Memory one server instance needs beyond its buffer pool (MiB), for the pre-run check "
        "of the instances' sum against MemAvailable.",
    )

    @property
    def async_database_url(self) -> str:
        """The metadata database URL for the API (async driver)."""
        return self.database_url or f"sqlite+aiosqlite:///{self.state_dir / 'upgradelab.db'}"

    @property
    def sync_database_url(self) -> str:
        """The same database with its synchronous driver, for the Celery worker and Alembic."""
        url = self.async_database_url
        for async_driver, sync_driver in _SYNC_DRIVERS.items():
            url = url.replace(async_driver, sync_driver, 1) if url.startswith(async_driver) else url
        return url


_SYNC_DRIVERS = {
    "sqlite+aiosqlite": "sqlite+pysqlite",
    "postgresql+asyncpg": "postgresql+psycopg",
    "mysql+aiomysql": "mysql+pymysql",
    "mysql+asyncmy": "mysql+pymysql",
}


@lru_cache
def get_settings() -> Settings:
    """The cached settings of this process."""
    return Settings()
