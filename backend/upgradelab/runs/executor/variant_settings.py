"""A variant's SET GLOBAL, SET SESSION and instance statements: checked on a scratch server (the measurement
library's `settings_refusal`, a replay's check too), then applied.

Source of truth is the server itself: a variable must be listed by SHOW GLOBAL/SESSION VARIABLES, and
its SET must succeed without warnings (a value the server truncates or adjusts is refused).
"""

from upgradelab.experiments.server_settings import set_variable
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.targets.provisioners.base import ServerConnection


def has_settings(variant: ResolvedVariant) -> bool:
    """Whether the variant has anything to apply after start (beyond the redo-log preset)."""
    return bool(variant.set_global or variant.set_session or variant.instance)


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
