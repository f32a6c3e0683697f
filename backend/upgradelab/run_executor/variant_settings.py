"""A variant's SET GLOBAL, SET SESSION and instance statements: checked on a scratch server, then applied.

Source of truth is the server itself: a variable must be listed by SHOW GLOBAL/SESSION VARIABLES, and
its SET must succeed without warnings (a value the server truncates or adjusts is refused).
"""

import pymysql

from upgradelab.experiments.server_settings import set_variable, variable_exists
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.targets.provisioners.base import ServerConnection


def has_settings(variant: ResolvedVariant) -> bool:
    """Whether the variant has anything to apply after start (beyond the redo-log preset)."""
    return bool(variant.set_global or variant.set_session or variant.instance)


def settings_refusal(connection: ServerConnection, variant: ResolvedVariant) -> str | None:
    """Try every setting on a scratch server (it is thrown away afterwards); the first refusal as
    "<setting>: <the server's answer>", or None when the server takes them all."""
    for statement in variant.instance:
        try:
            with connection.cursor() as cursor:
                cursor.execute(statement)
        except pymysql.MySQLError as error:
            return f"instance statement {statement!r}: {_answer(error)}"
    for scope, settings in (("GLOBAL", variant.set_global), ("SESSION", variant.set_session)):
        for name, value in settings.items():
            setting = f"SET {scope} {name} = {value}"
            if not variable_exists(connection, scope, name):
                return f"{setting}: SHOW {scope} VARIABLES has no variable {name!r}"
            try:
                warnings = set_variable(connection, scope, name, value)
            except pymysql.MySQLError as error:
                return f"{setting}: {_answer(error)}"
            if warnings:
                return f"{setting}: the server adjusted the value: {'; '.join(warnings)}"
    return None


def apply_settings(connection: ServerConnection, variant: ResolvedVariant) -> None:
    """Instance statements, then SET GLOBAL, then SET SESSION, all on `connection` (the workload's).

    SET GLOBAL changes the global value only; a session-scoped variable also needs SET SESSION to
    reach the already open workload connection. Raises pymysql errors as the server gives them.
    """
    for statement in variant.instance:
        with connection.cursor() as cursor:
            cursor.execute(statement)
    for name, value in variant.set_global.items():
        set_variable(connection, "GLOBAL", name, value)
    for name, value in variant.set_session.items():
        set_variable(connection, "SESSION", name, value)


def _answer(error: pymysql.MySQLError) -> str:
    args = error.args
    return f"({args[0]}) {args[1]}" if len(args) >= 2 else str(error)
