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

import contextlib
import uuid
from typing import Any

import docker
from docker.errors import APIError, ImageNotFound, NotFound
from docker.models.containers import Container

from upgradelab.settings import Settings
from upgradelab.targets.option_names import check_lines, server_names
from upgradelab.targets.options import OptionError, render_option
from upgradelab.targets.provisioners import credentials
from upgradelab.targets.provisioners.base import (
    SANDBOX_OPTIONS,
    Endpoint,
    NotReady,
    ProvisionError,
    client_flags,
    client_name,
    free_port,
    wait_for_select_1,
)
from upgradelab.targets.provisioners.docker_engine import (
    MANAGED_LABEL,
    ROLE_LABEL,
    TARGET_LABEL,
    cleanup,
    engine_client,
    tar_of,
)
from upgradelab.targets.provisioners.docker_settings import DockerSettings, docker_settings

_IMAGE_ID_LABEL = "upgradelab.image-id"
_SLOT_LABEL = "upgradelab.slot"
_VERSION_LABEL = "upgradelab.version"
_KEY_LABEL = "upgradelab.admin-key"  # credentials.admin_key of the password the volume was made with
_DATADIR = "/var/lib/mysql"
# The server's secure-file-priv: an empty tmpfs of the lab's in every server container.
_FILES_DIR = "/run/upgradelab-files"


def _option_flag(line: str) -> str:
    """`name=value` option-file line -> `--name=value` flag."""
    return f"--{line}"


class DockerProvisioner:
    """Start, restart and stop one target's server as a container (see module docstring)."""

    kind = "docker"
    instances = True  # one container and data volume per slot

    def __init__(
        self, target_name: str, flavor: str, raw_settings: dict[str, Any], app: Settings, slot: int = 0
    ) -> None:
        self.target_name = target_name
        self.flavor = flavor
        self.slot = slot
        self.cfg = docker_settings(raw_settings)
        self.port = self.cfg.port if slot == 0 else free_port()
        self.start_timeout_s = app.server_start_timeout_s
        self.app = app
        self._docker: docker.DockerClient | None = None
        self._container: Container | None = None
        self._data_volume: str | None = None
        # discard() throws the volume away only when this object copied it fresh and no start of this
        # instance asked to keep data (a dataset prepared after a keep_data start is kept too)
        self._keep_at_end = False
        self._throwaway = False
        self._version: str | None = None
        self._last_log = ""
        self._options: list[str] = []
        self._password = self.cfg.password  # None: the target's secret, read on first use

    @property
    def admin_password(self) -> str:
        """The admin account's password: the settings' (admin-set), else the target's secret
        (credentials.server_password, made on first use)."""
        if self._password is None:
            self._password = credentials.server_password(self.target_name, self.app)
        return self._password

    @property
    def docker(self) -> docker.DockerClient:
        """The engine client, connected on first use (ProvisionError when the engine is down)."""
        if self._docker is None:
            self._docker = engine_client()
        return self._docker

    @property
    def endpoint(self) -> Endpoint:
        client: tuple[str, ...] = ()
        if self._container is not None:
            # `-e MYSQL_PWD` without a value passes the caller's (Endpoint.client_env) into the container.
            client = (
                "docker", "exec", "-i", "-e", "MYSQL_PWD", str(self._container.name),
                client_name(self.flavor), *client_flags("127.0.0.1", self.port, self.cfg.user),
            )  # fmt: skip
        return Endpoint("127.0.0.1", self.port, self.cfg.user, self.admin_password, client=client)

    @property
    def template_volume(self) -> str:
        return f"upgradelab-{self.target_name}-template"

    def _labels(self, role: str, **extra: str) -> dict[str, str]:
        return {MANAGED_LABEL: "1", TARGET_LABEL: self.target_name, ROLE_LABEL: role, **extra}

    # ---- images ----------------------------------------------------------------------------------
    def _image_id(self) -> str:
        """The local image's id, pulling it when missing (pull: missing); ProvisionError if neither works."""
        try:
            return str(self.docker.images.get(self.cfg.image).id)
        except ImageNotFound:
            if self.cfg.pull == "never":
                raise ProvisionError(
                    f"target {self.target_name}: image {self.cfg.image} is not on this Docker host "
                    "(pull: never)"
                ) from None
        try:
            return str(self.docker.images.pull(self.cfg.image).id)
        except (APIError, ImageNotFound) as error:
            raise ProvisionError(
                f"target {self.target_name}: image {self.cfg.image} cannot be pulled: {error}"
            ) from error

    @property
    def _server(self) -> str:
        return self.cfg.server_command or ("mariadbd" if self.flavor == "mariadb" else "mysqld")

    # ---- flags -----------------------------------------------------------------------------------
    def _managed_flags(self) -> list[str]:
        if self.cfg.network == "host":
            network = [f"--port={self.port}", "--bind-address=127.0.0.1"]
        else:
            network = ["--port=3306", "--bind-address=0.0.0.0"]
        sandbox = [_option_flag(line) for line in SANDBOX_OPTIONS]  # as every lab server (base.py)
        # X Protocol off: with host networking every mysqld would want 33060 (MariaDB has none).
        return [*network, *sandbox, *([] if self.flavor == "mariadb" else ["--loose-mysqlx=OFF"])]

    def _flags(self, options: list[str]) -> list[str]:
        allowed = self.cfg.allowed_options
        base = [render_option(name, value, allowed) for name, value in self.cfg.base_options.items()]
        return [*self._managed_flags(), *(_option_flag(line) for line in [*base, *options])]

    def _environment(self, initializing: bool) -> dict[str, str]:
        """The container's environment: the target's `env`; the container that initializes the
        template also gets root's password (random, nobody keeps it) and root at localhost only.
        The lab user is made by the initdb.d file (the images' MYSQL_USER would be at %)."""
        if not initializing:
            return dict(self.cfg.env)
        root = credentials.throwaway()
        env = {"MYSQL_ROOT_PASSWORD": root, "MARIADB_ROOT_PASSWORD": root}
        env |= {"MYSQL_ROOT_HOST": "localhost", "MARIADB_ROOT_HOST": "localhost"}
        return {**env, **self.cfg.env}

    def _account_host(self) -> str:
        # host networking: the worker connects from 127.0.0.1; publish: from the bridge's gateway
        return "127.0.0.1" if self.cfg.network == "host" else "%"

    def _run_kwargs(self) -> dict[str, Any]:
        if self.cfg.network == "host":
            return {"network_mode": "host"}
        return {"ports": {"3306/tcp": ("127.0.0.1", self.port)}}

    # ---- logs ------------------------------------------------------------------------------------
    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the container's output (the server's error log goes to stderr)."""
        if self._container is not None:
            with contextlib.suppress(APIError, NotFound):
                self._last_log = self._container.logs(tail=lines).decode(errors="replace").rstrip()
        return "\n".join(self._last_log.splitlines()[-lines:])

    def _fail(self, what: str) -> ProvisionError:
        tail = self.log_tail()
        return ProvisionError(
            f"target {self.target_name} ({self.cfg.image}): {what}"
            + (f"\n--- container log tail ---\n{tail}" if tail else "")
        )

    # ---- initialization --------------------------------------------------------------------------
    def _template(self) -> Any:
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
            if same_image and labels.get(_KEY_LABEL) == key:
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
            version = self._select_version()
            self._remove_container()
            labels = {_IMAGE_ID_LABEL: image_id, _VERSION_LABEL: version, _KEY_LABEL: key}
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
            entrypoint=["cp", "-a", "/source/.", f"{_DATADIR}/"],
            command=[],
            user="root",
            volumes={source: {"bind": "/source", "mode": "ro"}, target: {"bind": _DATADIR, "mode": "rw"}},
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

    # ---- lifecycle -------------------------------------------------------------------------------
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
            raise ProvisionError("\n".join(errors) or stderr.strip()[-2000:] or f"exit {exit_code}")

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
            labels = self._labels("data", **{_KEY_LABEL: key})
            self._copy_volume(self.template_volume, self._data_volume, labels)
        self._throwaway = not self._keep_at_end
        self._options = list(options)
        self._create_server(self._data_volume, options)
        self._wait_ready()
        return self.endpoint

    def _create_server(self, volume: str, options: list[str], init_sql: str | None = None) -> None:
        name = f"upgradelab-{self.target_name}-{self.slot}-{uuid.uuid4().hex[:8]}"
        self._last_log = ""
        self._container = self.docker.containers.create(
            self.cfg.image,
            command=[self._server, *self._flags(options), f"--secure-file-priv={_FILES_DIR}"],
            name=name,
            environment=self._environment(initializing=init_sql is not None),
            volumes={volume: {"bind": _DATADIR, "mode": "rw"}},
            tmpfs={_FILES_DIR: "mode=1777,size=1m"},
            labels=self._labels("server", **{_SLOT_LABEL: str(self.slot)}),
            **self._run_kwargs(),
        )
        if init_sql is not None:
            self._container.put_archive("/docker-entrypoint-initdb.d", tar_of("zz-upgradelab.sql", init_sql))
        self._container.start()

    def restart(self) -> Endpoint:
        """Restart the container: same datadir volume and flags, a new server process (cold caches)."""
        if self._container is None:
            raise ProvisionError(f"target {self.target_name}: restart() before start()")
        self._container.restart(timeout=120)
        self._wait_ready()
        return self.endpoint

    def _wait_ready(self) -> None:
        try:
            wait_for_select_1(self.endpoint, self.start_timeout_s, self._exit_reason)
        except NotReady as not_ready:
            failed = self._fail(str(not_ready))  # the log tail, before the container goes
            self.stop()
            raise failed from None

    def _exit_reason(self) -> str | None:
        assert self._container is not None
        self._container.reload()
        if self._container.status in {"exited", "dead"}:
            code = self._container.attrs["State"]["ExitCode"]
            return f"server container exited during start-up (exit code {code})"
        return None

    def stop(self, timeout_s: float = 120.0) -> None:
        """Stop and remove the server container (a no-op when none); the data volume stays."""
        self._remove_container(timeout_s)
        self._data_volume = None

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

    @property
    def data_volume(self) -> str:
        """This slot's datadir volume, `upgradelab-<target>-data` (slot 0) or `...-data-<slot>`."""
        suffix = "" if self.slot == 0 else f"-{self.slot}"
        return f"upgradelab-{self.target_name}-data{suffix}"

    def _volume_key(self, name: str) -> str | None:
        """The admin key a volume is labelled with; None when it has none or does not exist."""
        try:
            volume = self.docker.volumes.get(name)
        except NotFound:
            return None
        return (volume.attrs.get("Labels") or {}).get(_KEY_LABEL)

    def _remove_container(self, timeout_s: float = 120.0) -> None:
        if self._container is None:
            return
        self.log_tail(200)  # kept for a later log_tail()
        try:
            self.thaw()  # a paused container does not take the stop signal
            self._container.stop(timeout=int(timeout_s))
            self._container.remove(v=True, force=True)
        except NotFound:
            pass
        self._container = None

    def freeze(self) -> None:
        """`docker pause` the server container (cgroup freezer): no work until thaw()."""
        if self._container is not None:
            self._container.reload()
            if self._container.status == "running":
                self._container.pause()

    def thaw(self) -> None:
        """`docker unpause` the server container when it is paused."""
        if self._container is not None:
            self._container.reload()
            if self._container.status == "paused":
                self._container.unpause()

    def pid(self) -> int | None:
        """The server's process id on this host (State.Pid), or None without a running container."""
        if self._container is None:
            return None
        self._container.reload()
        return int(self._container.attrs["State"]["Pid"]) or None

    def stop_all(self, timeout_s: float = 120.0) -> list[int]:
        """Stop and remove every server container of this target (all slots), found by its labels;
        returns their host pids (0 for one that was not running)."""
        filters = [f"{MANAGED_LABEL}=1", f"{TARGET_LABEL}={self.target_name}", f"{ROLE_LABEL}=server"]
        stopped = []
        for container in self.docker.containers.list(all=True, filters={"label": filters}):
            stopped.append(int(container.attrs["State"].get("Pid") or 0))
            with contextlib.suppress(APIError, NotFound):
                if container.status == "paused":
                    container.unpause()
                container.stop(timeout=int(timeout_s))
            with contextlib.suppress(NotFound):
                container.remove(v=True, force=True)
        self._container = None
        return stopped

    def describe(self) -> dict[str, str]:
        """{"image_or_binary": the image name and id, "option_file": the server flags, one a line}."""
        image = self.cfg.image
        if self._container is not None:
            image = f"{image} ({self._container.attrs.get('Image', '')})"
        return {"image_or_binary": image, "option_file": "\n".join(self._flags(self._options))}

    def _remove_volume(self, name: str) -> None:
        with contextlib.suppress(NotFound):
            self.docker.volumes.get(name).remove(force=True)

    def server_version(self) -> str:
        """SELECT VERSION() from the running server, else as recorded when the template was made."""
        if self._container is not None:
            return self._select_version()
        self.ensure_initialized()
        return self._version or ""

    def _select_version(self) -> str:
        connection = self.endpoint.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT VERSION()")
                row = cursor.fetchone()
        finally:
            connection.close()
        return str(row[0]) if row else ""


__all__ = ["MANAGED_LABEL", "TARGET_LABEL", "DockerProvisioner", "DockerSettings", "cleanup"]
