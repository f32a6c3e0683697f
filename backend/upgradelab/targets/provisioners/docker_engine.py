"""The Docker engine as docker targets use it: the client, the labels on everything a docker
target creates, the clean-up of what a killed worker left behind, and the archives put into containers."""

import contextlib
import io
import tarfile
from typing import TYPE_CHECKING

from upgradelab.targets.provisioners.base import ProvisionError

# the Docker client (~0.15 CPU-s with requests) is imported by a docker target's first use, not by
# every start that imports the provisioners (issue 31)
if TYPE_CHECKING:
    import docker

MANAGED_LABEL = "upgradelab.managed"
TARGET_LABEL = "upgradelab.target"
ROLE_LABEL = "upgradelab.role"
# `make up` installs no Docker (issue 31): a docker target's first use names what does, and how to
# start an installed engine again (no systemd on the lab's machines).
INSTALL_COMMAND = (
    "run `bash infra/docker/install.sh` as root (installs Debian's docker.io and a Compose client, "
    "starts dockerd, builds the lab's images), or `bash infra/docker/dockerd.sh` to start an installed engine"
)


def engine_client(timeout_s: int = 300) -> "docker.DockerClient":
    """A client of the engine DOCKER_HOST names (default: /var/run/docker.sock), checked with a ping.

    Raises ProvisionError when the engine does not answer, naming INSTALL_COMMAND.
    """
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env(timeout=timeout_s)
        client.ping()
    except DockerException as error:
        raise ProvisionError(f"the Docker engine does not answer: {INSTALL_COMMAND} ({error})") from error
    return client


def cleanup(target: str | None = None, *, templates: bool = False) -> list[str]:
    """Remove what docker targets left behind: containers and data volumes labelled
    `upgradelab.managed=1` (of one target, or all), and with templates=True the template volumes.

    Returns the removed containers' and volumes' names. ProvisionError when the engine is down.
    Source: the labels every DockerProvisioner puts on what it creates.
    """
    from docker.errors import NotFound

    client = engine_client()
    filters = [f"{MANAGED_LABEL}=1", *([f"{TARGET_LABEL}={target}"] if target else [])]
    removed: list[str] = []
    # ignore_removed: a `--rm` container (a dump client) may be gone between the list and its inspect
    for container in client.containers.list(all=True, filters={"label": filters}, ignore_removed=True):
        with contextlib.suppress(NotFound):
            container.remove(v=True, force=True)
        removed.append(str(container.name))
    for volume in client.volumes.list(filters={"label": filters}):
        role = (volume.attrs.get("Labels") or {}).get(ROLE_LABEL)
        if role == "template" and not templates:
            continue
        volume.remove(force=True)
        removed.append(str(volume.name))
    return removed


def tar_of(name: str, text: str) -> bytes:
    """A tar archive holding one world-readable file, for put_archive."""
    data = text.encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o644
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
