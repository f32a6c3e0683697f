"""A docker target's server container: the engine client, the image, the server's flags and
environment, creating and awaiting the container, its log, stop, pause and unpause.

DockerContainer is the first of the docker provisioner's layers (docker.py has the volumes and
containers named here); DockerVolumes (docker_volumes.py) adds the template and data volumes, and
DockerProvisioner (docker.py) option checks and starts.
"""

import contextlib
import uuid
from typing import TYPE_CHECKING, Any

from upgradelab.settings import Settings
from upgradelab.targets.client_auth import AuthPolicy
from upgradelab.targets.options import render_option
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
    engine_client,
    tar_of,
)
from upgradelab.targets.provisioners.docker_settings import docker_settings

# the Docker client (~0.15 CPU-s with requests) is imported by a docker target's first use, not by
# every start that imports the provisioners (issue 31)
if TYPE_CHECKING:
    import docker
    from docker.models.containers import Container

_SLOT_LABEL = "upgradelab.slot"
DATADIR = "/var/lib/mysql"
# The server's secure-file-priv: an empty tmpfs of the lab's in every server container.
_FILES_DIR = "/run/upgradelab-files"


def _option_flag(line: str) -> str:
    """`name=value` option-file line -> `--name=value` flag."""
    return f"--{line}"


class DockerContainer:
    """The engine, image, flags and server container of one slot (see module docstring)."""

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
    def docker(self) -> "docker.DockerClient":
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
        auth = AuthPolicy(target=self.target_name)
        return Endpoint("127.0.0.1", self.port, self.cfg.user, self.admin_password, client=client, auth=auth)

    def _labels(self, role: str, **extra: str) -> dict[str, str]:
        return {MANAGED_LABEL: "1", TARGET_LABEL: self.target_name, ROLE_LABEL: role, **extra}

    # ---- images ----------------------------------------------------------------------------------
    def _image_id(self) -> str:
        """The local image's id, pulling it when missing (pull: missing); ProvisionError if neither works."""
        from docker.errors import APIError, ImageNotFound

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
            from docker.errors import APIError, NotFound

            with contextlib.suppress(APIError, NotFound):
                self._last_log = self._container.logs(tail=lines).decode(errors="replace").rstrip()
        return "\n".join(self._last_log.splitlines()[-lines:])

    def _fail(self, what: str) -> ProvisionError:
        tail = self.log_tail()
        return ProvisionError(
            f"target {self.target_name} ({self.cfg.image}): {what}"
            + (f"\n--- container log tail ---\n{tail}" if tail else "")
        )

    # ---- the server container --------------------------------------------------------------------
    def _create_server(self, volume: str, options: list[str], init_sql: str | None = None) -> None:
        name = f"upgradelab-{self.target_name}-{self.slot}-{uuid.uuid4().hex[:8]}"
        self._last_log = ""
        self._container = self.docker.containers.create(
            self.cfg.image,
            command=[self._server, *self._flags(options), f"--secure-file-priv={_FILES_DIR}"],
            name=name,
            environment=self._environment(initializing=init_sql is not None),
            volumes={volume: {"bind": DATADIR, "mode": "rw"}},
            tmpfs={_FILES_DIR: "mode=1777,size=1m"},
            labels=self._labels("server", **{_SLOT_LABEL: str(self.slot)}),
            **self._run_kwargs(),
        )
        if init_sql is not None:
            self._container.put_archive("/docker-entrypoint-initdb.d", tar_of("zz-upgradelab.sql", init_sql))
        self._container.start()

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

    def _remove_container(self, timeout_s: float = 120.0) -> None:
        if self._container is None:
            return
        self.log_tail(200)  # kept for a later log_tail()
        from docker.errors import NotFound

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
        from docker.errors import APIError, NotFound

        filters = [f"{MANAGED_LABEL}=1", f"{TARGET_LABEL}={self.target_name}", f"{ROLE_LABEL}=server"]
        stopped = []
        for container in self.docker.containers.list(
            all=True, filters={"label": filters}, ignore_removed=True
        ):
            stopped.append(int(container.attrs["State"].get("Pid") or 0))
            with contextlib.suppress(APIError, NotFound):
                if container.status == "paused":
                    container.unpause()
                container.stop(timeout=int(timeout_s))
            with contextlib.suppress(NotFound):
                container.remove(v=True, force=True)
        self._container = None
        return stopped
