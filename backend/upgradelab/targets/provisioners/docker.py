"""The docker provisioner: a MySQL/MariaDB server in a container of the target's image.

Any image following the official mysql/mariadb images' conventions works (`mysql:5.7.44`,
`mysql:8.0.40`, `mysql:8.4`, `percona/percona-server:8.0`, `mariadb:11.8`, or the lab's locally
built `upgradelab/mysql:9.7` and `upgradelab/mariadb:10.11`, see infra/docker/images.sh):
MYSQL_ROOT_PASSWORD / MARIADB_ROOT_PASSWORD, MYSQL_USER / MYSQL_PASSWORD, a datadir at
/var/lib/mysql initialized on first start, the image's command taking `--name=value` server flags.

Volumes and containers, all labelled `upgradelab.managed=1` and `upgradelab.target=<name>`:

    upgradelab-<target>-template   the datadir, initialized once per image id and admin key by a
                                   first start (with an initdb.d file granting the lab user every
                                   privilege)
    upgradelab-<target>-data       the datadir of slot 0 (`-data-<slot>` for slot 1, 2, ...: one
                                   per instance): a fresh copy of the template for every start()
                                   (each variant begins from the same state), kept after stop()
                                   so that start(keep_data=True) reuses a prepared dataset; like
                                   the local provisioner's data/ (removed by `targets cleanup`)
    upgradelab-<target>-<id>       the server container; restart() is a cold restart on the same
                                   datadir and flags; stop() removes it

Networking: host networking (the server listens on 127.0.0.1:<port>) or, with `network: publish`,
the container's 3306 published on 127.0.0.1:<port> only. Slot 0 uses the target's port, other
slots a free port chosen by binding port 0. freeze()/thaw() are `docker pause`/`unpause`.
The worker always connects to 127.0.0.1:<port>, never to a bridge address.

The admin account (credentials.py): the lab user at 127.0.0.1 (`publish`: at %, the bridge's
gateway is the client) with a password random per target, kept in the worker's state directory
(or the one the settings name); root@localhost only, with a random password nobody keeps. Only the
container that makes the template carries them (its environment, its initdb.d file); a template or
data volume labelled with another admin key (made before issue 30, with the fixed password and
root@%, or with another password) is made again.
"""

from upgradelab.targets.option_names import check_lines, server_names
from upgradelab.targets.options import OptionError
from upgradelab.targets.provisioners import credentials
from upgradelab.targets.provisioners.base import Endpoint, ProvisionError, select_version
from upgradelab.targets.provisioners.docker_engine import MANAGED_LABEL, TARGET_LABEL, cleanup
from upgradelab.targets.provisioners.docker_settings import DockerSettings
from upgradelab.targets.provisioners.docker_volumes import KEY_LABEL, DockerVolumes


class DockerProvisioner(DockerVolumes):
    """Start, restart and stop one target's server as a container (see module docstring).

    Its layers, each a module: DockerContainer (engine, image, flags, the server container) and
    DockerVolumes (template and data volumes); this one checks options and starts instances."""

    kind = "docker"
    fresh_data = False  # a kept volume or a fresh one: not told apart (Provisioner.fresh_data)
    instances = True  # one container and data volume per slot

    # ---- option checks ---------------------------------------------------------------------------
    def check_options(self, options: list[str]) -> None:
        """Ask the image's server binary whether it takes these flags, in a throwaway container.

        MySQL 8.0.16+: `mysqld --validate-config`; MariaDB and MySQL 5.7 (no such flag):
        `--verbose --help`, which parses every option and prints [ERROR] lines for unknown names
        and bad values. First every name must be one the image's server lists, in full, and in no
        refused category (targets/option_names.py). Raises ProvisionError with the refusal or the
        server's [ERROR] lines.
        """
        try:
            check_lines(server_names(self, self.app), options, self.cfg.allowed_options)
        except OptionError as refused:
            raise ProvisionError(str(refused)) from None
        refusal = self.server_refusal(options)
        if refusal is not None:
            raise ProvisionError(refusal)

    def server_refusal(self, options: list[str]) -> str | None:
        """The image's server binary's own words refusing these option lines as its flags (its
        [ERROR] lines, or its output's end when it exits non-zero without one), None when it takes
        them (check_options' second half, the names not checked against the binary's list: a
        capture's check, captures/option_check.py, wants an unknown or removed name refused in the
        server's words). The lines must be validated already (targets/options.py render_option)."""
        if self._version is None:  # the version decides the check; recorded with the template
            self.ensure_initialized()
        old_mysql = (self._version or "").startswith("5.")
        check = ["--validate-config"] if self.flavor == "mysql" and not old_mysql else ["--verbose", "--help"]
        container = self.docker.containers.create(
            self.cfg.image,
            entrypoint=[self._server],
            command=[*self._flags(options), "--user=mysql", *check],
            labels=self._labels("check"),
            network_mode="none",
        )
        try:
            container.start()
            exit_code = int(container.wait(timeout=120)["StatusCode"])
            stderr = container.logs(stdout=False, stderr=True).decode(errors="replace")
        finally:
            container.remove(v=True, force=True)
        errors = [line for line in stderr.splitlines() if "[ERROR]" in line and "Aborting" not in line]
        if exit_code != 0 or errors:
            return "\n".join(errors) or stderr.strip()[-2000:] or f"exit {exit_code}"
        return None

    def image_id(self) -> str:
        """The target's image id (pulled when missing, `pull: missing`): what a throw-away client
        container of the image runs (captures/docker_dump.py). ProvisionError."""
        return self._image_id()

    def binary_identity(self) -> str:
        """The image id and server command: changes when the tag points to another image."""
        return f"{self._image_id()}:{self._server}"

    def option_help(self) -> str:
        """`<server> --no-defaults --verbose --help` in a throwaway container of the image."""
        container = self.docker.containers.create(
            self._image_id(),
            entrypoint=[self._server],
            command=["--no-defaults", "--verbose", "--help", "--user=mysql"],
            labels=self._labels("check"),
            network_mode="none",
        )
        try:
            container.start()
            exit_code = int(container.wait(timeout=120)["StatusCode"])
            output = container.logs(stdout=True, stderr=False).decode(errors="replace")
        finally:
            container.remove(v=True, force=True)
        if exit_code != 0 or "--" not in output:
            raise ProvisionError(
                f"target {self.target_name}: {self._server} --verbose --help failed: {output[-1000:]}"
            )
        return output

    # ---- lifecycle -------------------------------------------------------------------------------
    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint:
        """Remove any previous container, copy the template to the data volume, run the image with
        the flags, wait for SELECT 1 (start timeout, 60 s by default). ProvisionError with the log
        tail. keep_data=True reuses an existing data volume (a prepared dataset, workloads/datasets.py).
        """
        self.ensure_initialized()
        self.stop()
        self._data_volume = self.data_volume
        self._keep_at_end = self._keep_at_end or keep_data
        # a kept volume copied from a template of another admin key (before issue 30: the fixed
        # password) is made again: its dataset is loaded again
        key = credentials.admin_key(self.admin_password)
        if not (keep_data and self._volume_key(self._data_volume) == key):
            self._remove_volume(self._data_volume)
            labels = self._labels("data", **{KEY_LABEL: key})
            self._copy_volume(self.template_volume, self._data_volume, labels)
        self._throwaway = not self._keep_at_end
        self._options = list(options)
        self._create_server(self._data_volume, options)
        self._wait_ready()
        return self.endpoint

    def restart(self) -> Endpoint:
        """Restart the container: same datadir volume and flags, a new server process (cold caches)."""
        if self._container is None:
            raise ProvisionError(f"target {self.target_name}: restart() before start()")
        self._container.restart(timeout=120)
        self._wait_ready()
        return self.endpoint

    def discard(self) -> None:
        """A throw-away data volume (copied fresh, and no start of this instance asked keep_data): kill
        and remove the container and the volume, no clean shutdown; any other: stop() cleanly."""
        volume = self._data_volume
        throwaway, self._throwaway, self._keep_at_end = self._throwaway, False, False
        if not throwaway or volume is None:
            self.stop()
            return
        self._remove_container(timeout_s=0)  # docker stop -t 0: SIGKILL at once
        self._data_volume = None
        self._remove_volume(volume)

    def forget_data(self) -> None:
        """discard() throws this data volume away (Provisioner.forget_data)."""
        self._throwaway, self._keep_at_end = True, False

    def describe(self) -> dict[str, str]:
        """{"image_or_binary": the image name and id, "option_file": the server flags, one a line}."""
        image = self.cfg.image
        if self._container is not None:
            image = f"{image} ({self._container.attrs.get('Image', '')})"
        return {"image_or_binary": image, "option_file": "\n".join(self._flags(self._options))}

    def server_version(self) -> str:
        """SELECT VERSION() from the running server, else as recorded when the template was made."""
        if self._container is not None:
            return select_version(self.endpoint)
        self.ensure_initialized()
        return self._version or ""


__all__ = ["MANAGED_LABEL", "TARGET_LABEL", "DockerProvisioner", "DockerSettings", "cleanup"]
