"""A replay variant's own settings, beyond its target and preset: the experiment's variant spec
(experiments/schemas.py VariantSpec) as a replay applies it.

- startup options: the option-file lines its instance starts with (the presets' and the spec's,
  validated and allow-listed at creation as a run's: replay/service.py);
- instance statements and SET GLOBAL: on the started server, by the lab's admin connection, after the
  dataset is loaded or reused and before its tables are analysed (opening.py), so statistics are
  computed under them as on the team's server;
- SET SESSION: on the replay account's connection, before its first statement.

Each is checked on the server as a run's pre-flight checks it (`settings_refusal`
here, the same code for both): a variable SHOW VARIABLES does not list, a value the server
refuses or adjusts (a warning) fails the replay with SettingRefused naming the variant and the
setting. A replay's instance is its own (a slot of the target), so nothing needs putting back.
"""

from dataclasses import dataclass, field

import pymysql
from pydantic import ConfigDict, with_config

from upgradelab.experiments.server_settings import set_variable, variable_exists
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.measurement.dataset_records import forget_record
from upgradelab.targets.provisioners import Provisioner, ProvisionError
from upgradelab.targets.provisioners.base import ServerConnection

# SET SESSION a replay itself sets on its connection; a variant's value would be overwritten (or
# would undo the replay's guard), so it is refused at creation, naming what sets it.
REPLAY_SESSION_VARIABLES = {
    "max_statement_time": "the replay's statement bound sets it (give statement_timeout_s)",
    "max_execution_time": "the replay's statement bound sets it (give statement_timeout_s)",
    "transaction_read_only": "a read-only replay sets it before each statement",
    "tx_read_only": "a read-only replay sets it before each statement",
}


def replay_session_variable(set_session: dict[str, str]) -> tuple[str, str] | None:
    """The first variable of a variant's `set_session` that a replay sets itself, with what sets it
    (REPLAY_SESSION_VARIABLES: refused at creation, naming it), or None."""
    refused = [name for name in set_session if name in REPLAY_SESSION_VARIABLES]
    return (refused[0], REPLAY_SESSION_VARIABLES[refused[0]]) if refused else None


# with_config: the API sends every field, defaults included (the generated client's types say so)
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
@dataclass(frozen=True)
class VariantSettings:
    """What a variant sets: `options` (option-file lines, `name` or `name=value`, as its server
    starts), `set_global` and `set_session` (variable -> value), `instance` (allow-listed instance
    statements in their canonical spelling, experiments/server_settings.py)."""

    options: list[str] = field(default_factory=list)
    set_global: dict[str, str] = field(default_factory=dict)
    set_session: dict[str, str] = field(default_factory=dict)
    instance: list[str] = field(default_factory=list)


class SettingRefused(ProvisionError):
    """The variant's server refused one of its settings; the message names the variant, the server
    and the setting ("variant 'x': SET SESSION foo = 1: (1193) Unknown system variable 'foo'"). A
    ProvisionError: the variant's server could not be made as asked, and the replay fails with it."""


def apply_server_settings(
    admin: ServerConnection, name: str, settings: VariantSettings, provisioner: Provisioner
) -> None:
    """Instance statements, then SET GLOBAL, on the admin connection; SettingRefused at the first
    the server refuses. SET GLOBAL ends with the server; an instance statement acts on the instance
    (its redo log, its keys), and whether a restart undoes that is not the lab's to assume, so the
    instance's dataset record is removed first (dataset_records.py): its next replay loads the dump
    on a fresh datadir instead of reusing this one."""
    if settings.instance:
        forget_record(provisioner)
    _apply(admin, name, VariantSettings(set_global=settings.set_global, instance=settings.instance))


def apply_session_settings(connection: ServerConnection, name: str, settings: VariantSettings) -> None:
    """SET SESSION on the replay account's connection; SettingRefused at the first refused."""
    _apply(connection, name, VariantSettings(set_session=settings.set_session))


def _apply(connection: ServerConnection, name: str, settings: VariantSettings) -> None:
    variant = ResolvedVariant(
        name=name,
        target="",
        preset="default",
        options={},
        redo_log="enabled",
        set_global=settings.set_global,
        set_session=settings.set_session,
        instance=settings.instance,
    )
    refusal = settings_refusal(connection, variant)
    if refusal is not None:
        raise SettingRefused(f"variant {name!r}: the server refuses {refusal}")


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


def _answer(error: pymysql.MySQLError) -> str:
    args = error.args
    return f"({args[0]}) {args[1]}" if len(args) >= 2 else str(error)
