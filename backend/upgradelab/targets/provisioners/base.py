"""The provisioner interface: how the worker gets a server for a variant, whatever runs it."""

import os
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import pymysql
from pymysql.connections import Connection

from upgradelab.targets.client_auth import AuthPolicy
from upgradelab.targets.provisioners.guarded import GuardedConnection

if TYPE_CHECKING:
    ServerConnection = Connection[Any]
else:  # pymysql's Connection is generic only in its stubs
    ServerConnection = Connection


# Every lab server keeps its files in its datadir and reads none of its clients' files: no symbolic
# links (MyISAM's DATA/INDEX DIRECTORY would write anywhere; MariaDB ignores DATA DIRECTORY for every
# engine then, with a warning) and no LOAD DATA LOCAL. `loose-`: MySQL deprecates symbolic-links
# (off by default there) and a build without the option has no symbolic links at all. MySQL's
# InnoDB DATA DIRECTORY is bounded anyway: only innodb_directories, which the lab never sets.
SANDBOX_OPTIONS = ("loose-skip-symbolic-links", "local-infile=0")


# Every connection the lab opens waits a bounded time for anything (Endpoint.connect):
CONNECT_TIMEOUT_S = 10.0  # the TCP connect, and each read of the greeting and sign-in
# The lab's own statements (SELECT 1, SHOW, SET GLOBAL, GRANT, KILL, capability checks): each answers
# in well under a second; 30 s covers a busy 2-core host, and a server that says nothing for that
# long to one of them is stuck, not slow.
ADMIN_READ_TIMEOUT_S = 30.0
# Where user statements run (replayed queries, custom SQL), each under its statement bound
# (targets/statement_timeout.py: the server's limit, then a KILL QUERY 0.5 s later): a read waits
# the bound plus this margin, so the bound, never the socket, ends a slow statement.
STATEMENT_READ_MARGIN_S = 30.0
# The default: connections running a template's statements (data preparation, iterations), which no
# statement bound covers; the longest statement bound a user may set (3600 s,
# statement_timeout.MAX_TIMEOUT_S) plus the margin, so no connection waits for ever.
WORK_READ_TIMEOUT_S = 3600.0 + STATEMENT_READ_MARGIN_S
# A write waits this long for the server to take bytes (a frozen or wedged server: the kernel's
# buffer is full); the lab's statements are at most max_allowed_packet, sent at loopback speed.
WRITE_TIMEOUT_S = 60.0
CR_SERVER_LOST = 2013  # PyMySQL's error code for a connection lost or timed out during a read


class ProvisionError(RuntimeError):
    """A server could not be initialized, started or stopped; the message carries the log tail."""


@dataclass(frozen=True)
class Endpoint:
    """Where a started server answers: TCP on 127.0.0.1 (or the host the target names).

    `database` is the lab's own database on a server the lab does not own (existing targets): the
    default database of every connection, and where workloads create their objects. `ssl_ca` (a CA
    file path) turns TLS on; `ssl_verify_identity` also checks the server's name against its certificate.
    `client` is the argv of the server's own command-line client connected to it (`mysql` or
    `mariadb`, in the chroot / container the server runs in), without the password: run it with
    client_env() so the password travels in MYSQL_PWD, never on a command line. () when unknown.
    `auth` is the target's authentication policy (targets/client_auth.py): the plugins a client of the
    lab's may answer there, and the target's name for a refusal.
    """

    host: str
    port: int
    user: str
    password: str = field(repr=False)  # a log line or a traceback showing an Endpoint never shows it
    database: str | None = None
    ssl_ca: str | None = None
    ssl_verify_identity: bool = False
    client: tuple[str, ...] = ()
    auth: AuthPolicy = field(default_factory=AuthPolicy)

    def client_env(self) -> dict[str, str]:
        """The environment for `client`: this process's, plus MYSQL_PWD."""
        return {**os.environ, "MYSQL_PWD": self.password}

    def connect(
        self,
        database: str | None = None,
        *,
        timeout_s: float = CONNECT_TIMEOUT_S,
        read_timeout_s: float = WORK_READ_TIMEOUT_S,
    ) -> ServerConnection:
        """A fresh autocommit PyMySQL connection (caching_sha2_password works over TCP), every wait
        bounded: `timeout_s` the TCP connect and each read of the greeting and sign-in (a port where
        something else listens: Redis, an HTTP server, a silent listener, answers an OperationalError
        naming host:port after about timeout_s, not never); after sign-in each read waits at most
        `read_timeout_s` (ADMIN_READ_TIMEOUT_S for the lab's own statements, a statement's bound plus
        STATEMENT_READ_MARGIN_S where user statements run, WORK_READ_TIMEOUT_S by default) and each
        write WRITE_TIMEOUT_S.

        TLS only with `ssl_ca` (verified against it). Without it the connection is plain TCP
        (`ssl_disabled`): PyMySQL 1.2 made TLS "preferred" by default, which loaded the CA bundle for
        every connection (~40 ms of CPU: a third of the gate's test-process CPU, issue 31) and encrypted
        only on servers that make certificates at start (MySQL 8.0+, MariaDB 11.4+), so two variants'
        statement times carried different client costs.

        Only the authentication plugins `auth` allows are answered (GuardedConnection): a server asking
        for another, or for cleartext without the target's opt-in and verified TLS, is refused with an
        OperationalError 2059 naming the target and the plugin, before any password byte is sent."""
        tls: dict[str, Any] = {"ssl_disabled": True}
        if self.ssl_ca:
            verify = self.ssl_verify_identity
            tls = {"ssl_ca": self.ssl_ca, "ssl_verify_cert": True, "ssl_verify_identity": verify}
        handshake_s = max(1.0, timeout_s)
        try:
            connection = GuardedConnection(
                host=self.host,
                port=self.port,
                user=self.user,
                password=self.password,
                database=database or self.database,
                autocommit=True,
                connect_timeout=int(handshake_s),
                read_timeout=handshake_s,
                write_timeout=WRITE_TIMEOUT_S,
                charset="utf8mb4",
                defer_connect=True,
                **tls,
            ).connect_under(self.auth, tls_verified=bool(self.ssl_ca))
        except pymysql.OperationalError as error:
            if error.args[:1] != (CR_SERVER_LOST,):
                raise
            raise pymysql.OperationalError(
                CR_SERVER_LOST,
                f"{self.host}:{self.port} did not complete a MySQL handshake within {handshake_s:.0f} s "
                f"(is a MySQL or MariaDB server listening there?): {error.args[-1]}",
            ) from error
        # what PyMySQL raises parsing bytes that are not a greeting (an HTTP answer: a wrong sequence
        # number; other bytes: its parsers' own errors)
        except (pymysql.InternalError, struct.error, IndexError, ValueError, UnicodeError) as error:
            raise pymysql.OperationalError(
                CR_SERVER_LOST,
                f"{self.host}:{self.port} does not speak the MySQL protocol "
                f"({type(error).__name__}: {error})",
            ) from error
        # PyMySQL compares `_read_timeout` with the socket's before every packet it reads
        # (Connection._read_packet) and has no public setter: the greeting is waited for `timeout_s`,
        # what follows for `read_timeout_s`.
        connection._read_timeout = read_timeout_s  # type: ignore[attr-defined]
        return connection


def client_name(flavor: str) -> str:
    """The command-line client's name of a flavor: `mariadb` (10.5+ ships it) or `mysql`."""
    return "mariadb" if flavor == "mariadb" else "mysql"


def client_flags(host: str, port: int, user: str, *, connect_timeout: bool = True) -> list[str]:
    """Connection flags of the mysql/mariadb client: TCP to host:port as user, no option files
    (a packaged /etc/mysql/my.cnf must not change how a dump is read), the connect and the greeting
    bounded by CONNECT_TIMEOUT_S (what the client then sends, a dump's statements, is bounded by the
    lab watching it: the loader's own limits and a cancel that stops the server).
    `connect_timeout=False` for the dump clients, which have no such option (mariadb-dump 10.11:
    "unknown variable 'connect-timeout=10'", exit 7)."""
    flags = ["--no-defaults", "--protocol=TCP", f"--host={host}", f"--port={port}", f"--user={user}"]
    return [*flags, f"--connect-timeout={int(CONNECT_TIMEOUT_S)}"] if connect_timeout else flags


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now, chosen by the kernel (bind to port 0).

    The port is released before the server binds it; the kernel hands out ephemeral ports in turn,
    so another process taking it in between is unlikely (a clash shows as a start-up error)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class NotReady(Exception):
    """wait_for_select_1 gave up; `exited` tells a dead server from one that never answered."""

    def __init__(self, message: str, *, exited: bool) -> None:
        super().__init__(message)
        self.exited = exited


# How often wait_for_select_1 tries: a refused connection costs well under a millisecond, and every
# run waits for its slowest instance, so a coarse step (it was 0.25 s) is time before the first iteration.
READY_POLL_S = 0.02


def wait_for_select_1(endpoint: Endpoint, timeout_s: float, exit_reason: Callable[[], str | None]) -> None:
    """Poll `SELECT 1` every READY_POLL_S (0.02 s) until the server answers.

    exit_reason() is asked before each try: a message there (the process or container is gone) raises
    NotReady(exited=True) at once; no answer within timeout_s raises NotReady(exited=False) naming
    host:port and the last connection error. The caller adds its log tail and cleans up.
    """
    deadline = time.monotonic() + timeout_s
    last_error = ""
    while time.monotonic() < deadline:
        reason = exit_reason()
        if reason is not None:
            raise NotReady(reason, exited=True)
        try:
            # the greeting of a server starting on a loaded host may take seconds: CONNECT_TIMEOUT_S
            connection = endpoint.connect(timeout_s=CONNECT_TIMEOUT_S, read_timeout_s=ADMIN_READ_TIMEOUT_S)
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            connection.close()
            return
        except pymysql.MySQLError as error:
            last_error = str(error)
            time.sleep(READY_POLL_S)
    raise NotReady(
        f"no answer to SELECT 1 on {endpoint.host}:{endpoint.port} within {timeout_s:.0f} s "
        f"(last error: {last_error})",
        exited=False,
    )


def select_version(endpoint: Endpoint) -> str:
    """SELECT VERSION() of the server at `endpoint` ('' when it returns no row), on a connection of
    its own (the local and docker provisioners' server_version)."""
    connection = endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT VERSION()")
            row = cursor.fetchone()
    finally:
        connection.close()
    return str(row[0]) if row else ""


class Provisioner(Protocol):
    """One server instance of a target (its `slot`): lifecycle, freeze/thaw and what it runs.

    Options are validated `name[=value]` option-file lines. `instances` is the kind's capability:
    True when several slots of one target can run at once (local, tarball, docker); False for a
    kind that has one server only, whose variants then share it (the runner re-applies a variant's
    SET GLOBAL settings at the start of each of its blocks)."""

    kind: str
    instances: bool
    target_name: str
    flavor: str
    slot: int
    # True after a start that began on a fresh copy of the template (no kept datadir was there, or
    # keep_data was not asked); False when it may hold a kept datadir, or the kind cannot tell (docker,
    # existing). A dataset's start reads it: a fresh copy need not be started again to be fresh.
    fresh_data: bool

    @property
    def endpoint(self) -> Endpoint:
        """Where the server answers once started."""

    def ensure_initialized(self) -> None:
        """Make whatever one-time state the server needs (an initialized datadir, an image); idempotent."""

    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the server's error log ('' when there is none)."""

    def check_options(self, options: list[str]) -> None:
        """Raise ProvisionError if the options are refused: a name the binary does not list in full
        or in a refused category (targets/option_names.py, before anything is written), or the
        server's own messages."""

    def binary_identity(self) -> str:
        """A string that changes when the server binary changes (keys the option-name cache)."""

    def option_help(self) -> str:
        """`<server> --no-defaults --verbose --help` output of the target's binary."""

    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint:
        """Start a fresh server (stopping any previous one) with these options; wait for SELECT 1.

        keep_data=True starts on the datadir the previous start left (a prepared dataset is reused)
        when there is one, instead of a fresh copy of the initialized template."""

    def restart(self) -> Endpoint:
        """Stop and start the current server, same datadir and options (a cold buffer pool)."""

    def stop(self, timeout_s: float = 120.0) -> None:
        """Stop the server if it runs; a no-op otherwise."""

    def discard(self) -> None:
        """End the instance for good at a job's end. A datadir that a start copied fresh, when no start
        of this instance asked keep_data, is thrown away: the server is killed (no clean shutdown, which
        takes MySQL 9.7 1.5-2 s for nothing) and the datadir removed, so no later start finds it. Any
        other (a dataset's copy, prepared after a keep_data start) is stopped cleanly, as stop() does."""

    def forget_data(self) -> None:
        """The datadir this instance runs on holds nothing to keep (a dataset load that failed or was
        cancelled): discard() throws it away, whatever start asked keep_data."""

    def server_version(self) -> str:
        """SELECT VERSION() of the target's binaries (starts the initialized template if needed)."""

    def freeze(self) -> None:
        """Stop the server doing any work (SIGSTOP, docker pause) until thaw(); no-op when stopped."""

    def thaw(self) -> None:
        """Let a frozen server run again (SIGCONT, docker unpause); no-op when it runs."""

    def pid(self) -> int | None:
        """The server's process id on this host while it runs, else None."""

    def stop_all(self, timeout_s: float = 120.0) -> list[int]:
        """Stop every instance of this target (all slots), found by pid files or docker labels."""

    def describe(self) -> dict[str, str]:
        """{"image_or_binary", "option_file"}: what this instance runs and its effective options."""
