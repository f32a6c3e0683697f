"""Existing targets in the API: capabilities detected on creation and on request, their page."""

import asyncio

import pymysql
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error
from upgradelab.settings import get_settings
from upgradelab.targets.capabilities import detect, keep_tested_restart
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ExistingProvisioner, ExistingSettings, ProvisionError
from upgradelab.targets.schemas import TargetConnection, TargetDetail

PUBLIC_SETTINGS = (
    "host",
    "port",
    "user",
    "purpose",
    "database",
    "ssl_ca",
    "ssl_verify_identity",
    "auth_plugins",
    "allow_cleartext",
)


async def detect_into(target: Target, *, restart_test: bool = False) -> None:
    """Detect an existing target's capabilities (in a thread: PyMySQL blocks) and set capabilities,
    version and flavor (the server's own) on the row. 422 naming settings.host when the server
    cannot be reached or the lab's user cannot sign in, with the server's words."""
    provisioner = ExistingProvisioner(target.name, target.flavor, target.settings.stored(), get_settings())
    try:
        capabilities = await asyncio.to_thread(
            detect, provisioner.endpoint, try_restart=restart_test, read_only=provisioner.cfg.read_only
        )
    except (pymysql.MySQLError, ProvisionError) as error:
        where = f"{provisioner.cfg.host}:{provisioner.cfg.port}"
        raise field_error(["body", "settings", "host"], f"cannot detect {where}: {error}") from error
    capabilities = keep_tested_restart(capabilities, target.capabilities)
    target.capabilities = capabilities
    target.version = capabilities.version
    target.flavor = capabilities.flavor


async def redetect(session: AsyncSession, target: Target, *, restart_test: bool) -> Target:
    """Detect an existing target's capabilities again and store them; 422 for other kinds."""
    if target.provisioner != ExistingProvisioner.kind:
        raise field_error(
            ["path", "name"], f"{target.name} is a {target.provisioner} target, run by the lab itself"
        )
    await detect_into(target, restart_test=restart_test)
    await session.commit()
    return target


def detail(target: Target) -> TargetDetail:
    """The target page's shape: TargetRead plus, for existing servers, the public connection settings."""
    read = TargetDetail.model_validate(target)
    if target.provisioner == ExistingProvisioner.kind:
        fields, stored = ExistingSettings.model_fields, target.settings
        public = {
            key: getattr(stored, key)
            if key in stored.model_fields_set
            else fields[key].get_default(call_default_factory=True)
            for key in PUBLIC_SETTINGS
        }
        read.connection = TargetConnection.model_validate(public)
    return read
