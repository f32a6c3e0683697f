"""The first check of a capture against a new version: which of the team's settings the new binary
refuses, which it takes and ignores, and which it takes with a warning, in the server's own words.

The team's settings are the captured variables the team set: by their origin where the capture read
it (captures/configuration.py: CONFIG, COMMAND-LINE, SQL, EXPLICIT, PERSISTED, ...), else those that
differ from their version's defaults, host-dependent ones left out (their difference may be the
hardware). A variable that differs only because the server computed it or another setting implies it
(comparison "implied") is listed "implied", never tried. Each setting is an option-file line `name=value`
with the value as the new binary's option takes it (captures/option_help.py `as_taken`: MariaDB's
old_alter_table=1 is shown as COPY, an enum member, and MySQL's old_alter_table is a flag: tried as ON),
the server's display kept beside it (`shown`). A line the lab never writes into an option file (a path,
a plugin, init SQL, a value with characters an option file must not hold: targets/options.py) is listed
"not tried" with the reason: a captured value is data and reaches no file unchecked.

The rest go to the new version's binary (a scratch instance's option file, `server_refusal`:
`mysqld --validate-config` / `mariadbd --verbose --help` parse every line): a refusal names its
option in the server's words; that line is listed "refused" with them, left out, and the others are
asked again, until the binary takes what is left. Those are then started on a scratch instance of
the new version, and its error log's warnings naming an option are listed against it: "no_effect"
when they say it does nothing (MariaDB 11.8's "was removed. It does nothing now"), "adjusted" when the
server changed the value ("Set to OFF", "adjusted to"), else "deprecated". A line the new binary's own
help marks unused or without effect (captures/option_help.py `no_effect`: 11.8's alter_algorithm
"Unused.") is "no_effect" too: taken and ignored, the team's intent behind it lost. A refused line
whose setting implied others says what becomes of them on the new version (`note`). Each finding
carries what to do (`action`). On the started server, the captured accounts' authentication plugins
are looked up (captures/account_check.py).
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from upgradelab.captures.account_check import AccountFinding, auth_plugins, default_plugin, plugin_findings
from upgradelab.captures.configuration import Configuration, Variable
from upgradelab.captures.defaults import BinaryDefaults
from upgradelab.captures.my_cnf import MY_CNF_FLAVOR, lab_sets
from upgradelab.captures.option_help import as_taken, no_effect
from upgradelab.targets.options import OptionError, render_option
from upgradelab.targets.provisioners.base import Endpoint

Outcome = Literal["refused", "no_effect", "adjusted", "deprecated", "accepted", "not_tried", "implied"]
ORDER = {
    "refused": 0,
    "no_effect": 1,
    "adjusted": 2,
    "deprecated": 3,
    "accepted": 4,
    "not_tried": 5,
    "implied": 6,
}
WARNING_LINES = 400  # the error log's last lines read after the start
_DOES_NOTHING = re.compile(r"does nothing|was removed|no effect|\bignored\b", re.IGNORECASE)
_ADJUSTED = re.compile(r"\bset to\b|adjusted to|not recognized|truncated|out of range", re.IGNORECASE)


@dataclass(frozen=True)
class OptionFinding:
    """One of the team's settings on the new version: its variable `name`, the `line` tried (None:
    not tried), the `outcome` and the `words` that decided it (the server's, or the lab's reason);
    `shown` the captured server's display of the value where the line writes it otherwise (the
    team's old_alter_table=ON shown as COPY), `note` what becomes of the settings it implied, and
    `action` what to do ('' where nothing is to be done)."""

    name: str
    line: str | None
    outcome: Outcome
    words: str
    shown: str | None = None
    note: str = ""
    action: str = ""


@dataclass(frozen=True)
class TeamLine:
    """A team setting as an option-file line: `name`, the `line` and `shown` (the captured display of
    its value where the line's value is written otherwise, else None)."""

    name: str
    line: str
    shown: str | None = None


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


def team_sets(variable: Variable) -> bool:
    """Whether `variable` is one of the team's settings: by its origin where read, else it differs from
    a known default and its default is not computed from the host."""
    by_origin = variable.set_by_team()
    if by_origin is not None:
        return by_origin
    return variable.comparison == "differs" and not variable.host_dependent


def _implied_words(variable: Variable) -> str:
    if variable.implied_by:
        return (
            f"implied by the team's {', '.join(variable.implied_by)} (its help names it; origin "
            f"{variable.origin}): not a setting of the team's own, not tried"
        )
    if (variable.origin or "").upper() == "AUTO":
        return "not set by the team: the server computed it at start (origin AUTO), not tried"
    return f"not set by the team: it follows another setting (origin {variable.origin}), not tried"


def team_lines(
    config: Configuration, old: BinaryDefaults | None = None, new: BinaryDefaults | None = None
) -> tuple[list[TeamLine], list[OptionFinding]]:
    """([TeamLine] of the team's settings (module docstring), [not tried or implied, with the reason]);
    `old` / `new`: the old and the new binary's help, for the value as the new option takes it (none:
    the value as captured)."""
    lines: list[TeamLine] = []
    skipped: list[OptionFinding] = []
    for variable in config.variables:
        if not team_sets(variable):
            if variable.comparison == "implied":
                skipped.append(OptionFinding(variable.name, None, "implied", _implied_words(variable)))
            continue
        # a bare flag of an uploaded option file (captures/my_cnf.py): "" against no default
        value = None if variable.value == "" and variable.default is None else variable.value
        itself = lab_sets(variable.name, value)
        if itself is not None:  # its path, port, socket or log: the lab's own on a server it starts
            skipped.append(OptionFinding(variable.name, None, "not_tried", itself))
            continue
        name = variable.name.lower()
        taken = value
        if value is not None and new is not None and config.flavor != MY_CNF_FLAVOR:  # a file: as written
            taken = as_taken(value, (old.options if old else {}).get(name), new.options.get(name))
        try:
            line = render_option(variable.name, taken)
        except OptionError as refused:
            skipped.append(OptionFinding(variable.name, None, "not_tried", str(refused)))
            continue
        lines.append(TeamLine(variable.name, line, variable.value if taken != value else None))
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


def _classified(words: str) -> Outcome:
    """A start warning's outcome: no_effect, adjusted or deprecated (module docstring)."""
    if _DOES_NOTHING.search(words):
        return "no_effect"
    if _ADJUSTED.search(words):
        return "adjusted"
    return "deprecated"


def _kept(line: TeamLine, warned: str | None, new: BinaryDefaults | None, server: str) -> OptionFinding:
    """A line the new server started with: its outcome from its start warning and the new binary's
    help, and what to do."""
    name = line.name
    option = new.options.get(name.lower()) if new is not None else None
    ignored = no_effect(option.description) if option is not None else None
    if ignored is not None:
        words = f"{server}'s help: {ignored!r}" + (f"\n{warned}" if warned else "")
        outcome: Outcome = "no_effect"
    elif warned:
        words, outcome = warned, _classified(warned)
    else:
        return OptionFinding(name, line.line, "accepted", "", line.shown)
    value = line.shown or line.line.partition("=")[2]
    actions = {
        "no_effect": f"remove `{name}` from [mysqld]: your {name}={value} has no effect on {server}",
        "adjusted": f"set `{name}` to a value {server} takes: it changed yours ({value}) at start",
        "deprecated": f"keep `{name}` for now; {server} warns it is deprecated: plan its replacement",
    }
    return OptionFinding(name, line.line, outcome, words, line.shown, action=actions[outcome])


def _implied_note(name: str, config: Configuration, new: BinaryDefaults | None, server: str) -> str:
    """What becomes, on the new version, of the variables the team's setting `name` implied."""
    notes = []
    for variable in config.variables:
        if name.lower() not in [by.lower() for by in variable.implied_by]:
            continue
        implied = f"{variable.name}={variable.value}"
        help_of = new.options.get(variable.name.lower()) if new else None
        ignored = no_effect(help_of.description) if help_of else None
        if ignored is not None:
            notes.append(f"it set {implied}, which {server}'s help calls {ignored!r}: that behaviour is gone")
        elif help_of is not None:
            notes.append(f"it set {implied}: set {implied} instead")
        elif new is not None:
            notes.append(f"it set {implied}, which {server} does not have either")
    return "; ".join(notes)


def _refused(
    finding: OptionFinding, config: Configuration, new: BinaryDefaults | None, server: str
) -> OptionFinding:
    note = _implied_note(finding.name, config, new, server)
    action = f"remove `{finding.line or finding.name}` from [mysqld]: {server} does not start with it"
    option = new.options.get(finding.name.lower()) if new is not None else None
    ignored = no_effect(option.description) if option is not None else None
    if ignored is not None:  # a value it no longer takes, of an option it ignores anyway
        action += f" (and its help calls it {ignored!r})"
    return replace(finding, note=note, action=action + (f"; {note}" if note else ""))


def check_options(
    config: Configuration,
    server: ScratchServer,
    accounts: Sequence[Mapping[str, object]] | None = None,
    server_name: str = "",
    while_started: Callable[[Endpoint], None] | None = None,
    helps: tuple[BinaryDefaults | None, BinaryDefaults | None] = (None, None),
) -> CheckResult:
    """The team's settings (team_lines, `helps`: the old and the new binary's) on the new version's
    `server` (module docstring), refused first, then without effect, adjusted, deprecated, accepted,
    not tried and implied; the captured `accounts`' plugins against the started server's
    (captures/account_check.py; `server_name` names the server in their words); `while_started` is given
    the started server's endpoint before it is discarded (captures/schema_check.py). Raises what the
    start raises when the lines the binary took still keep the server from starting (ProvisionError
    with its log's tail)."""
    old, new = helps
    server_name = server_name or "the new version"
    lines, skipped = team_lines(config, old, new)
    by_name = {line.name: line for line in lines}
    refusals, taken = refused(server.server_refusal, [(line.name, line.line) for line in lines])
    warned: dict[str, str] = {}
    plugins: list[AccountFinding] = []
    try:
        endpoint = server.start([line for _, line in taken])
        warned = warnings_of(server.log_tail(WARNING_LINES), taken)
        if accounts:
            found = auth_plugins(endpoint)
            captured = {v.name.lower(): v.value for v in config.variables}
            old_default = default_plugin(config.flavor, config.version, captured)
            plugins = plugin_findings(
                accounts, found.active, found.loadable, server_name, old_default, found.default
            )
        if while_started is not None:
            while_started(endpoint)
    finally:
        server.discard()
    kept = [_kept(by_name[name], warned.get(name), new, server_name) for name, _ in taken]
    refusals = [_refused(replace(f, shown=by_name[f.name].shown), config, new, server_name) for f in refusals]
    return CheckResult(sorted([*refusals, *kept, *skipped], key=lambda f: ORDER[f.outcome]), plugins)
