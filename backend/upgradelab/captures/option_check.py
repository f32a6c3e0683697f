"""The first check of a capture against a new version: which of the team's settings the new binary
refuses, and which it takes with a deprecation warning, in the server's own words.

The team's settings are the captured variables that differ from their version's defaults
(captures/configuration.py), host-dependent ones left out (their difference may be the hardware),
each as an option-file line `name=value`. A line the lab never writes into an option file (a path,
a plugin, init SQL, a value with characters an option file must not hold: targets/options.py) is
listed "not tried" with the reason: a captured value is data and reaches no file unchecked.

The rest go to the new version's binary (a scratch instance's option file, `server_refusal`:
`mysqld --validate-config` / `mariadbd --verbose --help` parse every line): a refusal names its
option in the server's words; that line is listed "refused" with them, left out, and the others are
asked again, until the binary takes what is left. Those are then started on a scratch instance of
the new version, and its error log's warnings naming an option are listed against it ("deprecated").
On that started server, the captured accounts' authentication plugins are looked up
(`plugin_findings`): one it lacks locks its accounts out.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import pymysql

from upgradelab.captures.configuration import Configuration
from upgradelab.captures.my_cnf import lab_sets
from upgradelab.targets.options import OptionError, render_option
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint

Outcome = Literal["refused", "deprecated", "accepted", "not_tried"]
PluginOutcome = Literal["missing", "not_loaded", "available"]
WARNING_LINES = 400  # the error log's last lines read after the start


@dataclass(frozen=True)
class OptionFinding:
    """One of the team's settings on the new version: its variable `name`, the `line` tried (None:
    not tried), the `outcome` and the `words` that decided it (the server's, or the lab's reason)."""

    name: str
    line: str | None
    outcome: Outcome
    words: str


@dataclass(frozen=True)
class AccountFinding:
    """The captured accounts of one authentication `plugin` on the new version: `outcome` "missing"
    (the new server has no such plugin: they cannot log in), "not_loaded" (it can load it: MariaDB's
    INSTALL SONAME, not done by an upgrade) or "available" (active); `accounts` as 'user'@'host'."""

    plugin: str
    accounts: list[str]
    outcome: PluginOutcome
    words: str


@dataclass(frozen=True)
class CheckResult:
    """A check's findings: the team's settings, then its accounts' plugins (missing first)."""

    options: list[OptionFinding]
    accounts: list[AccountFinding]


class ScratchServer(Protocol):
    """What the check needs of the new version's instance (a local, tarball or docker provisioner)."""

    def server_refusal(self, options: list[str]) -> str | None: ...

    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint: ...

    def log_tail(self, lines: int = 25) -> str: ...

    def discard(self) -> None: ...


def team_lines(config: Configuration) -> tuple[list[tuple[str, str]], list[OptionFinding]]:
    """([(name, option line)] of the settings that differ, [not tried, with the reason])."""
    lines: list[tuple[str, str]] = []
    skipped: list[OptionFinding] = []
    for variable in config.variables:
        if variable.comparison != "differs" or variable.host_dependent:
            continue
        # a bare flag of an uploaded option file (captures/my_cnf.py): "" against no default
        value = None if variable.value == "" and variable.default is None else variable.value
        itself = lab_sets(variable.name, value)
        if itself is not None:  # its path, port, socket or log: the lab's own on a server it starts
            skipped.append(OptionFinding(variable.name, None, "not_tried", itself))
            continue
        try:
            lines.append((variable.name, render_option(variable.name, value)))
        except OptionError as refused:
            skipped.append(OptionFinding(variable.name, None, "not_tried", str(refused)))
    return lines, skipped


def _names(words: str, name: str) -> bool:
    """Whether the server's words name option `name` (either spelling, as a whole name)."""
    spellings = {name.lower(), name.lower().replace("_", "-"), name.lower().replace("-", "_")}
    return any(re.search(rf"(?<![a-z0-9_-]){re.escape(s)}(?![a-z0-9_-])", words.lower()) for s in spellings)


def refused(
    ask: Callable[[list[str]], str | None], lines: list[tuple[str, str]]
) -> tuple[list[OptionFinding], list[tuple[str, str]]]:
    """(refused findings, the lines the binary takes): `ask(lines)` is the binary's refusal or None;
    each refusal's option is taken out and the rest asked again. A refusal naming none of the lines
    (the server's words name no option) ends the search: every line left is listed refused together."""
    left = list(lines)
    found: list[OptionFinding] = []
    while left:
        words = ask([line for _, line in left])
        if words is None:
            break
        named = [(name, line) for name, line in left if _names(words, name)]
        if not named:
            found += [OptionFinding(n, line, "refused", f"refused together: {words}") for n, line in left]
            return found, []
        found += [OptionFinding(n, line, "refused", words) for n, line in named]
        left = [one for one in left if one not in named]
    return found, left


def warnings_of(log: str, lines: list[tuple[str, str]]) -> dict[str, str]:
    """{name: the warning lines naming it} of an error log's [Warning] / [Note] deprecation lines."""
    found: dict[str, list[str]] = {}
    for entry in log.splitlines():
        if "[Warning]" not in entry and "deprecat" not in entry.lower():
            continue
        for name, _ in lines:
            if _names(entry, name):
                found.setdefault(name, []).append(entry.strip())
    return {name: "\n".join(entries) for name, entries in found.items()}


def plugin_findings(
    accounts: list[dict[str, str]], active: set[str], loadable: set[str], server: str
) -> list[AccountFinding]:
    """AccountFinding per plugin of the captured `accounts`, against the new server's `active`
    authentication plugins and those it can load (`loadable`); missing first."""
    by_plugin: dict[str, list[str]] = {}
    for account in accounts:
        by_plugin.setdefault(account["plugin"], []).append(f"'{account['user']}'@'{account['host']}'")
    found = []
    for plugin, names in sorted(by_plugin.items()):
        if plugin.lower() in active:
            found.append(AccountFinding(plugin, names, "available", f"{server}: active"))
        elif plugin.lower() in loadable:
            words = (
                f"{server}: not loaded (its library is there: INSTALL SONAME before these accounts log in)"
            )
            found.append(AccountFinding(plugin, names, "not_loaded", words))
        else:
            words = f"{server} has no authentication plugin {plugin!r}: these accounts cannot log in"
            found.append(AccountFinding(plugin, names, "missing", words))
    order = {"missing": 0, "not_loaded": 1, "available": 2}
    return sorted(found, key=lambda f: order[f.outcome])


def auth_plugins(endpoint: Endpoint) -> tuple[set[str], set[str]]:
    """(active, loadable) authentication plugin names (lower case) of the server at `endpoint`:
    information_schema.PLUGINS; MariaDB's ALL_PLUGINS adds those it can load (MySQL has no such table:
    nothing loadable)."""
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
            loadable: set[str] = set()
            try:
                cursor.execute(
                    "SELECT PLUGIN_NAME FROM information_schema.ALL_PLUGINS "
                    "WHERE PLUGIN_TYPE = 'AUTHENTICATION'"
                )
                loadable = {str(name).lower() for (name,) in cursor.fetchall()}
            except pymysql.MySQLError:
                pass  # MySQL: no ALL_PLUGINS
    finally:
        connection.close()
    return active, loadable


def check_options(
    config: Configuration,
    server: ScratchServer,
    accounts: list[dict[str, str]] | None = None,
    server_name: str = "",
    while_started: Callable[[Endpoint], None] | None = None,
) -> CheckResult:
    """The team's settings (team_lines) on the new version's `server` (module docstring), refused
        first, then deprecated, accepted and not tried; the captured `accounts`' plugins against the
        started server's (plugin_findings; `server_name` names the server in their words); `while_started`
    is given the started server's endpoint before it is discarded (captures/schema_check.py). Raises what the
        start raises when the lines the binary took still keep the server from starting (ProvisionError
        with its log's tail)."""
    lines, skipped = team_lines(config)
    refusals, taken = refused(server.server_refusal, lines)
    warned: dict[str, str] = {}
    plugins: list[AccountFinding] = []
    try:
        endpoint = server.start([line for _, line in taken])
        warned = warnings_of(server.log_tail(WARNING_LINES), taken)
        if accounts:
            active, loadable = auth_plugins(endpoint)
            plugins = plugin_findings(accounts, active, loadable, server_name or "the new version")
        if while_started is not None:
            while_started(endpoint)
    finally:
        server.discard()
    kept = [
        OptionFinding(name, line, "deprecated", warned[name])
        if name in warned
        else OptionFinding(name, line, "accepted", "")
        for name, line in taken
    ]
    order = {"refused": 0, "deprecated": 1, "accepted": 2, "not_tried": 3}
    return CheckResult(sorted([*refusals, *kept, *skipped], key=lambda f: order[f.outcome]), plugins)
