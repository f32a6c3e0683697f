"""A target: one server under test (flavor, version, how to provision it)."""

from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column, validates

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.targets.capability_facts import Capabilities
from upgradelab.targets.stored_settings import TargetSettings


class Target(Base):
    """Row of `target`. `settings` holds the provisioner's options (see provisioners/*) as stored
    (targets/stored_settings.TargetSettings)."""

    __tablename__ = "target"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    flavor: Mapped[str] = mapped_column(String(16))  # "mysql" | "mariadb"
    version: Mapped[str | None] = mapped_column(String(64), default=None)  # SELECT VERSION(), once started
    provisioner: Mapped[str] = mapped_column(String(16))  # "local"
    # the provisioner's settings as stored (TargetSettings: the keys written, nothing added)
    settings: Mapped[TargetSettings] = mapped_column(
        ModelJSON(TargetSettings, exclude_unset=True), default=lambda: TargetSettings()
    )
    disposable: Mapped[bool] = mapped_column(default=False)  # custom SQL allowed (migration 0004)
    # targets.capabilities.Capabilities (typed, db.ModelJSON), for existing servers (migration 0007_existing)
    capabilities: Mapped[Capabilities | None] = mapped_column(ModelJSON(Capabilities), default=None)
    # The worker pools that may run it (migration 0020_pools): a server the lab runs (local, tarball,
    # docker) belongs to the one pool of the host it runs on; an existing server lists every pool
    # whose hosts may reach it. Its runs go to that pool's queue (pools/routing.py).
    pools: Mapped[list[str]] = mapped_column(ModelJSON(list[str]), default=lambda: ["local"])
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @validates("settings")
    def _stored_settings(self, _key: str, value: Any) -> TargetSettings:
        # a dict given (a test's or a migration's row) is typed at once, so the row's readers never
        # see a dict; a key no provisioner has is refused here, naming it
        return TargetSettings.model_validate(value)
