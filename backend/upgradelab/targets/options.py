"""Server option validation: what a variant may write into an option file or onto a command line.

Option names and values reach `[mysqld]` option files, so they are checked here before anything is
written: a name is a plain identifier, a value is one printable line, and the options the provisioner
owns (paths, ports, users, init files) cannot be overridden.
"""

import re
from typing import Annotated

from pydantic import AfterValidator

_NAME = re.compile(r"^(loose[-_])?[a-z][a-z0-9]*([-_][a-z0-9]+)*$")
_VALUE = re.compile(r"^[A-Za-z0-9_.,:+*/=%@ -]{0,256}$")

# Owned by the provisioner: overriding them would move the server out of its sandbox.
MANAGED_OPTIONS = frozenset(
    {
        "basedir",
        "bind-address",
        "datadir",
        "defaults-extra-file",
        "defaults-file",
        "init-file",
        "log-error",
        "pid-file",
        "plugin-dir",
        "port",
        "secure-file-priv",
        "socket",
        "tmpdir",
        "user",
        "mysqlx",
        "mysqlx-port",
        "mysqlx-socket",
        "general-log-file",
        "slow-query-log-file",
        "innodb-data-home-dir",
        "innodb-log-group-home-dir",
        "innodb-undo-directory",
        "log-bin-index",
        "relay-log",
    }
)


class OptionError(ValueError):
    """An option name or value that may not be written; the message names the option."""


def normalize_name(name: str) -> str:
    """`innodb_log_writer_threads` and `innodb-log-writer-threads` are one option: return the dashed form."""
    return name.strip().lower().replace("_", "-")


def validate_option(name: str, value: str | None) -> tuple[str, str | None]:
    """Return (dashed name, value) or raise OptionError naming the option and what is wrong.

    value None is a bare flag (`skip-log-bin`). Values are one line of letters, digits and
    `_ . , : + * / = % @ -` and spaces, at most 256 characters: no newline, quote, `#`, `[` or `\\`.
    """
    if not _NAME.match(name.strip().lower()) or "\n" in name:
        raise OptionError(f"option name {name!r} is not a server option name (letters, digits, - and _)")
    dashed = normalize_name(name)
    bare = dashed.removeprefix("loose-")
    for prefix in ("skip-", "enable-", "disable-"):
        bare = bare.removeprefix(prefix)
    if bare in MANAGED_OPTIONS or dashed in MANAGED_OPTIONS:
        raise OptionError(f"option {name!r} is managed by the provisioner and cannot be set by a variant")
    if value is not None and (not _VALUE.match(value) or value != value.strip() or value.startswith("-")):
        raise OptionError(
            f"value {value!r} of option {name!r} is not allowed: one line of letters, digits, "
            "spaces and _ . , : + * / = % @ -, not starting with - or a space"
        )
    return dashed, value


def render_option(name: str, value: str | None) -> str:
    """One option-file line (`name=value` or a bare `name`), after validate_option."""
    dashed, checked = validate_option(name, value)
    return dashed if checked is None else f"{dashed}={checked}"


def _checked_options(options: dict[str, str | None]) -> dict[str, str | None]:
    for name, value in options.items():
        render_option(name, value)
    return options


_CREDENTIAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _plain_credential(value: str) -> str:
    if not value or not set(value) <= _CREDENTIAL_CHARS:
        raise ValueError("letters, digits, _ - . only")
    return value


# A target's base options {name: value}, each checked as render_option does (pydantic field type).
ServerOptions = Annotated[dict[str, str | None], AfterValidator(_checked_options)]
# A lab user name or password: it goes into SQL string literals, init files and container env.
PlainCredential = Annotated[str, AfterValidator(_plain_credential)]
