"""Startup options and system variables a variant may not set, by category, each with its reason.

A server under test must stay in its sandbox: its files in the lab's directories, its code the
binary's own, its grants on, its sockets on 127.0.0.1, no SQL run behind the workload's back, no
report sent home. The rules below work on the canonical dashed name (`innodb-tmpdir`), without
`loose-` and without the boolean prefixes `skip-`/`enable-`/`disable-`; system variables
(`SET GLOBAL slow_query_log_file`) use the same rules on their dashed form, plus a few variables
that only exist as variables.

Exact names come first (a name such as `log-bin` is fine as a flag but not with a path), then
name shapes (`*-dir`, `*-file`, `*-path`, ...), which catch the options of plugins and of server
versions not listed here. A target's admin may allow named exceptions (`allowed_options`).

The names were read off the lab binaries' `--verbose --help` (MySQL 9.7, MariaDB 10.11 and 11.8).
Left allowed on purpose: `log-error-verbosity` and `log-error-suppression-list` (they choose which
messages the lab's own error log keeps; they load nothing and write nowhere else), `core-file` (a
crashing server dumps core in its cwd, the datadir, where the kernel's core_pattern is relative),
plugin switches of engines that stay on this host (`archive`, `blackhole`, `partition`, ...).
"""

from collections.abc import Collection
from dataclasses import dataclass

MANAGED = "managed by the provisioner (paths, ports, users and start-up files are the lab's own)"
PATH = "path- or file-valued: the server would read or write a file outside the lab's directories"
PLUGIN = "plugin or code loading: the server would run code that is not the binary's own"
GRANTS = "grant skipping: the server would let anyone in with every privilege"
NETWORK = "network exposure: the server listens on 127.0.0.1 on the lab's port only and connects nowhere"
INIT_SQL = "init SQL: statements the server would run outside the workload"
LOGS = "log file location: the lab keeps the server's logs in its own directory"
DEBUG = "debugging: trace files and debug hooks write to the host and change the server's behaviour"
FILE_ACCESS = "file access: LOAD DATA LOCAL lets the server read the client's files"
BINLOG_BYPASS = "binary log bypass: statements would leave no trace in the binary log"
SYMLINKS = (
    "symbolic links: DATA DIRECTORY / INDEX DIRECTORY would put table files outside the server's datadir"
)
PHONE_HOME = "phone-home: the server would send reports about itself to a host outside the lab"
PRIVILEGES = "privileges: every account would hold roles or privileges the lab did not grant"


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
        (
            "plugin-load",
            "plugin-load-add",
            "early-plugin-load",
            "plugin-dir",
            "wsrep-provider",
            "wsrep-on",
            # MySQL: log sinks and filters are components, loaded by naming them here; the
            # syseventlog sink writes to the host's syslog. Refused as a variable too, one rule.
            "log-error-services",
            # UDFs whose library exports any one symbol (exit() from libc.so, the help says).
            "allow-suspicious-udfs",
        ),
        PLUGIN,
    ),
    **dict.fromkeys(("skip-grant-tables", "grant-tables"), GRANTS),
    # A role listed here is granted to every account, the workload and load users included.
    **dict.fromkeys(("mandatory-roles", "activate-mandatory-roles"), PRIVILEGES),
    **dict.fromkeys(
        (
            "bind-address",
            "admin-address",
            "port",
            "extra-port",
            "proxy-protocol-networks",
            "ndb-connectstring",
            "ndb-mgmd-host",
            "report-host",
            # MariaDB 11.3+: clients are told to connect to another server.
            "redirect-url",
            # Storage engines whose tables are connections to other servers (FEDERATED's CONNECTION=
            # URL, NDB's management and data nodes); both off unless enabled here.
            "federated",
            "federatedx",
            "ndbcluster",
            "ndbinfo",
        ),
        NETWORK,
    ),
    # MariaDB's feedback plugin (its feedback-* options by the prefix rule below).
    "feedback": PHONE_HOME,
    # The managed option file turns them off (skip-symbolic-links); `have_symlink` is the variable.
    **dict.fromkeys(("symbolic-links", "have-symlink"), SYMLINKS),
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
    **dict.fromkeys(("debug", "debug-dbug", "debug-sync", "wsrep-dbug-option", "debug-gdb", "gdb"), DEBUG),
    "local-infile": FILE_ACCESS,
}
# Options that only exist as system variables, or that matter only as SET targets.
_VARIABLES_EXACT: dict[str, str] = {
    "sql-log-bin": BINLOG_BYPASS,
    "log-bin-basename": LOGS,
}
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("keyring-", PLUGIN),
    ("wsrep-", PLUGIN),
    ("feedback-", PHONE_HOME),
    ("ndb-", NETWORK),
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

    The startup rules (a variable and its startup option are refused alike), plus sql_log_bin,
    log_bin_basename and `log_bin` with any value."""
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
