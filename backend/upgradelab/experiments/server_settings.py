"""Settings a variant applies on a started server: SET GLOBAL, SET SESSION and instance statements.

Names are checked here (a plain system variable name, not one that moves files); values travel as SQL
parameters (integers and decimals as numbers, the rest as strings), or as the keyword DEFAULT; an
instance statement must be one of the allow-listed forms and is executed in its canonical spelling,
never as the text the user typed.
"""

import re
from typing import Any

from upgradelab.targets.provisioners.base import ServerConnection

_VARIABLE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_VALUE = re.compile(r"^[A-Za-z0-9_.,:+*/=%@ -]{0,256}$")
_INTEGER = re.compile(r"^-?[0-9]{1,19}$")
_DECIMAL = re.compile(r"^-?[0-9]{1,19}\.[0-9]{1,19}$")

# Variables that name files or run SQL on other connections: a variant may not point them anywhere.
REFUSED_VARIABLES = frozenset(
    {
        "general_log_file",
        "slow_query_log_file",
        "log_error",
        "init_connect",
        "init_file",
        "init_replica",
        "init_slave",
        "secure_file_priv",
        "plugin_dir",
        "datadir",
        "tmpdir",
        "basedir",
        "socket",
        "port",
        "pid_file",
        "innodb_data_home_dir",
        "innodb_log_group_home_dir",
        "innodb_undo_directory",
        "innodb_tmpdir",
        "innodb_buffer_pool_filename",
        "keyring_file_data",
        "relay_log",
        "log_bin_basename",
    }
)

# Allowed instance statements: canonical form, as executed.
INSTANCE_STATEMENTS = (
    "ALTER INSTANCE DISABLE INNODB REDO_LOG",
    "ALTER INSTANCE ENABLE INNODB REDO_LOG",
    "ALTER INSTANCE ROTATE INNODB MASTER KEY",
    "ALTER INSTANCE ROTATE BINLOG MASTER KEY",
    "ALTER INSTANCE RELOAD TLS",
)


class SettingError(ValueError):
    """A variable name, value or instance statement a variant may not use; the message names it."""


def validate_variable(scope: str, name: str, value: str) -> tuple[str, str]:
    """(normalized name, value) for `SET <scope> name = value`, or SettingError naming the setting.

    Names: letters, digits and _ (dashes become _), at most 64, not a file/path variable.
    Values: one line of letters, digits, spaces and `_ . , : + * / = % @ -`, at most 256.
    """
    normalized = name.strip().lower().replace("-", "_")
    if not _VARIABLE.match(normalized):
        raise SettingError(f"{scope} {name!r}: not a system variable name (letters, digits and _)")
    if normalized in REFUSED_VARIABLES:
        raise SettingError(f"{scope} {name!r}: this variable names files or runs SQL and cannot be set")
    if not isinstance(value, str) or not _VALUE.match(value) or value != value.strip():
        raise SettingError(
            f"{scope} {name!r}: value {value!r} is not allowed: one line of letters, digits, spaces and "
            "_ . , : + * / = % @ -, without leading or trailing spaces"
        )
    return normalized, value


def canonical_instance_statement(statement: str) -> str:
    """The allow-listed spelling of an instance statement (case and spacing free), or SettingError."""
    words = " ".join(statement.replace(";", " ").split()).upper()
    if words not in INSTANCE_STATEMENTS:
        raise SettingError(
            f"instance statement {statement!r} is not allowed; allowed: {'; '.join(INSTANCE_STATEMENTS)}"
        )
    return words


def sql_value(value: str) -> tuple[str, tuple[Any, ...]]:
    """(placeholder SQL, parameters) for a value: DEFAULT/ON/OFF keywords, numbers, or a string parameter."""
    if value.upper() == "DEFAULT":
        return "DEFAULT", ()
    if _INTEGER.match(value):
        return "%s", (int(value),)
    if _DECIMAL.match(value):
        return "%s", (float(value),)
    return "%s", (value,)


def set_variable(connection: ServerConnection, scope: str, name: str, value: str) -> list[str]:
    """Execute `SET <scope> name = value` (name validated, value a parameter); the server's warnings.

    scope: "GLOBAL" or "SESSION". Raises SettingError for a refused name/value and pymysql errors
    for the server's refusal.
    """
    if scope not in ("GLOBAL", "SESSION"):
        raise SettingError(f"scope {scope!r}: GLOBAL or SESSION")
    checked, _ = validate_variable(f"SET {scope}", name, value)
    placeholder, params = sql_value(value)
    with connection.cursor() as cursor:
        cursor.execute(f"SET {scope} {checked} = {placeholder}", params or None)
        cursor.execute("SHOW WARNINGS")
        return [str(row[2]) for row in cursor.fetchall()]


def variable_exists(connection: ServerConnection, scope: str, name: str) -> bool:
    """Whether SHOW <scope> VARIABLES knows `name` (exact, after normalization)."""
    checked = name.strip().lower().replace("-", "_")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SHOW {'GLOBAL' if scope == 'GLOBAL' else 'SESSION'} VARIABLES WHERE Variable_name = %s",
            (checked,),
        )
        return cursor.fetchone() is not None
