"""Startup options and system variables a variant may not set, by category, each with its reason.

A server under test must stay in its sandbox: its files in the lab's directories, its code the
binary's own, its grants on, its sockets on 127.0.0.1, no SQL run behind the workload's back. The
rules below work on the canonical dashed name (`innodb-tmpdir`), without `loose-` and without the
boolean prefixes `skip-`/`enable-`/`disable-`; system variables (`SET GLOBAL slow_query_log_file`)
use the same rules on their dashed form, plus a few variables that only exist as variables.

Exact names come first (a name such as `log-bin` is fine as a flag but not with a path), then
name shapes (`*-dir`, `*-file`, `*-path`, ...), which catch the options of plugins and of server
versions not listed here. A target's admin may allow named exceptions (`allowed_options`).
"""

from collections.abc import Collection
from dataclasses import dataclass

MANAGED = "managed by the provisioner (paths, ports, users and start-up files are the lab's own)"
PATH = "path- or file-valued: the server would read or write a file outside the lab's directories"
PLUGIN = "plugin or code loading: the server would run code that is not the binary's own"
GRANTS = "grant skipping: the server would let anyone in with every privilege"
NETWORK = "network exposure: the server listens on 127.0.0.1 on the lab's port only"
INIT_SQL = "init SQL: statements the server would run outside the workload"
LOGS = "log file location: the lab keeps the server's logs in its own directory"
DEBUG = "debugging: trace files and debug hooks write to the host and change the server's behaviour"
FILE_ACCESS = "file access: LOAD DATA LOCAL lets the server read the client's files"
BINLOG_BYPASS = "binary log bypass: statements would leave no trace in the binary log"


@dataclass(frozen=True)
class Refusal:
    """Why a name is refused: its category's reason (one of the constants above)."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name!r} is refused: {self.reason}"


_EXACT: dict[str, str] = {
    **dict.fromkeys(
        (
            "basedir",
            "datadir",
            "tmpdir",
            "socket",
            "pid-file",
            "user",
            "chroot",
            "defaults-file",
            "defaults-extra-file",
            "defaults-group-suffix",
            "no-defaults",
            "print-defaults",
            "login-path",
            "initialize",
            "initialize-insecure",
            "bootstrap",
            "daemonize",
            "mysqlx",
            "secure-file-priv",
        ),
        MANAGED,
    ),
    **dict.fromkeys(
        ("plugin-load", "plugin-load-add", "early-plugin-load", "plugin-dir", "wsrep-provider", "wsrep-on"),
        PLUGIN,
    ),
    **dict.fromkeys(("skip-grant-tables", "grant-tables"), GRANTS),
    **dict.fromkeys(
        (
            "bind-address",
            "admin-address",
            "port",
            "extra-port",
            "proxy-protocol-networks",
            "feedback-url",
            "feedback-http-proxy",
            "ndb-connectstring",
            "ndb-mgmd-host",
            "report-host",
        ),
        NETWORK,
    ),
    **dict.fromkeys(
        ("init-file", "init-connect", "init-slave", "init-replica", "wsrep-notify-cmd"), INIT_SQL
    ),
    **dict.fromkeys(
        (
            "log-error",
            "general-log-file",
            "slow-query-log-file",
            "log-slow-query-file",
            "log-basename",
            "log-bin-index",
            "relay-log",
            "relay-log-index",
            "relay-log-info-file",
            "master-info-file",
            "log-isam",
            "log-tc",
            "log-ddl-recovery",
        ),
        LOGS,
    ),
    **dict.fromkeys(
        ("character-sets-dir", "lc-messages-dir", "language", "des-key-file", "innodb-directories"), PATH
    ),
    **dict.fromkeys(("debug", "debug-dbug", "debug-sync", "wsrep-dbug-option", "debug-gdb"), DEBUG),
    "local-infile": FILE_ACCESS,
}
# Options that only exist as system variables, or that matter only as SET targets.
_VARIABLES_EXACT: dict[str, str] = {
    "sql-log-bin": BINLOG_BYPASS,
    "log-bin-basename": LOGS,
    "log-error-services": LOGS,
}
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("keyring-", PLUGIN),
    ("wsrep-", PLUGIN),
    ("plugin-", PLUGIN),
    ("ssl-", PATH),
    ("admin-ssl-", PATH),
    ("mysqlx-ssl-", PATH),
    ("debug-", DEBUG),
    ("secure-", MANAGED),
)
_SSL_FILES = ("ca", "capath", "cert", "key", "crl", "crlpath")
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("-address", NETWORK),
    ("-port", NETWORK),
    ("-socket", NETWORK),
    ("-dir", PATH),
    ("-dirs", PATH),
    ("-directory", PATH),
    ("-tmpdir", PATH),
    ("-home", PATH),
    ("-file", PATH),
    ("-filename", PATH),
    ("-path", PATH),
)
# Boolean options whose names end like a path but take ON/OFF (checked before the suffixes).
_NOT_PATHS = frozenset({"core-file", "aria-sync-log-dir", "innodb-flush-log-at-timeout"})


def option_refusal(name: str, value: str | None, allowed: Collection[str] = ()) -> Refusal | None:
    """The category refusing startup option `name` (dashed, no loose-/skip- prefix) with `value`, or None.

    `log-bin` is allowed as a bare flag (`log-bin`, `skip-log-bin`) and with ON/OFF-style values,
    not with a file name. `allowed` holds the target's admin-listed exceptions (dashed names).
    """
    if name in allowed:
        return None
    if name == "log-bin":
        if value is None or value.upper() in {"ON", "OFF", "1", "0"}:
            return None
        return Refusal(name, LOGS)
    reason = _category(name, _EXACT)
    return Refusal(name, reason) if reason else None


def variable_refusal(name: str) -> Refusal | None:
    """The category refusing `SET GLOBAL/SESSION name` (underscored or dashed), or None.

    Beyond the startup rules: sql_log_bin, log_bin_basename, log_error_services, and every
    secure_* and plugin_* variable."""
    dashed = name.strip().lower().replace("_", "-")
    reason = _category(dashed, {**_EXACT, **_VARIABLES_EXACT})
    if reason is None and dashed == "log-bin":
        reason = LOGS
    return Refusal(name, reason) if reason else None


def _category(name: str, exact: dict[str, str]) -> str | None:
    if name in exact:
        return exact[name]
    if name in _NOT_PATHS:
        return None
    for prefix, reason in _PREFIXES:
        if name.startswith(prefix):
            if reason == PATH and name.removeprefix(prefix) not in _SSL_FILES:
                continue  # ssl-cipher, tls versions: not files
            return reason
    for suffix, reason in _SUFFIXES:
        if name.endswith(suffix):
            return reason
    return None
