"""The names of the target locks a job takes (execution locks them): one per target, and one per
server an existing target names."""

from collections.abc import Iterable

from upgradelab.targets.models import Target
from upgradelab.targets.provisioners.existing import ExistingProvisioner


def lock_names(targets: Iterable[Target]) -> list[str]:
    """Names of the run locks a run takes: every target's name, plus `server:<host>:<port>` for an
    existing target, so two existing targets naming one server never run at the same time."""
    names: list[str] = []
    for target in targets:
        names.append(target.name)
        if target.provisioner == ExistingProvisioner.kind:
            host, port = str(target.settings.get("host", "")).lower(), target.settings.get("port", 3306)
            names.append(f"server:{host}:{port}")
    return names
