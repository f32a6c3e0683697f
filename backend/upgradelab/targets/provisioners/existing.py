"""The existing provisioner: a MySQL or MariaDB server the lab does not own (staging RDS/Aurora, a
team's own instance). It never starts, reconfigures or stops that server:

    start()     connects and checks (SELECT 1, the lab database), returns the endpoint; startup
                options cannot reach the server (no option file): a variant carrying its own is
                refused in pre-flight (experiments/preflight.py), the probes' and templates' are not applied
    restart()   only with the RESTART capability: the `RESTART` statement, then waits until the
                server went away and answers again (ProvisionError otherwise, naming the capability)
    stop()      puts back the SET GLOBAL values and redo-log state the run's variants changed
                (remembered in pre-flight) and closes the lab's connections

One server serves every variant of the target (`instances = False`): the runner re-applies each
variant's SET GLOBAL settings at the start of its blocks. Hosts other than loopback must be listed
in UPGRADELAB_EXISTING_HOSTS (targets/existing_hosts.py).
"""

import contextlib
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import pymysql

from upgradelab.settings import Settings
from upgradelab.targets.client_auth import AuthPolicy
from upgradelab.targets.provisioners.base import (
    ADMIN_READ_TIMEOUT_S,
    Endpoint,
    ProvisionError,
    ServerConnection,
)
from upgradelab.targets.provisioners.existing_settings import ExistingSettings

log = logging.getLogger(__name__)
_INTEGER = re.compile(r"^-?[0-9]+$")
# The TCP connect and the greeting of a server the lab does not run: a port where something other
# than MySQL listens (Redis, an HTTP server) is refused after this, within the 10 s an API request
# that adds or checks the target may take (issue 30).
EXISTING_CONNECT_S = 5.0


def _uptime(connection: ServerConnection) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS LIKE 'Uptime'")
        row = cursor.fetchone()
    return int(row[1]) if row else 0


def restart_and_wait(endpoint: Endpoint, timeout_s: float = 60.0) -> str | None:
    """`RESTART` (MySQL 8.0.13+: the SHUTDOWN privilege and a supervisor such as systemd or
    mysqld_safe that starts mysqld again), then wait until the server has gone (a refused
    connection, or a lower Uptime: it may be back before a poll sees it gone) and answers again.

    None when the server came back; otherwise what went wrong (the server's words, or the timeout)."""
    try:
        connection = endpoint.connect(timeout_s=EXISTING_CONNECT_S, read_timeout_s=ADMIN_READ_TIMEOUT_S)
    except pymysql.MySQLError as error:
        return f"cannot connect: {error}"
    try:
        uptime = _uptime(connection)
        with connection.cursor() as cursor:
            cursor.execute("RESTART")
    except pymysql.MySQLError as error:
        return f"RESTART refused: {error}"
    finally:
        connection.close()
    went_away = False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            probe = endpoint.connect(timeout_s=EXISTING_CONNECT_S, read_timeout_s=ADMIN_READ_TIMEOUT_S)
        except pymysql.MySQLError:
            went_away = True
        else:
            try:
                if went_away or _uptime(probe) < uptime:
                    return None
            except pymysql.MySQLError:
                went_away = True  # shutting down under the query
            finally:
                probe.close()
        time.sleep(0.25)
    return f"the server did not come back within {timeout_s:.0f} s after RESTART"


class ExistingProvisioner:
    """A server the lab connects to but does not run (see module docstring)."""

    kind = "existing"
    fresh_data = False  # the team's server: never a copy of a template
    instances = False  # one server for every variant of the target: it cannot make another

    def __init__(
        self, target_name: str, flavor: str, raw_settings: dict[str, Any], app: Settings, slot: int = 0
    ) -> None:
        self.target_name = target_name
        self.flavor = flavor
        self.slot = slot  # always one server: every slot is the same one (instances = False)
        self.cfg = ExistingSettings.model_validate(raw_settings)
        self.timeout_s = app.server_start_timeout_s
        self._connections: list[ServerConnection] = []
        self._remember_globals: set[str] = set()
        self._remember_redo_log = False
        self._saved: dict[str, str] | None = None  # variable -> value before the run changed it
        self._redo_log_was_on: bool | None = None
        self.capabilities_cache: Any = None  # experiments/preflight.py: detected once per run

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(
            self.cfg.host,
            self.cfg.port,
            self.cfg.user,
            self.cfg.password,
            database=self.cfg.database,
            ssl_ca=self.cfg.ssl_ca,
            ssl_verify_identity=self.cfg.ssl_verify_identity,
            auth=AuthPolicy(self.target_name, tuple(self.cfg.auth_plugins), self.cfg.allow_cleartext),
        )

    def _fail(self, what: str) -> ProvisionError:
        return ProvisionError(f"target {self.target_name} ({self.cfg.host}:{self.cfg.port}): {what}")

    def connect(self) -> ServerConnection:
        """A connection of the lab's own (short statements: ADMIN_READ_TIMEOUT_S), closed by stop();
        ProvisionError naming host:port with the server's words, within about EXISTING_CONNECT_S when
        what listens there is not a MySQL server."""
        try:
            connection = self.endpoint.connect(
                timeout_s=EXISTING_CONNECT_S, read_timeout_s=ADMIN_READ_TIMEOUT_S
            )
        except pymysql.MySQLError as error:
            what = f"cannot connect as {self.cfg.user} to database {self.cfg.database}: {error}"
            raise self._fail(what) from error
        self._connections.append(connection)
        return connection

    @contextlib.contextmanager
    def session(self) -> Iterator[ServerConnection]:
        """A short-lived connection of the lab's, closed on leaving the block."""
        connection = self.connect()
        try:
            yield connection
        finally:
            self._connections.remove(connection)
            connection.close()

    def ensure_initialized(self) -> None:
        """Nothing to initialize on a server the lab does not own: check that it answers."""
        with self.session():
            pass

    def log_tail(self, lines: int = 25) -> str:
        """'' : the lab cannot read the error log of a server it does not run."""
        del lines
        return ""

    def check_options(self, options: list[str]) -> None:
        """Accepts: nothing reaches an option file here. The probes' and templates' startup options
        are not applied (the server's own configuration stands); a variant's own startup options are
        refused in pre-flight by capability (experiments/preflight.py), where the runner knows which
        are whose."""
        del options

    def binary_identity(self) -> str:
        """host:port and the server's version: the lab has no binary of its own here."""
        return f"existing {self.cfg.host}:{self.cfg.port} {self.server_version()}"

    def option_help(self) -> str:
        """An existing server takes no startup options from the lab (ProvisionError, always): its
        variants are refused by capability `startup_options` in pre-flight before this is asked."""
        raise ProvisionError(
            f"target {self.target_name}: an existing server takes no startup options (capability "
            "startup_options)"
        )

    def remember(self, set_global: list[str], redo_log_off: bool) -> None:
        """Variables (and the redo log) a variant will change: their values at the first start are
        put back by stop(), so a run leaves a shared server as it found it."""
        self._remember_globals |= {name.lower() for name in set_global}
        self._remember_redo_log |= redo_log_off

    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint:
        """Check that the server answers (the lab database included); save what stop() puts back."""
        del options, keep_data
        with self.session() as connection:
            if self._saved is None:
                self._saved = self._read_globals(connection, self._remember_globals)
                if self._remember_redo_log:
                    self._redo_log_was_on = self._redo_log_on(connection)
        return self.endpoint

    def restart(self) -> Endpoint:
        """`RESTART` and wait until the server is back (restart_and_wait); ProvisionError naming the
        restart capability when it is refused or the server does not come back."""
        self._close_all()
        failure = restart_and_wait(self.endpoint, self.timeout_s)
        if failure:
            raise self._fail(f"needs the restart capability: {failure}")
        return self.endpoint

    def stop(self, timeout_s: float = 120.0) -> None:
        """Put back what the run changed (best effort, logged), then close the lab's connections."""
        del timeout_s
        try:
            self._put_back()
        except pymysql.MySQLError:
            log.exception("target %s: putting back the server's settings", self.target_name)
        finally:
            self._close_all()
            self._saved, self._redo_log_was_on = None, None

    def discard(self) -> None:
        """As stop(): the server is not the lab's to kill, its settings are put back."""
        self.stop()

    def forget_data(self) -> None:
        """No-op: the server's data is not the lab's to throw away."""

    def stop_all(self, timeout_s: float = 120.0) -> list[int]:
        """As stop(): there is exactly one server and the lab never stops it; no process ids."""
        self.stop(timeout_s)
        return []

    def interrupt(self) -> list[int]:
        """End every statement of the lab's account on the server (KILL QUERY, from a connection of
        its own): a cancelled job's iteration or preparation ends at once, the server and its other
        clients go on. The job holds the server's lock (`server:<host>:<port>`, execution/locks.py), so
        the lab account's statements there are the job's. The connection ids killed."""
        with self.session() as connection, connection.cursor() as cursor:
            cursor.execute(
                "SELECT ID FROM information_schema.PROCESSLIST "
                "WHERE USER = %s AND ID <> CONNECTION_ID() AND COMMAND NOT IN ('Sleep', 'Killed')",
                (self.cfg.user,),
            )
            ids = [int(row[0]) for row in cursor.fetchall()]
            for connection_id in ids:
                with contextlib.suppress(pymysql.MySQLError):  # ended meanwhile
                    cursor.execute(f"KILL QUERY {connection_id}")
        return ids

    def freeze(self) -> None:
        """No-op: the lab cannot pause a server it does not run (it serves its other clients anyway)."""

    def thaw(self) -> None:
        """No-op (see freeze)."""

    def pid(self) -> None:
        """None: the server's process is not on the lab's host (or not the lab's to signal)."""
        return None

    def describe(self) -> dict[str, str]:
        """{"image_or_binary", "option_file"}: where the server answers; no option file of the lab's."""
        return {
            "image_or_binary": f"existing server {self.cfg.host}:{self.cfg.port}",
            "option_file": "",
        }

    def server_version(self) -> str:
        """SELECT VERSION() of the server."""
        with self.session() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT VERSION()")
            row = cursor.fetchone()
        return str(row[0]) if row else ""

    # ---- what the run changed ------------------------------------------------------------------
    def _put_back(self) -> None:
        if self._saved is None:
            return
        with self.session() as connection:
            now = self._read_globals(connection, set(self._saved))
            with connection.cursor() as cursor:
                for name, value in self._saved.items():
                    if now.get(name) != value:
                        number = _INTEGER.match(value)
                        cursor.execute(f"SET GLOBAL {name} = %s", (int(value) if number else value,))
                if self._redo_log_was_on and self._redo_log_on(connection) is False:
                    cursor.execute("ALTER INSTANCE ENABLE INNODB REDO_LOG")

    @staticmethod
    def _read_globals(connection: ServerConnection, names: set[str]) -> dict[str, str]:
        if not names:
            return {}
        with connection.cursor() as cursor:
            placeholders = ", ".join(["%s"] * len(names))
            cursor.execute(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({placeholders})", sorted(names))
            return {str(name).lower(): str(value) for name, value in cursor.fetchall()}

    @staticmethod
    def _redo_log_on(connection: ServerConnection) -> bool | None:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")
            row = cursor.fetchone()
        return None if row is None else str(row[1]).upper() == "ON"

    def _close_all(self) -> None:
        for connection in self._connections:
            # already gone (a restart, a dropped network): nothing left to close
            with contextlib.suppress(pymysql.MySQLError):
                connection.close()
        self._connections.clear()
