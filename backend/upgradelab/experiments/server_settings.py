"""Settings a variant applies on a started server: SET GLOBAL, SET SESSION and instance statements.

Names are checked here (a plain system variable name, in no refused category of
targets/option_categories.py: files, plugins, init SQL, logs, debug, sql_log_bin, local_infile,
secure_*, plugin_*); whether the server has the variable, exactly, is asked in pre-flight (SHOW
VARIABLES; SET takes no prefixes). Values travel as SQL
parameters (integers and decimals as numbers, the rest as strings), or as the keyword DEFAULT; an
instance statement must be one of the allow-listed forms and is executed in its canonical spelling,
never as the text the user typed.
"""

import re
from typing import Any

from upgradelab.targets.option_categories import variable_refusal
from upgradelab.targets.options import shown
from upgradelab.targets.provisioners.base import ServerConnection

_VARIABLE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_VALUE = re.compile(r"^[A-Za-z0-9_.,:+*/=%@ -]{0,256}$")
_INTEGER = re.compile(r"^-?[0-9]{1,19}$")
_DECIMAL = re.compile(r"^-?[0-9]{1,19}\.[0-9]{1,19}$")

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

    Names: letters, digits and _ (dashes become _), at most 64, in no refused category.
    Values: one line of letters, digits, spaces and `_ . , : + * / = % @ -`, at most 256.
    """
    normalized = name.strip().lower().replace("-", "_")
    if not _VARIABLE.match(normalized):
        raise SettingError(f"{scope} {shown(name)}: not a system variable name (letters, digits and _)")
    refusal = variable_refusal(normalized)
    if refusal is not None:
        raise SettingError(f"{scope} {shown(name)} is refused: {refusal.reason}")
    if not isinstance(value, str) or not _VALUE.match(value) or value != value.strip():
        raise SettingError(
            f"{scope} {shown(name)}: value {shown(str(value))} is not allowed: one line of letters, "
            "digits, spaces and _ . , : + * / = % @ -, without leading or trailing spaces"
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
