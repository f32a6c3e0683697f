"""Server option validation: what a variant may write into an option file or onto a command line.

Option names and values reach `[mysqld]` option files, so they are checked here before anything is
written: a name is a plain identifier, a value is one printable line, and no name of a refused
category (targets/option_categories.py: the provisioner's own paths and ports, files, plugins, grant
skipping, network, init SQL, logs) is taken unless the target's admin listed it. That the name is one
the target's binary knows, spelt in full, is checked against the binary's own list
(targets/option_names.py) at experiment creation and in pre-flight.
"""

import re
from collections.abc import Collection
from typing import Annotated

from pydantic import AfterValidator

from upgradelab.targets.option_categories import option_refusal

_NAME = re.compile(r"^(loose[-_])?[a-z][a-z0-9]*([-_][a-z0-9]+)*$")
_VALUE = re.compile(r"^[A-Za-z0-9_.,:+*/=%@ -]{0,256}$")


class OptionError(ValueError):
    """An option name or value that may not be written; the message names the option."""


def normalize_name(name: str) -> str:
    """`innodb_log_writer_threads` and `innodb-log-writer-threads` are one option: return the dashed form."""
    return name.strip().lower().replace("_", "-")


def validate_option(
    name: str, value: str | None, allowed: Collection[str] = (), *, categories: bool = True
) -> tuple[str, str | None]:
    """Return (dashed name, value) or raise OptionError naming the option and what is wrong.

    value None is a bare flag (`skip-log-bin`). Names: letters, digits, - and _, at most 100.
    Values are one line of letters, digits and `_ . , : + * / = % @ -` and spaces, at most 256
    characters: no newline, quote, `#`, `[` or `\\`. Names in a refused category
    (targets/option_categories.py) are refused with the category's reason unless `allowed` (the
    target's admin-listed exceptions, dashed) holds them; categories=False checks the syntax only
    (the caller checks categories where it knows the target). Long input is cut in the message.
    """
    if len(name) > 100 or not _NAME.match(name.strip().lower()) or "\n" in name:
        raise OptionError(f"option name {shown(name)} is not a server option name (letters, digits, - and _)")
    dashed = normalize_name(name)
    bare = dashed.removeprefix("loose-")
    for prefix in ("skip-", "enable-", "disable-"):
        bare = bare.removeprefix(prefix)
    refusal = option_refusal(bare, value, {normalize_name(one) for one in allowed}) if categories else None
    if refusal is not None:
        raise OptionError(f"option {shown(name)} is refused: {refusal.reason}")
    if value is not None and (not _VALUE.match(value) or value != value.strip() or value.startswith("-")):
        raise OptionError(
            f"value {shown(value)} of option {shown(name)} is not allowed: one line of letters, digits, "
            "spaces and _ . , : + * / = % @ -, not starting with - or a space"
        )
    return dashed, value


def shown(text: str, limit: int = 80) -> str:
    """`text` as an error message shows it: repr, cut at `limit` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def render_option(name: str, value: str | None, allowed: Collection[str] = ()) -> str:
    """One option-file line (`name=value` or a bare `name`), after validate_option."""
    dashed, checked = validate_option(name, value, allowed)
    return dashed if checked is None else f"{dashed}={checked}"


def _checked_options(options: dict[str, str | None]) -> dict[str, str | None]:
    # Categories are checked where the target's admin-listed exceptions are known (targets/service.py
    # at creation, the provisioners when they write the line).
    for name, value in options.items():
        validate_option(name, value, categories=False)
    return options


_CREDENTIAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _plain_credential(value: str) -> str:
    if not value or not set(value) <= _CREDENTIAL_CHARS:
        raise ValueError("letters, digits, _ - . only")
    return value


# A target's base options {name: value}, each checked as validate_option does, but for categories.
ServerOptions = Annotated[dict[str, str | None], AfterValidator(_checked_options)]
# A lab user name or password: it goes into SQL string literals, init files and container env.
PlainCredential = Annotated[str, AfterValidator(_plain_credential)]
