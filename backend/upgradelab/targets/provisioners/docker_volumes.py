"""A docker target's volumes: the template (initialized once per image id and admin key by a first
start) and each slot's data volume, a copy of it; copies are made in a throwaway container."""

import contextlib
import uuid
from typing import Any

from upgradelab.targets.provisioners import credentials
from upgradelab.targets.provisioners.base import ProvisionError, select_version
from upgradelab.targets.provisioners.docker_container import DATADIR, DockerContainer

_IMAGE_ID_LABEL = "upgradelab.image-id"
_VERSION_LABEL = "upgradelab.version"
KEY_LABEL = "upgradelab.admin-key"  # credentials.admin_key of the password the volume was made with


class DockerVolumes(DockerContainer):
    """Make the template volume, copy it, label and remove volumes (see module docstring)."""

    @property
    def template_volume(self) -> str:
        return f"upgradelab-{self.target_name}-template"

    @property
    def data_volume(self) -> str:
        """This slot's datadir volume, `upgradelab-<target>-data` (slot 0) or `...-data-<slot>`."""
        suffix = "" if self.slot == 0 else f"-{self.slot}"
        return f"upgradelab-{self.target_name}-data{suffix}"

    def _volume_key(self, name: str) -> str | None:
        """The admin key a volume is labelled with; None when it has none or does not exist."""
        from docker.errors import NotFound  # at first use, not at import (docker_container.py)

        try:
            volume = self.docker.volumes.get(name)
        except NotFound:
            return None
        return (volume.attrs.get("Labels") or {}).get(KEY_LABEL)

    def _remove_volume(self, name: str) -> None:
        from docker.errors import NotFound

        with contextlib.suppress(NotFound):
            self.docker.volumes.get(name).remove(force=True)

    # ---- initialization --------------------------------------------------------------------------
    def _template(self) -> Any:
        from docker.errors import NotFound

        try:
            return self.docker.volumes.get(self.template_volume)
        except NotFound:
            return None

    def ensure_initialized(self) -> None:
        """Make the template volume once per image id and admin key (credentials.admin_key): first
        start with the lab user granted *.* (credentials.keying_sql as an initdb.d file)."""
        image_id = self._image_id()
        key = credentials.admin_key(self.admin_password)
        template = self._template()
        if template is not None:
            labels = template.attrs.get("Labels") or {}
            same_image = labels.get(_IMAGE_ID_LABEL) == image_id and labels.get(_VERSION_LABEL)
            if same_image and labels.get(KEY_LABEL) == key:
                self._version = labels[_VERSION_LABEL]
                return
            template.remove(force=True)
        # A scratch volume, renamed into place only when the first start answered.
        scratch = f"{self.template_volume}-{uuid.uuid4().hex[:8]}"
        self.docker.volumes.create(scratch, labels=self._labels("scratch"))
        grant = credentials.keying_sql(
            self.cfg.user, self.admin_password, self._account_host(), lock_root=False
        )
        try:
            self._create_server(scratch, [], init_sql=grant)
            self._wait_ready()
            version = select_version(self.endpoint)
            self._remove_container()
            labels = {_IMAGE_ID_LABEL: image_id, _VERSION_LABEL: version, KEY_LABEL: key}
            self._copy_volume(scratch, self.template_volume, self._labels("template", **labels))
            self._version = version
        finally:
            self._remove_container()
            self._remove_volume(scratch)

    def _copy_volume(self, source: str, target: str, labels: dict[str, str]) -> None:
        """A new volume `target` holding a copy of `source` (cp -a in a throwaway container).

        The target is mounted on the image's own VOLUME path, so no anonymous volume is made.
        """
        self.docker.volumes.create(target, labels=labels)
        container = self.docker.containers.create(
            self.cfg.image,
            entrypoint=["cp", "-a", "/source/.", f"{DATADIR}/"],
            command=[],
            user="root",
            volumes={source: {"bind": "/source", "mode": "ro"}, target: {"bind": DATADIR, "mode": "rw"}},
            labels=self._labels("copy"),
            network_mode="none",
        )
        try:
            container.start()
            exit_code = int(container.wait(timeout=300)["StatusCode"])
            output = container.logs().decode(errors="replace").strip()
        finally:
            container.remove(v=True, force=True)
        if exit_code != 0:
            raise ProvisionError(f"target {self.target_name}: copying {source} to {target} failed: {output}")
