"""The captured accounts on the new version: which of them can still log in, by the authentication
plugin each uses, looked up on the check's started scratch instance of the new version.

Only a login can be locked out: a role (MariaDB's is_role, PUBLIC among them) or a locked account
(account_locked: MySQL's roles, MariaDB's mariadb.sys) is nobody's login and is listed "no_login".
An anonymous account (user '') is a hygiene note of its own ("anonymous": it matches any user name
from its host and can shadow a named account), never a lock-out. An empty plugin is the old server's
default plugin (`default_plugin`: MariaDB's is mysql_native_password; MySQL's its
authentication_policy's first element, else default_authentication_plugin, else its version's), so
such an account is grouped under that plugin and is a finding only when the new version lacks it.
Each finding carries what to do (`action`), in the new flavor's ALTER USER syntax.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pymysql

from upgradelab.captures.host_defaults import flavor_of
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint

PluginOutcome = Literal["missing", "not_loaded", "available", "anonymous", "no_login"]
MARIADB_DEFAULT = "mysql_native_password"
_SHOWN_ACCOUNTS = 3  # accounts named in an action; the rest counted


@dataclass(frozen=True)
class AccountFinding:
    """The captured accounts of one authentication `plugin` on the new version: `outcome` "missing"
    (the new server has no such plugin: they cannot log in), "not_loaded" (it can load it: MariaDB's
    INSTALL SONAME, not done by an upgrade), "available" (active), "anonymous" (accounts without a
    user name: a hygiene note) or "no_login" (roles and locked accounts); `accounts` as 'user'@'host';
    `action` what to do ('' for available and no_login)."""

    plugin: str
    accounts: list[str]
    outcome: PluginOutcome
    words: str
    action: str = ""


def default_plugin(flavor: str, version: str, variables: Mapping[str, str]) -> tuple[str, str]:
    """(plugin, how it was resolved) that a server of `flavor` `version` with SHOW GLOBAL VARIABLES
    `variables` (lower-case names) gives an account created without one: MariaDB's
    mysql_native_password; MySQL's authentication_policy first element (8.0.27+; `*` or empty: the
    built-in default), else default_authentication_plugin (up to 8.x), else caching_sha2_password
    from 8.0 and mysql_native_password before (MySQL reference manual, "Pluggable Authentication")."""
    if flavor == "mariadb" or flavor_of(version) == "mariadb":
        return MARIADB_DEFAULT, "MariaDB's default authentication plugin"
    policy = variables.get("authentication_policy", "").split(",")[0].strip()
    if policy and policy != "*":
        return policy, f"authentication_policy={variables['authentication_policy']}"
    legacy = variables.get("default_authentication_plugin", "").strip()
    if legacy:
        return legacy, f"default_authentication_plugin={legacy}"
    major = version.split(".", 1)[0]
    if major.isdigit() and int(major) >= 8:
        return "caching_sha2_password", f"MySQL {version}'s built-in default"
    return "mysql_native_password", f"MySQL {version}'s built-in default"


def _names(accounts: list[str]) -> str:
    shown = ", ".join(accounts[:_SHOWN_ACCOUNTS])
    more = len(accounts) - _SHOWN_ACCOUNTS
    return shown + (f" and {more} more" if more > 0 else "")


def _move_action(accounts: list[str], plugin: str, server: str, replacement: str | None) -> str:
    target = replacement or "a plugin it has"
    if flavor_of(server) == "mariadb":
        how = f"IDENTIFIED VIA {target} USING PASSWORD('<new password>')"
    else:
        how = f"IDENTIFIED WITH {target} BY '<new password>'"
    return f"before the move: ALTER USER {_names(accounts)} {how} ({server} has no {plugin})"


def plugin_findings(
    accounts: Sequence[Mapping[str, object]],
    active: set[str],
    loadable: Mapping[str, str],
    server: str,
    old_default: tuple[str, str] = (MARIADB_DEFAULT, "MariaDB's default authentication plugin"),
    replacement: str | None = None,
) -> list[AccountFinding]:
    """AccountFinding per plugin of the captured login `accounts` ({"user", "host", "plugin", "role",
    "locked"}), against the new server's `active` authentication plugins and those it can load
    (`loadable`: {plugin: its library}); an empty plugin is `old_default` (default_plugin); anonymous
    accounts, roles and locked accounts apart (module docstring); `replacement`: the new server's
    default plugin, named in the action for accounts it locks out. Missing first, then not loaded,
    anonymous, available, no login."""
    by_plugin: dict[str, list[str]] = {}
    empty: dict[str, int] = {}
    anonymous: list[str] = []
    no_login: list[str] = []
    for account in accounts:
        name = f"'{account['user']}'@'{account['host']}'"
        if account.get("role") or account.get("locked"):
            no_login.append(name)
            continue
        if account["user"] == "":
            anonymous.append(name)
            continue
        plugin = str(account["plugin"]) or old_default[0]
        if not account["plugin"]:
            empty[plugin] = empty.get(plugin, 0) + 1
        by_plugin.setdefault(plugin, []).append(name)
    found = []
    for plugin, names in sorted(by_plugin.items()):
        resolved = (
            f" ({empty[plugin]} with an empty plugin: the old server's default, {old_default[1]})"
            if plugin in empty
            else ""
        )
        if plugin.lower() in active:
            found.append(AccountFinding(plugin, names, "available", f"{server}: active{resolved}"))
        elif plugin.lower() in loadable:
            library = loadable[plugin.lower()].rsplit(".", 1)[0] or f"auth_{plugin.lower()}"
            words = (
                f"{server}: not loaded (its library is there: INSTALL SONAME before these accounts log in)"
                + resolved
            )
            action = (
                f"INSTALL SONAME '{library}' on {server} before these accounts log in (an in-place upgrade "
                "keeps it loaded when the old server's mysql.plugin lists it)"
            )
            found.append(AccountFinding(plugin, names, "not_loaded", words, action))
        else:
            words = f"{server} has no authentication plugin {plugin!r}: these accounts cannot log in"
            words += resolved
            action = _move_action(names, plugin, server, replacement)
            found.append(AccountFinding(plugin, names, "missing", words, action))
    if anonymous:
        words = (
            "anonymous accounts exist: each matches any user name from its host and can take the place of a "
            "named account (a hygiene note, whatever the version)"
        )
        action = f"DROP USER {_names(anonymous)} unless a client logs in without a user name"
        found.append(AccountFinding("", anonymous, "anonymous", words, action))
    if no_login:
        words = "roles and locked accounts: nobody logs in as them, so no plugin can lock them out"
        found.append(AccountFinding("", no_login, "no_login", words))
    order = {"missing": 0, "not_loaded": 1, "anonymous": 2, "available": 3, "no_login": 4}
    return sorted(found, key=lambda f: order[f.outcome])


@dataclass(frozen=True)
class ServerPlugins:
    """A server's authentication plugins (lower-case names): `active`, `loadable` ({name: its
    library}, MariaDB's ALL_PLUGINS; empty on MySQL) and `default` (default_plugin's, for a new
    account)."""

    active: set[str]
    loadable: dict[str, str]
    default: str


def auth_plugins(endpoint: Endpoint) -> ServerPlugins:
    """The ServerPlugins of the server at `endpoint`: information_schema.PLUGINS, MariaDB's ALL_PLUGINS
    (MySQL has no such table: nothing loadable), its version and authentication variables."""
    connection = endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS "
                "WHERE PLUGIN_TYPE = 'AUTHENTICATION'"
            )
            active = {
                str(name).lower() for name, state in cursor.fetchall() if str(state).upper() == "ACTIVE"
            }
            cursor.execute(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN "
                "('version', 'authentication_policy', 'default_authentication_plugin')"
            )
            variables = {str(name).lower(): str(value or "") for name, value in cursor.fetchall()}
            loadable: dict[str, str] = {}
            try:
                cursor.execute(
                    "SELECT PLUGIN_NAME, PLUGIN_LIBRARY FROM information_schema.ALL_PLUGINS "
                    "WHERE PLUGIN_TYPE = 'AUTHENTICATION'"
                )
                loadable = {str(name).lower(): str(library or "") for name, library in cursor.fetchall()}
            except pymysql.MySQLError:
                pass  # MySQL: no ALL_PLUGINS
    finally:
        connection.close()
    version = variables.get("version", "")
    return ServerPlugins(active, loadable, default_plugin(flavor_of(version), version, variables)[0])
