"""An uploaded option file (a team's my.cnf) as a capture's configuration, so a check (and a team
variant) takes it as it takes a captured server's settings (issue 35, Deliver 2: "a capture or an
uploaded my.cnf x a target version").

Read as the server reads it (mysys my_load_defaults): `[group]` headers; only the groups a server
reads count (SERVER_GROUPS, and their version-suffixed forms such as `[mysqld-8.4]`,
`[mariadb-11.8]`: the server reads those of its own version only, all are taken here and listed);
`#` and `;` start a comment line, ` #` after a value starts a comment; a value in matching quotes is
the text between them; a later line of one option replaces an earlier one.

The file is data and stays so: it is refused whole (MyCnfError, every offending line named by its
number) for `!include` / `!includedir` (a path on the lab's host), an option outside any group, a
control character (a tab aside) or a backslash (the server turns `\\n` into a newline), and any line
the lab would not write into an option file (targets/options.py validate_option: a name that is not
an option name, a value that is not one plain line, an option of a refused category such as
`init-file`, `plugin-load`, `skip-grant-tables`). Lines of other groups ([client], [mysqldump]) are
skipped unread but for the include and control-character rules.

A team's real file always names its server's own paths, sockets, ports and logs (`datadir`,
`socket`, `log-error`, `pid-file`, `port`, `bind-address`, ...): the lab sets those itself for every
server it starts (targets/option_categories.py MANAGED, LOGS, NETWORK, PATH, SYMLINKS), so such a
line is kept and listed "not tried" with the reason (`lab_sets`, as a live capture's check lists its
port), never written; its value must still pass the value syntax (one plain line), as any line's.

Each option becomes a Variable "differs" from an unknown default (default None: the lab does not
know what the file's own server had), so captures/option_check.py team_lines tries every one it may
(a bare flag is value "", rendered bare) and lists the others "not tried".
"""

import re
from dataclasses import dataclass

from upgradelab.captures.configuration import Configuration, HostFacts, Variable
from upgradelab.targets import option_categories as categories
from upgradelab.targets.options import OptionError, normalize_name, validate_option

SERVER_GROUPS = ("mysqld", "server", "mariadb", "mariadbd", "client-server")
_VERSIONED = re.compile(r"^(mysqld|mariadb|mariadbd)-\d+(\.\d+)*$")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
MAX_LINES = 5000
MAX_ERRORS = 20
# the categories of options the lab sets itself on every server it starts: a team's line of one is
# its own server's, listed not tried (the other categories load code, skip grants, run SQL: refused)
_LAB_SETS = {categories.MANAGED, categories.LOGS, categories.NETWORK, categories.PATH, categories.SYMLINKS}


class MyCnfError(ValueError):
    """The file is refused; `lines` holds each offending line's message ("line N: ..."), in order."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class MyCnfOption:
    """One option of a server group: its `line` number (1-based), `group`, dashed `name` and
    `value` (None: a bare flag)."""

    line: int
    group: str
    name: str
    value: str | None


def lab_sets(name: str, value: str | None) -> str | None:
    """Why option `name` (either spelling, loose-/skip- prefixes allowed) with `value` is not tried:
    "the lab sets <name> itself (<category's reason>)" for the categories the lab sets on every
    server it starts (_LAB_SETS), None for any other option (allowed, or refused as hostile)."""
    bare = normalize_name(name).removeprefix("loose-")
    for prefix in ("skip-", "enable-", "disable-"):
        bare = bare.removeprefix(prefix)
    refusal = categories.option_refusal(bare, value)
    if refusal is None or refusal.reason not in _LAB_SETS:
        return None
    return f"the lab sets {bare} itself ({refusal.reason})"


def _value(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    return re.split(r"\s#", raw, maxsplit=1)[0].rstrip()


def parse(text: str) -> list[MyCnfOption]:
    """The server groups' options of option-file `text` (module docstring), the last of each name;
    MyCnfError naming every refused line (at most MAX_ERRORS)."""
    errors: list[str] = []
    found: dict[str, MyCnfOption] = {}
    group: str | None = None
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise MyCnfError([f"{len(lines)} lines: at most {MAX_LINES}"])
    for number, raw in enumerate(lines, start=1):
        line = raw.removesuffix("\r")
        if _CONTROL.search(line):
            errors.append(f"line {number}: a control character (a file's line is one line of text)")
            continue
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("!"):
            errors.append(
                f"line {number}: {stripped.split()[0]!r} is refused: the lab reads the one file it is "
                "given, never another path on its host"
            )
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                errors.append(f"line {number}: a group header without its closing ]")
                continue
            group = stripped[1:-1].strip().lower()
            continue
        if group is None:
            errors.append(f"line {number}: an option outside any [group] (the server refuses it too)")
            continue
        if group not in SERVER_GROUPS and not _VERSIONED.match(group):
            continue
        name, equals, raw_value = stripped.partition("=")
        value = _value(raw_value) if equals else None
        if "\\" in line:
            errors.append(f"line {number}: a backslash (the server reads escapes such as \\n in a value)")
            continue
        try:
            dashed, value = validate_option(name.strip(), value, categories=False)
            if lab_sets(dashed, value) is None:
                validate_option(dashed, value)  # the refused categories: hostile, the file refused
        except OptionError as refused:
            errors.append(f"line {number}: {refused}")
            continue
        found[dashed] = MyCnfOption(number, group, dashed, value)
    if errors:
        raise MyCnfError(errors[:MAX_ERRORS])
    return sorted(found.values(), key=lambda option: option.line)


# the flavor of an uploaded option file's capture: its values are the team's own words, tried as written
MY_CNF_FLAVOR = "my.cnf"


def configuration(options: list[MyCnfOption], filename: str) -> Configuration:
    """The Configuration a check reads: each option a Variable (underscored name) that differs from an
    unknown default; flavor and version unknown ("my.cnf", the file's name as the comment)."""
    variables = [
        Variable(
            name=normalize_name(option.name).replace("-", "_"),
            value="" if option.value is None else option.value,
            default=None,
            comparison="differs",
        )
        for option in options
    ]
    host = HostFacts(hostname=None, os=None, machine=None, buffer_pool_mib=None, cpus=None,
                     cpus_from="not known: an option file, not a server")  # fmt: skip
    return Configuration(
        version="",
        version_comment=f"option file {filename}",
        flavor=MY_CNF_FLAVOR,
        defaults_from=None,
        variables=variables,
        host=host,
        differs=len(variables),
    )
