"""What a server binary's own `--no-defaults --verbose --help` says of each option, above its table of
defaults: the kind of value it takes and its description (captures/defaults.py reads the table).

    --name                a flag (a boolean: ON/OFF, TRUE/FALSE, 1/0)
    --name=# / [=#]       a number
    --name=name / [=name] text; an enum when its description says "One of: A, B, C", a set when it
                          says "Any combination of: A, B, C" (the members in the help's order)

Each option is a line indented two spaces starting with `-`, its description on the same line after
the flags or on the lines below (indented 22 spaces, joined here with single spaces), up to the next
option or the table. Measured on the lab's MariaDB 10.11.19, 11.8.9 and MySQL 9.7.4 binaries.

`no_effect` finds the words by which a binary says an option does nothing (MariaDB 11.8: "Unused.",
"Deprecated parameter with no effect."): the setting is taken and ignored, so a team's intent behind it
is lost on that version. A conditional "has no effect if/unless ..." is not such a mark.
"""

import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["flag", "number", "text", "enum", "set"]
_OPTION = re.compile(r"^  (?:-\S, )?--([A-Za-z0-9_-]+)(\[?=[^\s\]]*\]?)?(?:\s+(.*))?$")
_TABLE_START = re.compile(r"^-{20,} -+$")
_MEMBERS = re.compile(r"(One of|Any combination of):\s*(\w+(?:\s*,\s*(?!or\b)\w+)*)")
# the sentences by which a help says an option does nothing (checked on the joined description)
_NO_EFFECT = (
    re.compile(r"^Unused\b[^.(]*\.?"),
    re.compile(r"[^.(]*\bwith no effect\b[^.(]*\.?", re.IGNORECASE),
    re.compile(r"[^.(]*\b(?:has|have) no effect\s*(?:\.|$)", re.IGNORECASE),
    re.compile(r"[^.(]*\bdoes nothing\b[^.(]*\.?", re.IGNORECASE),
    re.compile(r"[^.(]*\bno longer used\b[^.(]*\.?", re.IGNORECASE),
    re.compile(r"^(?:Deprecated and )?ignored\b[^.(]*\.?", re.IGNORECASE),
)
BOOLEAN_WORDS = {"ON": True, "TRUE": True, "1": True, "OFF": False, "FALSE": False, "0": False}


@dataclass(frozen=True)
class OptionHelp:
    """One option of a binary's help: its `kind` (module docstring), `members` of an enum or set in
    the help's order (else empty) and its `description` (one line)."""

    kind: Kind
    description: str
    members: tuple[str, ...] = field(default_factory=tuple)


def parse_options(text: str) -> dict[str, OptionHelp]:
    """{underscored lower-case name: OptionHelp} of every option the help lists above its table."""
    found: dict[str, tuple[str, list[str]]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if _TABLE_START.match(line):
            break
        option = _OPTION.match(line)
        if option:
            name = option[1].replace("-", "_").lower()
            current = [option[3].strip()] if option[3] else []
            found[name] = (option[2] or "", current)
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line.strip())
        elif current is not None and not line.strip():
            current = None
    return {name: _option(syntax, " ".join(words)) for name, (syntax, words) in found.items()}


def _option(syntax: str, description: str) -> OptionHelp:
    if not syntax:
        return OptionHelp("flag", description)
    if "#" in syntax:
        return OptionHelp("number", description)
    listed = _MEMBERS.search(description)
    if listed:
        members = tuple(member.strip() for member in listed[2].split(","))
        return OptionHelp("enum" if listed[1] == "One of" else "set", description, members)
    return OptionHelp("text", description)


def no_effect(description: str) -> str | None:
    """The sentence of `description` saying the option does nothing (module docstring), else None."""
    for mark in _NO_EFFECT:
        found = mark.search(description)
        if found:
            return found[0].strip()
    return None


def as_taken(value: str, old: OptionHelp | None, new: OptionHelp | None) -> str:
    """`value` as the option of `new` takes it, from how the option of `old` displays it (SHOW
    GLOBAL VARIABLES): an enum member shown where the new option is a flag becomes its position
    (0 OFF, 1 ON: MariaDB's enums take their position as a number, which is how old_alter_table's
    legacy 0/1 became DEFAULT/COPY); a flag's boolean shown where the new option is an enum without
    such a member becomes that position (1, 0). Anything else, or an option either help does not
    describe, stays as shown (a flag takes ON, TRUE and 1 alike)."""
    if new is None or old is None:
        return value
    upper = value.strip().upper()
    if new.kind == "flag" and old.kind == "enum":
        positions = [member.upper() for member in old.members]
        if upper in positions[:2]:
            return "ON" if positions.index(upper) == 1 else "OFF"
    members = {member.upper() for member in new.members}
    if new.kind == "enum" and old.kind == "flag" and upper in BOOLEAN_WORDS and upper not in members:
        return "1" if BOOLEAN_WORDS[upper] else "0"
    return value
