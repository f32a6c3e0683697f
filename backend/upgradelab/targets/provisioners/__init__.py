"""Provisioners by kind: `target.provisioner` names one of PROVISIONERS."""

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners.base import Endpoint, Provisioner, ProvisionError, ServerConnection
from upgradelab.targets.provisioners.docker import DockerProvisioner, DockerSettings
from upgradelab.targets.provisioners.existing import ExistingProvisioner
from upgradelab.targets.provisioners.existing_settings import ExistingSettings
from upgradelab.targets.provisioners.local import LocalProvisioner, LocalSettings
from upgradelab.targets.provisioners.tarball import TarballProvisioner, TarballSettings

# (target name, flavor, target.settings, app settings, slot) -> the provisioner of that instance
ProvisionerFactory = Callable[[str, str, dict[str, Any], Settings, int], Provisioner]
PROVISIONERS: dict[str, ProvisionerFactory] = {
    LocalProvisioner.kind: LocalProvisioner,
    DockerProvisioner.kind: DockerProvisioner,
    TarballProvisioner.kind: TarballProvisioner,
    ExistingProvisioner.kind: ExistingProvisioner,
}
# The pydantic model of each kind's `target.settings`, for validating new targets.
SETTINGS_MODELS: dict[str, type[BaseModel]] = {
    LocalProvisioner.kind: LocalSettings,
    DockerProvisioner.kind: DockerSettings,
    TarballProvisioner.kind: TarballSettings,
    ExistingProvisioner.kind: ExistingSettings,
}


def provisioner_for(target: Target, settings: Settings | None = None, slot: int = 0) -> Provisioner:
    """The provisioner of one instance (`slot`, 0 = the target's own port) of a target row;
    ProvisionError for an unknown kind."""
    kind = PROVISIONERS.get(target.provisioner)
    if kind is None:
        raise ProvisionError(f"target {target.name}: unknown provisioner {target.provisioner!r}")
    return kind(target.name, target.flavor, target.settings.stored(), settings or get_settings(), slot)


__all__ = [
    "PROVISIONERS",
    "SETTINGS_MODELS",
    "DockerProvisioner",
    "Endpoint",
    "ExistingProvisioner",
    "ExistingSettings",
    "LocalProvisioner",
    "ProvisionError",
    "Provisioner",
    "ServerConnection",
    "TarballProvisioner",
    "provisioner_for",
]
